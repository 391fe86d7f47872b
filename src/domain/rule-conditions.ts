import { z } from 'zod';
import { FIELD_ID_PATTERN, FIELD_NAME_PATTERN } from './event-schema.js';
import { UNSTORABLE_TEXT_MESSAGE, isStorableText } from './text.js';
import { METADATA_KEY_PATTERN, METADATA_KEY_RULE } from './default-metadata.js';

/**
 * Rule conditions: the wire shape of one condition and the matching of an event against a rule's
 * conditions. Pure: the rules service validates with the schemas, the worker compiles each enabled
 * rule once and runs the compiled predicate per event. The semantic choices (numeric strings, missing
 * fields, null, arrays) are in docs/decisions/0008-rule-condition-semantics.md; the comments below
 * give the short reason.
 */

export const OPERATORS = [
  'equals',
  'not_equals',
  'contains',
  'not_contains',
  'greater_than',
  'greater_than_or_equal',
  'less_than',
  'less_than_or_equal',
  'exists',
] as const;
export type Operator = (typeof OPERATORS)[number];

export const MATCH_MODES = ['all', 'any'] as const;
export type MatchMode = (typeof MATCH_MODES)[number];

const NUMERIC_OPERATORS: ReadonlySet<Operator> = new Set(['greater_than', 'greater_than_or_equal', 'less_than', 'less_than_or_equal']);

export const MAX_FIELD_PATH_LENGTH = 200;
/** Same bound as a metadata string: a condition value is compared against one. */
export const MAX_CONDITION_VALUE_LENGTH = 1000;

/**
 * A decimal number written as text, as JSON writes numbers (plus an optional `+`, `5.` and `.5`).
 * No whitespace, hex, `Infinity`, `NaN` or digit separators: `Number()` would turn `''` and `' '`
 * into 0 and `'0x10'` into 16, which no one means by "a numeric string".
 *
 * Event data reaches this, so it must run in time linear in the value: the fraction is reached only
 * through its dot. Written as `\d+\.?\d*`, a run of digits could be split between the two `\d` in as
 * many ways as it is long, and a failing match (a million digits and a letter) tried every split.
 */
const NUMERIC_STRING = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A number, or a numeric string as its number; `undefined` for everything else (overflow included). */
export function toNumeric(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string' || !NUMERIC_STRING.test(value)) return undefined;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : undefined;
}

/**
 * Why a field path is not valid, or `undefined`. Segments follow the schema field-name rule, so any
 * field a schema can declare is addressable and `.` and `$` never appear inside a segment. Metadata
 * is flat (its values are scalars), so in `metadata.<key>` everything after the first dot is one key,
 * which may itself hold dots (`metadata.service.name`).
 */
export function fieldPathProblem(field: string): string | undefined {
  if (field.startsWith('$')) {
    return field === '$level' || field === '$customer_id' ? undefined : 'must be $level or $customer_id when it starts with $';
  }
  if (field.startsWith('metadata.')) {
    return METADATA_KEY_PATTERN.test(metadataKeyOf(field)) ? undefined : `must be metadata.<key>, the key ${METADATA_KEY_RULE}`;
  }
  const segments = field.split('.');
  if (segments.some((segment) => segment === '')) return 'must not start or end with a dot or contain an empty segment';
  const bad = segments.find((segment) => !FIELD_NAME_PATTERN.test(segment));
  if (bad !== undefined) return `segment "${bad}" must be 1–100 letters, digits, _ or -, not starting with -`;
  if (segments[0] === 'metadata') return 'must be metadata.<key>: metadata values are flat';
  return undefined;
}

/** A field path as conditions and a threshold's `groupBy` name it; see fieldPathProblem. */
export const fieldPathSchema = z
  .string({ error: 'must be a string' })
  .min(1, 'must not be empty')
  .max(MAX_FIELD_PATH_LENGTH, `must be at most ${MAX_FIELD_PATH_LENGTH} characters`)
  .superRefine((field, ctx) => {
    // The length checks above already reported these; one message per problem.
    if (field.length === 0 || field.length > MAX_FIELD_PATH_LENGTH) return;
    const problem = fieldPathProblem(field);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  });

const conditionValueSchema = z.union([z.number({ error: 'must be a finite number' }), z.string(), z.boolean()], {
  error: 'must be a number, string or boolean',
});

export const conditionInputSchema = z
  .strictObject({
    // Accepted so a rule read from the API can be sent back in a PATCH; the server assigns ids.
    id: z.string({ error: 'must be a string' }).regex(FIELD_ID_PATTERN, 'must be 1–100 letters, digits or . _ : -').optional(),
    field: fieldPathSchema.describe('Dotted path into `data` (`amount`, `order.total`, `items.0.sku`), `metadata.<key>`, `$level` or `$customer_id`'),
    operator: z.enum(OPERATORS, { error: `must be one of: ${OPERATORS.join(', ')}` }),
    value: conditionValueSchema
      .optional()
      .describe('Comparison value; required except for `exists`; a number or numeric string for the numeric operators'),
  })
  .superRefine((condition, ctx) => {
    const { operator, value } = condition;
    if (value === undefined) {
      if (operator !== 'exists') ctx.addIssue({ code: 'custom', path: ['value'], message: `is required for operator ${operator}` });
      return;
    }
    if (typeof value === 'string') {
      if (value.length > MAX_CONDITION_VALUE_LENGTH) ctx.addIssue({ code: 'custom', path: ['value'], message: `must be at most ${MAX_CONDITION_VALUE_LENGTH} characters` });
      if (!isStorableText(value)) ctx.addIssue({ code: 'custom', path: ['value'], message: UNSTORABLE_TEXT_MESSAGE });
    }
    if (NUMERIC_OPERATORS.has(operator) && toNumeric(value) === undefined) {
      ctx.addIssue({ code: 'custom', path: ['value'], message: `must be a number or a numeric string for operator ${operator}` });
    }
    // Every string contains '': such a rule would fire on every string value, surely not what was meant.
    if ((operator === 'contains' || operator === 'not_contains') && value === '') {
      ctx.addIssue({ code: 'custom', path: ['value'], message: `must not be empty for operator ${operator}` });
    }
  })
  .meta({ id: 'ConditionInput' });

export const matchSchema = z.enum(MATCH_MODES, { error: 'must be all or any' }).describe('`all`: every condition must hold; `any`: at least one');

export type ConditionValue = number | string | boolean;
export type ConditionInput = z.output<typeof conditionInputSchema>;
export interface Condition {
  readonly id: string;
  readonly field: string;
  readonly operator: Operator;
  /** Absent only for `exists`, where it is ignored. */
  readonly value?: ConditionValue | undefined;
}

/** What a condition can read of a stored event. */
export interface RuleEvent {
  readonly event: string;
  readonly level: string;
  readonly customerId: string | null;
  readonly data: Readonly<Record<string, unknown>>;
  readonly metadata: Readonly<Record<string, string | number | boolean>>;
}

export type CompiledConditions = (event: RuleEvent) => boolean;

export type Accessor = (event: RuleEvent) => unknown;
type Test = (actual: unknown) => boolean;

/** The rule value, pre-parsed once per rule instead of once per event. */
interface Expected {
  readonly raw: ConditionValue;
  readonly num: number | undefined;
  /** The boolean a value stands for: a boolean, or exactly 'true' / 'false'. */
  readonly bool: boolean | undefined;
  /** Text for substring `contains`: strings as they are, numbers and booleans as JSON writes them. */
  readonly text: string;
}

function expectedFrom(raw: ConditionValue): Expected {
  return {
    raw,
    num: toNumeric(raw),
    bool: typeof raw === 'boolean' ? raw : raw === 'true' ? true : raw === 'false' ? false : undefined,
    text: String(raw),
  };
}

/**
 * `equals`. Two strings compare exactly (case-sensitive, `"007"` is not `"7"`: codes and ids stay
 * text). A number meets a number or numeric string numerically (`"10"` equals 10, `"1e1"` too).
 * Booleans meet booleans and the strings 'true' / 'false'; never numbers. Null, objects and arrays
 * equal nothing (no deep equality; arrays are for `contains`).
 */
function equalsExpected(actual: unknown, expected: Expected): boolean {
  switch (typeof actual) {
    case 'number':
      return expected.num !== undefined && actual === expected.num;
    case 'string':
      if (typeof expected.raw === 'string') return actual === expected.raw;
      if (typeof expected.raw === 'number') return toNumeric(actual) === expected.raw;
      return actual === (expected.raw ? 'true' : 'false');
    case 'boolean':
      return actual === expected.bool;
    default:
      return false;
  }
}

/** `contains` where it is defined: substring of a string, or an element that `equals` the value. */
function containsExpected(actual: string | readonly unknown[], expected: Expected): boolean {
  return typeof actual === 'string' ? actual.includes(expected.text) : actual.some((element) => equalsExpected(element, expected));
}

const isContainer = (actual: unknown): actual is string | readonly unknown[] => typeof actual === 'string' || Array.isArray(actual);
/** Null is absent, as in schema validation (docs/decisions/0007): JSON writes `"x": null` for "no value". */
const isPresent = (actual: unknown): boolean => actual !== undefined && actual !== null;

function testFor(operator: Operator, value: ConditionValue | undefined): Test {
  if (operator === 'exists') return isPresent;
  // A stored condition that bypassed validation (no value) never matches rather than throwing in the worker.
  if (value === undefined) return () => false;
  const expected = expectedFrom(value);
  const bound = expected.num;
  switch (operator) {
    case 'equals':
      return (actual) => equalsExpected(actual, expected);
    // The exact negation, so a missing field is "not equal": silence is the costly failure of an
    // alert, and "present and different" is still expressible as `exists` + `not_equals` with `all`.
    case 'not_equals':
      return (actual) => !equalsExpected(actual, expected);
    // Container operators, like the numeric ones, hold only for their type: on a missing field or a
    // number both `contains` and `not_contains` are false.
    case 'contains':
      return (actual) => isContainer(actual) && containsExpected(actual, expected);
    case 'not_contains':
      return (actual) => isContainer(actual) && !containsExpected(actual, expected);
    default:
      break;
  }
  if (bound === undefined) return () => false;
  const numeric = (compare: (n: number) => boolean): Test => (actual) => {
    const n = toNumeric(actual);
    return n !== undefined && compare(n);
  };
  switch (operator) {
    case 'greater_than':
      return numeric((n) => n > bound);
    case 'greater_than_or_equal':
      return numeric((n) => n >= bound);
    case 'less_than':
      return numeric((n) => n < bound);
    case 'less_than_or_equal':
      return numeric((n) => n <= bound);
    default:
      // An operator this version does not know (a stored row from a newer one): never matches.
      return () => false;
  }
}

/** A path segment: an own key of an object, and for arrays only a canonical index. */
interface Segment {
  readonly key: string;
  readonly index: number | undefined;
}

const ARRAY_INDEX = /^(?:0|[1-9]\d{0,8})$/;

/**
 * Walks own properties only, so `__proto__`, `constructor` or `toString` never reach a prototype;
 * arrays answer to indexes only (`items.length` is undefined); strings and numbers have no members.
 */
function resolvePath(root: unknown, segments: readonly Segment[]): unknown {
  let current = root;
  for (const { key, index } of segments) {
    if (typeof current !== 'object' || current === null) return undefined;
    if (Array.isArray(current)) {
      if (index === undefined || index >= current.length) return undefined;
      current = current[index] as unknown;
    } else {
      if (!Object.hasOwn(current, key)) return undefined;
      current = (current as Record<string, unknown>)[key];
    }
  }
  return current;
}

/** The key of a `metadata.<key>` path: everything after the first dot. */
function metadataKeyOf(field: string): string {
  return field.slice('metadata.'.length);
}

/** Reads one field path (as conditions and `groupBy` name it) of an event; undefined when absent. */
export function fieldAccessor(field: string): Accessor {
  if (field === '$level') return (event) => event.level;
  if (field === '$customer_id') return (event) => event.customerId;
  if (field.startsWith('metadata.')) {
    const key = metadataKeyOf(field);
    return (event) => (Object.hasOwn(event.metadata, key) ? event.metadata[key] : undefined);
  }
  const parts = field.split('.');
  const segments: Segment[] = parts.map((key) => ({ key, index: ARRAY_INDEX.test(key) ? Number(key) : undefined }));
  return (event) => resolvePath(event.data, segments);
}

/**
 * Compiles a rule's conditions once: paths split, rule values parsed, one closure per condition.
 * No conditions → matches every event.
 */
export function compileConditions(conditions: readonly Condition[], match: MatchMode): CompiledConditions {
  const predicates = conditions.map((condition) => {
    const access = fieldAccessor(condition.field);
    const test = testFor(condition.operator, condition.value);
    return (event: RuleEvent) => test(access(event));
  });
  if (predicates.length === 0) return () => true;
  if (match === 'any') return (event) => predicates.some((predicate) => predicate(event));
  return (event) => predicates.every((predicate) => predicate(event));
}

/** One-off evaluation; the worker keeps `compileConditions`' result per rule instead. */
export function evaluateConditions(event: RuleEvent, conditions: readonly Condition[], match: MatchMode): boolean {
  return compileConditions(conditions, match)(event);
}
