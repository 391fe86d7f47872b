import { OPERATORS, TRIGGER_TYPES, type AlertTemplate, type Condition, type ConditionValue, type Operator, type RuleAction, type RuleTrigger, type TriggerType } from '../api/types';
import { counted, duration } from './format';

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
  /** The message template; both empty is the channel's default message. */
  readonly title: string;
  readonly body: string;
}

/** The trigger as the editor holds it: every kind's numbers as typed, so switching kinds loses nothing. */
export interface TriggerDraft {
  readonly type: TriggerType;
  readonly count: string;
  readonly windowSeconds: string;
  readonly groupBy: string;
  readonly silenceSeconds: string;
}

/** The trigger kinds in words (docs/dashboard.md); the select's values are the wire names. */
export const TRIGGER_WORDS: Readonly<Record<TriggerType, string>> = {
  every: 'Every matching event',
  threshold: 'Threshold',
  absence: 'Absence',
};

export const TRIGGER_LIST: readonly TriggerType[] = TRIGGER_TYPES;

/**
 * What a message template may say, as the API takes it (its alert-template validation): the fixed
 * names, then the paths into the event.
 */
export const TEMPLATE_PLACEHOLDERS = [
  '{{event}}',
  '{{level}}',
  '{{customer_id}}',
  '{{timestamp}}',
  '{{rule.name}}',
  '{{app.name}}',
  '{{count}}',
  '{{windowSeconds}}',
  '{{group}}',
  '{{data.PATH}}',
  '{{metadata.KEY}}',
] as const;

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
    title: action?.template?.title ?? '',
    body: action?.template?.body ?? '',
  };
}

/** Fresh rules count 5 matches in 5 minutes, or a silence of an hour: sensible starting numbers to edit. */
export function triggerDraft(trigger?: RuleTrigger): TriggerDraft {
  return {
    type: trigger?.type ?? 'every',
    count: trigger?.type === 'threshold' ? String(trigger.count) : '5',
    windowSeconds: trigger?.type === 'threshold' ? String(trigger.windowSeconds) : '300',
    groupBy: trigger?.type === 'threshold' ? (trigger.groupBy ?? '') : '',
    silenceSeconds: trigger?.type === 'absence' ? String(trigger.windowSeconds) : '3600',
  };
}

/** A number as typed; not a number becomes null in JSON, and the API's message then says what it must be. */
export function typedNumber(text: string): number {
  return text.trim() === '' ? Number.NaN : Number(text);
}

export function toTrigger(draft: TriggerDraft): RuleTrigger {
  switch (draft.type) {
    case 'every':
      return { type: 'every' };
    case 'threshold': {
      const groupBy = draft.groupBy.trim();
      return { type: 'threshold', count: typedNumber(draft.count), windowSeconds: typedNumber(draft.windowSeconds), ...(groupBy === '' ? {} : { groupBy }) };
    }
    case 'absence':
      return { type: 'absence', windowSeconds: typedNumber(draft.silenceSeconds) };
  }
}

/** How the rules list says a trigger: `Every match`, `5 matches in 5 min per $customer_id`, `No match for 1 h`. */
export function triggerInWords(trigger: RuleTrigger): string {
  switch (trigger.type) {
    case 'every':
      return 'Every match';
    case 'threshold':
      return `${counted(trigger.count, 'match', 'matches')} in ${duration(trigger.windowSeconds)}${trigger.groupBy === undefined ? '' : ` per ${trigger.groupBy}`}`;
    case 'absence':
      return `No match for ${duration(trigger.windowSeconds)}`;
  }
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

/** Only the parts written: an empty title or body keeps the channel's default for that part. */
function toTemplate(draft: ActionDraft): AlertTemplate | undefined {
  const template = { ...(draft.title === '' ? {} : { title: draft.title }), ...(draft.body === '' ? {} : { body: draft.body }) };
  return Object.keys(template).length === 0 ? undefined : template;
}

export function toAction(draft: ActionDraft): RuleAction {
  const template = toTemplate(draft);
  return {
    ...(draft.id === undefined ? {} : { id: draft.id }),
    destinationId: draft.destinationId,
    enabled: draft.enabled,
    ...(template === undefined ? {} : { template }),
  };
}
