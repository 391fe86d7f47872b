import { OPERATORS, type Condition, type ConditionValue, type Operator, type RuleAction } from '../api/types';

/** The operators in words (docs/dashboard.md); the select's values are the wire names. */
export const OPERATOR_WORDS: Readonly<Record<Operator, string>> = {
  equals: 'equals',
  not_equals: 'does not equal',
  contains: 'contains',
  not_contains: 'does not contain',
  greater_than: 'greater than',
  greater_than_or_equal: 'greater than or equal',
  less_than: 'less than',
  less_than_or_equal: 'less than or equal',
  exists: 'exists',
};

export const OPERATOR_LIST: readonly Operator[] = OPERATORS;

const NUMERIC_OPERATORS: ReadonlySet<Operator> = new Set(['greater_than', 'greater_than_or_equal', 'less_than', 'less_than_or_equal']);

/** A decimal as JSON writes it; the API's own test of a numeric string (docs/decisions/0008). */
const NUMERIC = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

export interface ConditionDraft {
  readonly key: string;
  readonly id?: string;
  readonly field: string;
  readonly operator: Operator;
  readonly value: string;
}

export interface ActionDraft {
  readonly key: string;
  readonly id?: string;
  readonly destinationId: string;
  readonly enabled: boolean;
}

// React keys only, unique within the page: a counter is enough.
let nextKey = 0;
function key(): string {
  nextKey += 1;
  return `rule-row-${nextKey}`;
}

export function conditionDraft(condition?: Condition): ConditionDraft {
  return {
    key: key(),
    ...(condition?.id === undefined ? {} : { id: condition.id }),
    field: condition?.field ?? '',
    operator: condition?.operator ?? 'equals',
    value: condition?.value === undefined ? '' : String(condition.value),
  };
}

export function actionDraft(action?: RuleAction, defaultDestinationId = ''): ActionDraft {
  return {
    key: key(),
    ...(action?.id === undefined ? {} : { id: action.id }),
    destinationId: action?.destinationId ?? defaultDestinationId,
    enabled: action?.enabled ?? true,
  };
}

/**
 * A numeric operator gets a number when the text is one; everything else goes as typed, since the
 * API compares a numeric string with a number as that number (docs/decisions/0008).
 */
export function conditionValue(operator: Operator, text: string): ConditionValue | undefined {
  if (operator === 'exists') return undefined;
  const trimmed = text.trim();
  if (NUMERIC_OPERATORS.has(operator) && NUMERIC.test(trimmed)) return Number(trimmed);
  return text;
}

export function toCondition(draft: ConditionDraft): Condition {
  const value = conditionValue(draft.operator, draft.value);
  return {
    ...(draft.id === undefined ? {} : { id: draft.id }),
    field: draft.field.trim(),
    operator: draft.operator,
    ...(value === undefined ? {} : { value }),
  };
}

export function toAction(draft: ActionDraft): RuleAction {
  return { ...(draft.id === undefined ? {} : { id: draft.id }), destinationId: draft.destinationId, enabled: draft.enabled };
}
