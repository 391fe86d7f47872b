import { describe, expect, it } from 'vitest';
import {
  compileConditions,
  conditionInputSchema,
  evaluateConditions,
  fieldPathProblem,
  matchSchema,
  toNumeric,
  type Condition,
  type ConditionValue,
  type Operator,
  type RuleEvent,
} from './rule-conditions.js';

const event: RuleEvent = Object.freeze({
  event: 'order.created',
  level: 'error',
  customerId: 'cus_42',
  data: JSON.parse(
    JSON.stringify({
      amount: 150,
      amountText: '150',
      price: 10,
      priceText: '10.0',
      code: '007',
      name: 'Big Order',
      empty: '',
      blank: ' ',
      paid: true,
      paidText: 'true',
      nothing: null,
      zero: 0,
      tags: ['vip', 'eu', 3, true],
      order: { total: 99.5, currency: 'EUR', lines: [{ sku: 'A-1', qty: 2 }] },
      huge: '1e400',
      hex: '0x10',
      inf: 'Infinity',
    }),
  ) as Record<string, unknown>,
  metadata: { region: 'eu-west', shard: 7, beta: false, 'service.name': 'checkout' },
});

let nextId = 0;
function condition(field: string, operator: Operator, value?: ConditionValue): Condition {
  nextId += 1;
  return { id: `c${nextId}`, field, operator, ...(value === undefined ? {} : { value }) };
}

function holds(field: string, operator: Operator, value?: ConditionValue, on: RuleEvent = event): boolean {
  return evaluateConditions(on, [condition(field, operator, value)], 'all');
}

type Row = [field: string, operator: Operator, value: ConditionValue | undefined, expected: boolean];

describe('operators', () => {
  const rows: Row[] = [
    // numeric operators: numbers, numeric strings on either side, nothing else
    ['amount', 'greater_than', 100, true],
    ['amount', 'greater_than', 150, false],
    ['amount', 'greater_than_or_equal', 150, true],
    ['amount', 'less_than', 150, false],
    ['amount', 'less_than_or_equal', '150', true],
    ['amountText', 'greater_than', 100, true],
    ['amountText', 'less_than', '1.5e3', true],
    ['order.total', 'less_than', 100, true],
    ['zero', 'greater_than_or_equal', 0, true],
    ['name', 'greater_than', 0, false],
    ['name', 'less_than', 0, false],
    ['empty', 'less_than', 1, false],
    ['blank', 'less_than', 1, false],
    ['hex', 'greater_than', 1, false],
    ['inf', 'greater_than', 1, false],
    ['huge', 'greater_than', 1, false],
    ['paid', 'greater_than', 0, false],
    ['nothing', 'less_than', 1, false],
    ['tags', 'greater_than', 0, false],
    ['order', 'greater_than', 0, false],
    ['missing', 'less_than', 1, false],
    ['missing', 'greater_than_or_equal', 0, false],
    // equals / not_equals
    ['amount', 'equals', 150, true],
    ['amount', 'equals', '150', true],
    ['amount', 'equals', '150.0', true],
    ['amountText', 'equals', 150, true],
    ['amountText', 'equals', '150', true],
    ['priceText', 'equals', 10, true],
    ['priceText', 'equals', '10', false],
    ['code', 'equals', '007', true],
    ['code', 'equals', '7', false],
    ['code', 'equals', 7, true],
    ['name', 'equals', 'Big Order', true],
    ['name', 'equals', 'big order', false],
    ['name', 'equals', 0, false],
    ['paid', 'equals', true, true],
    ['paid', 'equals', 'true', true],
    ['paid', 'equals', 'TRUE', false],
    ['paid', 'equals', 1, false],
    ['paidText', 'equals', true, true],
    ['paidText', 'equals', false, false],
    ['zero', 'equals', false, false],
    ['nothing', 'equals', 'null', false],
    ['tags', 'equals', 'vip', false],
    ['order', 'equals', '[object Object]', false],
    ['missing', 'equals', 'x', false],
    ['amount', 'not_equals', 150, false],
    ['amount', 'not_equals', 151, true],
    ['name', 'not_equals', 'big order', true],
    ['missing', 'not_equals', 'ok', true],
    ['nothing', 'not_equals', 'ok', true],
    // contains / not_contains
    ['name', 'contains', 'Order', true],
    ['name', 'contains', 'order', false],
    ['amountText', 'contains', 5, true],
    ['paidText', 'contains', true, true],
    ['tags', 'contains', 'vip', true],
    ['tags', 'contains', 'vi', false],
    ['tags', 'contains', '3', true],
    ['tags', 'contains', 'true', true],
    ['tags', 'contains', 'us', false],
    ['amount', 'contains', 15, false],
    ['order', 'contains', 'EUR', false],
    ['missing', 'contains', 'x', false],
    ['name', 'not_contains', 'Small', true],
    ['name', 'not_contains', 'Big', false],
    ['tags', 'not_contains', 'us', true],
    ['tags', 'not_contains', 'eu', false],
    ['amount', 'not_contains', 'x', false],
    ['missing', 'not_contains', 'x', false],
    ['nothing', 'not_contains', 'x', false],
    // exists
    ['amount', 'exists', undefined, true],
    ['empty', 'exists', undefined, true],
    ['zero', 'exists', undefined, true],
    ['paid', 'exists', 'ignored', true],
    ['nothing', 'exists', undefined, false],
    ['missing', 'exists', undefined, false],
    // nested paths and array indexes
    ['order.currency', 'equals', 'EUR', true],
    ['order.lines.0.sku', 'equals', 'A-1', true],
    ['order.lines.0.qty', 'greater_than', 1, true],
    ['order.lines.1.sku', 'exists', undefined, false],
    ['order.lines.00.sku', 'exists', undefined, false],
    ['order.lines.length', 'exists', undefined, false],
    ['tags.0', 'equals', 'vip', true],
    ['name.length', 'exists', undefined, false],
    ['amount.toFixed', 'exists', undefined, false],
    ['order.total.x', 'exists', undefined, false],
    // metadata and event fields
    ['metadata.region', 'equals', 'eu-west', true],
    ['metadata.region', 'contains', 'eu', true],
    ['metadata.shard', 'greater_than', 5, true],
    ['metadata.beta', 'equals', 'false', true],
    ['metadata.missing', 'exists', undefined, false],
    ['metadata.toString', 'exists', undefined, false],
    // A key with dots (OpenTelemetry's resource attributes): everything after `metadata.`.
    ['metadata.service.name', 'equals', 'checkout', true],
    ['metadata.service', 'exists', undefined, false],
    ['$level', 'equals', 'error', true],
    ['$level', 'not_equals', 'info', true],
    ['$customer_id', 'equals', 'cus_42', true],
    ['$customer_id', 'exists', undefined, true],
    // prototype properties never resolve
    ['__proto__', 'exists', undefined, false],
    ['constructor', 'exists', undefined, false],
    ['toString', 'exists', undefined, false],
    ['hasOwnProperty', 'exists', undefined, false],
    ['order.__proto__', 'exists', undefined, false],
    ['order.constructor.name', 'exists', undefined, false],
    ['tags.constructor', 'exists', undefined, false],
  ];

  it.each(rows)('%s %s %j → %s', (field, operator, value, expected) => {
    expect(holds(field, operator, value)).toBe(expected);
  });

  it('treats a null customer id as absent', () => {
    const anonymous: RuleEvent = { ...event, customerId: null };
    expect(holds('$customer_id', 'exists', undefined, anonymous)).toBe(false);
    expect(holds('$customer_id', 'not_equals', 'cus_42', anonymous)).toBe(true);
    expect(holds('$customer_id', 'equals', 'null', anonymous)).toBe(false);
  });

  it('reads an own __proto__ key of parsed JSON as data, never the prototype', () => {
    const parsed: RuleEvent = { ...event, data: JSON.parse('{"__proto__": {"admin": true}}') as Record<string, unknown> };
    expect(holds('__proto__.admin', 'equals', true, parsed)).toBe(true);
    expect(holds('__proto__.admin', 'exists', undefined, event)).toBe(false);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('never matches a stored condition that lacks its value or names an unknown operator', () => {
    expect(holds('amount', 'equals', undefined)).toBe(false);
    expect(holds('amount', 'greater_than', 'abc')).toBe(false);
    expect(holds('amount', 'between' as Operator, 1)).toBe(false);
  });
});

describe('match modes', () => {
  const yes = condition('amount', 'greater_than', 100);
  const no = condition('$level', 'equals', 'info');

  it.each([
    ['all', [yes, yes], true],
    ['all', [yes, no], false],
    ['any', [no, yes], true],
    ['any', [no, no], false],
    ['all', [], true],
    ['any', [], true],
  ] as const)('%s of %# → %s', (match, conditions, expected) => {
    expect(evaluateConditions(event, conditions, match)).toBe(expected);
    expect(compileConditions(conditions, match)(event)).toBe(expected);
  });

  it('reuses one compiled predicate across events', () => {
    const big = compileConditions([condition('amount', 'greater_than', '100'), condition('metadata.region', 'contains', 'eu')], 'all');
    expect(big(event)).toBe(true);
    expect(big({ ...event, data: { amount: 99 } })).toBe(false);
    expect(big({ ...event, data: { amount: '101' }, metadata: { region: 'us' } })).toBe(false);
  });
});

describe('toNumeric', () => {
  it.each([
    [10, 10],
    ['10', 10],
    ['-2.5', -2.5],
    ['+3', 3],
    ['.5', 0.5],
    ['5.', 5],
    ['1e3', 1000],
  ] as const)('%j → %j', (input, expected) => {
    expect(toNumeric(input)).toBe(expected);
  });
  it.each(['', ' ', ' 10', '10 ', 'abc', '0x10', '1_000', 'Infinity', 'NaN', '1e400', '.', '-', true, null, undefined, NaN, Infinity, [1], {}])('%j → undefined', (input) => {
    expect(toNumeric(input)).toBeUndefined();
  });
});

describe('conditionInputSchema', () => {
  it.each([
    { field: 'amount', operator: 'greater_than', value: 100 },
    { field: 'amount', operator: 'greater_than', value: '100.5' },
    { field: 'order.total', operator: 'less_than_or_equal', value: -1 },
    { field: 'order.lines.0.sku', operator: 'equals', value: 'A-1' },
    { field: 'metadata.region', operator: 'contains', value: 'eu' },
    { field: '$level', operator: 'equals', value: 'error' },
    { field: '$customer_id', operator: 'exists' },
    { field: 'paid', operator: 'exists', value: true },
    { field: 'paid', operator: 'not_equals', value: false },
    { id: 'c-1', field: 'x', operator: 'equals', value: '' },
    { field: 'x'.repeat(100) + '.' + 'y'.repeat(99), operator: 'exists' },
  ])('accepts %j', (input) => {
    expect(conditionInputSchema.safeParse(input).success).toBe(true);
  });

  it.each([
    [{ field: '', operator: 'exists' }, 'field', 'must not be empty'],
    [{ field: '.amount', operator: 'exists' }, 'field', 'must not start or end with a dot or contain an empty segment'],
    [{ field: 'amount.', operator: 'exists' }, 'field', 'must not start or end with a dot or contain an empty segment'],
    [{ field: 'order..total', operator: 'exists' }, 'field', 'must not start or end with a dot or contain an empty segment'],
    [{ field: 'order total', operator: 'exists' }, 'field', 'segment "order total" must be 1–100 letters, digits, _ or -, not starting with -'],
    [{ field: 'a.-b', operator: 'exists' }, 'field', 'segment "-b" must be 1–100 letters, digits, _ or -, not starting with -'],
    [{ field: 'a.$level', operator: 'exists' }, 'field', 'segment "$level" must be 1–100 letters, digits, _ or -, not starting with -'],
    [{ field: '$timestamp', operator: 'exists' }, 'field', 'must be $level or $customer_id when it starts with $'],
    [{ field: '$level.x', operator: 'exists' }, 'field', 'must be $level or $customer_id when it starts with $'],
    [{ field: 'metadata', operator: 'exists' }, 'field', 'must be metadata.<key>: metadata values are flat'],
    [{ field: 'metadata.', operator: 'exists' }, 'field', 'must be metadata.<key>, the key 1 to 100 letters, digits, _, - or ., not starting with - or .'],
    [{ field: 'metadata..a', operator: 'exists' }, 'field', 'must be metadata.<key>, the key 1 to 100 letters, digits, _, - or ., not starting with - or .'],
    [{ field: 'metadata.a b', operator: 'exists' }, 'field', 'must be metadata.<key>, the key 1 to 100 letters, digits, _, - or ., not starting with - or .'],
    [{ field: 'x'.repeat(201), operator: 'exists' }, 'field', 'must be at most 200 characters'],
    [{ field: 'amount', operator: 'between', value: 1 }, 'operator', 'must be one of: equals, not_equals, contains, not_contains, greater_than, greater_than_or_equal, less_than, less_than_or_equal, exists'],
    [{ field: 'amount', operator: 'equals' }, 'value', 'is required for operator equals'],
    [{ field: 'amount', operator: 'less_than' }, 'value', 'is required for operator less_than'],
    [{ field: 'amount', operator: 'greater_than', value: 'abc' }, 'value', 'must be a number or a numeric string for operator greater_than'],
    [{ field: 'amount', operator: 'less_than', value: '' }, 'value', 'must be a number or a numeric string for operator less_than'],
    [{ field: 'amount', operator: 'less_than', value: true }, 'value', 'must be a number or a numeric string for operator less_than'],
    [{ field: 'name', operator: 'contains', value: '' }, 'value', 'must not be empty for operator contains'],
    [{ field: 'name', operator: 'equals', value: null }, 'value', 'must be a number, string or boolean'],
    [{ field: 'name', operator: 'equals', value: ['a'] }, 'value', 'must be a number, string or boolean'],
    [{ field: 'name', operator: 'equals', value: 'a\u0000' }, 'value', 'must not contain NUL characters or unpaired surrogates'],
    [{ field: 'name', operator: 'equals', value: 'x'.repeat(1001) }, 'value', 'must be at most 1000 characters'],
    [{ field: 'name', operator: 'exists', extra: 1 }, '', 'Unrecognized key: "extra"'],
  ])('refuses %j at %s', (input, path, message) => {
    const result = conditionInputSchema.safeParse(input);
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }))).toEqual([{ path, message }]);
  });

  it('validates match modes', () => {
    expect(matchSchema.safeParse('all').success).toBe(true);
    expect(matchSchema.safeParse('any').success).toBe(true);
    expect(matchSchema.safeParse('none').error?.issues[0]?.message).toBe('must be all or any');
  });

  it('agrees with fieldPathProblem', () => {
    expect(fieldPathProblem('order.lines.0.sku')).toBeUndefined();
    expect(fieldPathProblem('metadata.region')).toBeUndefined();
    expect(fieldPathProblem('$customer_id')).toBeUndefined();
  });
});

describe('numeric strings from hostile event data', () => {
  // A pattern that backtracked over every split of the digits took hours on a 1 MiB value; this test's
  // own timeout is the bound that matters, not a measurement.
  it('decides on a million digits followed by a letter, a dot or an exponent without backtracking', () => {
    for (const tail of ['a', '.', 'e', '.5e+', 'x1']) expect(toNumeric(`${'7'.repeat(1_000_000)}${tail}`)).toBeUndefined();
    expect(toNumeric('7'.repeat(400))).toBeUndefined(); // overflows a double
    expect(toNumeric(`${'7'.repeat(300)}.5`)).toBeGreaterThan(1e299);
  });
});
