import fc from 'fast-check';
import type { Json } from './fuzz-ingest-bodies.js';
import { displayNameArb, eventNameArb, injectionTextArb, storableTextArb, textWithLoneSurrogateArb } from './fuzz-text.js';

/**
 * Notification rule bodies for `POST …/notification-rules` and `PATCH …/notification-rules/{id}`:
 * rules valid by construction (every operator, every kind of field path, actions on the app's own
 * destinations), and the same rules with one thing made wrong.
 */

export const OPERATORS = ['equals', 'not_equals', 'contains', 'not_contains', 'greater_than', 'greater_than_or_equal', 'less_than', 'less_than_or_equal', 'exists'] as const;
const NUMERIC = ['greater_than', 'greater_than_or_equal', 'less_than', 'less_than_or_equal'];

export interface RuleFixtures {
  /** Destinations of the app the rules are made for. */
  readonly destinations: ReadonlyArray<{ readonly id: string; readonly type: string }>;
  /** A destination of another app: never a valid action target here. */
  readonly foreignDestinationId: string;
}

type Body = Record<string, Json>;

const segmentArb = fc
  .tuple(fc.constantFrom(...'abcxyzAZ019_'), fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABC0123456789_-'), maxLength: 30 }))
  .map(([first, rest]) => first + rest)
  .filter((segment) => segment !== '__proto__');

/** Dotted paths into data (never starting with `metadata`), `metadata.<key>` (a key may hold dots), `$level`, `$customer_id`. */
const fieldArb = fc.oneof(
  { weight: 4, arbitrary: fc.array(segmentArb, { minLength: 1, maxLength: 5 }).map((s) => s.join('.')).filter((p) => !p.startsWith('metadata.') && p !== 'metadata' && p.length <= 200) },
  // A path is text, not a key: `__proto__` here names an own key of the event's data, and resolves only to one.
  { weight: 1, arbitrary: fc.constantFrom('$level', '$customer_id', 'amount', 'order.total', 'items.0.sku', 'constructor', 'toString', 'a.constructor.name', '__proto__', 'a.__proto__.b', 'metadata.service.name') },
  { weight: 1, arbitrary: segmentArb.map((key) => `metadata.${key}`) },
);

/** A decimal as JSON writes it (sign, `5.`, `.5`, exponent): what the numeric operators take as a number. */
export const numericStringArb = fc
  .record({
    sign: fc.constantFrom('', '-', '+'),
    int: fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 20 }),
    fraction: fc.option(fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength: 10 }), { nil: undefined }),
    exponent: fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.integer({ min: 0, max: 99 })), { nil: undefined }),
  })
  .map(({ sign, int, fraction, exponent }) => `${sign}${int}${fraction === undefined ? '' : `.${fraction}`}${exponent === undefined ? '' : exponent.join('')}`);

const finiteArb = fc.double({ noNaN: true, noDefaultInfinity: true });
const textValueArb = fc.oneof(storableTextArb(40), storableTextArb(1000), injectionTextArb.filter((s) => s !== '\u0000'));

const conditionArb: fc.Arbitrary<Body> = fc.constantFrom(...OPERATORS).chain((operator) => {
  const value: fc.Arbitrary<Json> = NUMERIC.includes(operator)
    ? fc.oneof(finiteArb, numericStringArb)
    : operator === 'contains' || operator === 'not_contains'
      ? fc.oneof(textValueArb.filter((s) => s !== ''), finiteArb, fc.boolean())
      : operator === 'exists'
        ? fc.option(fc.oneof(textValueArb, finiteArb, fc.boolean()), { nil: undefined })
        : fc.oneof(textValueArb, finiteArb, fc.boolean());
  return fc
    .record({ field: fieldArb, value, id: fc.option(fc.stringMatching(/^[A-Za-z0-9._:-]{1,100}$/), { nil: undefined }) })
    .map(({ field, value, id }) => JSON.parse(JSON.stringify({ ...(id === undefined ? {} : { id }), field, operator, value })) as Body);
});

function actionArb(fixtures: RuleFixtures): fc.Arbitrary<Body> {
  return fc
    .record({
      destination: fc.constantFrom(...fixtures.destinations),
      upper: fc.boolean(),
      channel: fc.boolean(),
      enabled: fc.option(fc.boolean(), { nil: undefined }),
      target: fc.option(fc.oneof(fc.string({ maxLength: 20 }), fc.constant(null)), { nil: undefined }),
      id: fc.option(fc.uuid(), { nil: undefined }),
    })
    .map(({ destination, upper, channel, enabled, target, id }) =>
      JSON.parse(
        JSON.stringify({
          destinationId: upper ? destination.id.toUpperCase() : destination.id,
          ...(channel ? { channel: destination.type } : {}),
          enabled,
          target,
          id,
        }),
      ),
    );
}

/** A complete rule every documented check accepts. */
export function validRuleArb(fixtures: RuleFixtures): fc.Arbitrary<Body> {
  return fc
    .record(
      {
        name: displayNameArb,
        eventName: eventNameArb,
        enabled: fc.boolean(),
        match: fc.constantFrom('all', 'any'),
        conditions: fc.oneof(fc.array(conditionArb, { maxLength: 6 }), fc.array(conditionArb, { minLength: 50, maxLength: 50 })),
        actions: fc.oneof(fc.array(actionArb(fixtures), { maxLength: 4 }), fc.array(actionArb(fixtures), { minLength: 20, maxLength: 20 })),
        cooldownSeconds: fc.oneof(fc.integer({ min: 0, max: 86_400 }), fc.constantFrom(0, 86_400)),
      },
      { requiredKeys: ['name', 'eventName'] },
    )
    .map((body) => body as Body);
}

/** A valid PATCH: any subset of the fields, `{}` included. */
export function validRulePatchArb(fixtures: RuleFixtures): fc.Arbitrary<Body> {
  return validRuleArb(fixtures).chain((body) => fc.subarray(Object.keys(body)).map((keys) => Object.fromEntries(keys.map((k) => [k, body[k]!]))));
}

const nonString = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.constant([]), fc.constant({}));

/** One wrong condition, by what is wrong with it. */
const badConditionArb: fc.Arbitrary<Json> = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('', '.a', 'a.', 'a..b', '$foo', '$', 'metadata', 'metadata.', 'metadata..a', 'metadata.-a', 'metadata.a b', 'a b', 'é', '-a', 'a.-b', `${'f'.repeat(201)}`, 'a.b c', 'ü.x'),
      fc.constantFrom(...OPERATORS),
    )
    .map(([field, operator]) => ({ field, operator, value: 1 })),
  fc.tuple(fieldArb, fc.oneof(fc.constantFrom('gt', 'EQUALS', 'greater than', 'in', '', 'exist'), nonString)).map(([field, operator]) => ({ field, operator, value: 1 })),
  fc.tuple(fieldArb, fc.constantFrom(...OPERATORS.filter((o) => o !== 'exists'))).map(([field, operator]) => ({ field, operator })),
  // Not numbers for the numeric operators, the quadratic-backtracking shape among them.
  fc
    .tuple(
      fieldArb,
      fc.constantFrom(...NUMERIC),
      fc.oneof(fc.integer({ min: 1, max: 999 }).map((n) => `${'1'.repeat(n)}a`), fc.constantFrom('', ' 1', '1 ', '0x10', 'Infinity', 'NaN', '1e400', '1,5', '٣', '1_000', 'true'), fc.boolean()),
    )
    .map(([field, operator, value]) => ({ field, operator, value })),
  fc.tuple(fieldArb, fc.constantFrom('contains', 'not_contains')).map(([field, operator]) => ({ field, operator, value: '' })),
  fc
    .tuple(fieldArb, fc.constantFrom(...OPERATORS), fc.oneof(fc.constant(null), fc.constant({}), fc.constant([1]), fc.integer({ min: 1001, max: 5000 }).map((n) => 'v'.repeat(n)), textWithLoneSurrogateArb, fc.constant('a\u0000b')))
    .map(([field, operator, value]) => ({ field, operator, value })),
  fc.tuple(fieldArb, fc.string({ maxLength: 8 }).filter((k) => !['field', 'operator', 'value', 'id'].includes(k))).map(([field, key]) => ({ field, operator: 'exists', [key]: 1 })),
  fc.constantFrom<Json>('amount > 5', 1, null, []),
);

function badActionArb(fixtures: RuleFixtures): fc.Arbitrary<Json> {
  const first = fixtures.destinations[0]!;
  return fc.oneof(
    fc.uuid().map((destinationId) => ({ destinationId })),
    fc.constant({ destinationId: fixtures.foreignDestinationId }),
    fc.oneof(fc.constantFrom('', 'not-a-uuid', `${first.id}x`, first.id.replaceAll('-', '')), nonString).map((destinationId) => ({ destinationId })),
    fc.constantFrom('slack', 'discord', 'email', 'webhook', 'sms', '').filter((c) => c !== first.type).map((channel) => ({ destinationId: first.id, channel })),
    fc.oneof(fc.constantFrom('true', 'yes'), fc.integer()).map((enabled) => ({ destinationId: first.id, enabled })),
    fc.string({ maxLength: 8 }).filter((k) => !['destinationId', 'channel', 'enabled', 'target', 'id'].includes(k)).map((key) => ({ destinationId: first.id, [key]: 1 })),
    fc.constant({}),
    fc.constantFrom<Json>(first.id, null, 1),
  );
}

/** A body made invalid in one place: a field's value, one condition, one action, or a stray key. */
export function invalidRuleArb(fixtures: RuleFixtures, base: fc.Arbitrary<Body>): fc.Arbitrary<{ label: string; body: Json }> {
  const change = (label: string, field: string, values: fc.Arbitrary<Json>) =>
    fc.tuple(base, values).map(([body, value]) => ({ label: `${label}: ${fc.stringify(value).slice(0, 80)}`, body: { ...body, [field]: value } }));
  const inList = (label: string, field: string, item: fc.Arbitrary<Json>, valid: fc.Arbitrary<Json>) =>
    fc.tuple(base, fc.array(valid, { maxLength: 3 }), item, fc.nat()).map(([body, list, bad, at]) => {
      const items = [...list];
      items.splice(at % (items.length + 1), 0, bad);
      return { label: `${label}: ${fc.stringify(bad).slice(0, 80)}`, body: { ...body, [field]: items } };
    });
  return fc.oneof(
    change('name', 'name', fc.oneof(fc.constantFrom('', '   ', 'n'.repeat(201), 'a\nb', 'tab\there', 'nul\u0000', '\u0007bell'), textWithLoneSurrogateArb, nonString)),
    change('eventName', 'eventName', fc.oneof(fc.constantFrom('', 'a b', 'é', 'e'.repeat(201), '*'), nonString)),
    change('enabled', 'enabled', fc.oneof(fc.constantFrom('true', 'false', 1, 0), fc.constant(null))),
    change('match', 'match', fc.oneof(fc.constantFrom('ALL', 'none', 'some', ''), nonString)),
    change('cooldownSeconds', 'cooldownSeconds', fc.oneof(fc.constantFrom(-1, 86_401, 1.5, 1e21, '10', -0.5), fc.constant(null), fc.integer({ min: 86_401 }), fc.integer({ max: -1 }))),
    change('conditions', 'conditions', fc.oneof(fc.constant({}), fc.constant('all'), fc.constant(null), fc.array(conditionArb, { minLength: 51, maxLength: 51 }))),
    change('actions', 'actions', fc.oneof(fc.constant({}), fc.constant('x'), fc.constant(null), fc.array(actionArb(fixtures), { minLength: 21, maxLength: 21 }))),
    inList('condition', 'conditions', badConditionArb, conditionArb),
    inList('action', 'actions', badActionArb(fixtures), actionArb(fixtures)),
    fc
      .tuple(base, fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom('id', 'appId', 'triggerCount', 'lastTriggeredAt', '__proto__', 'trigger', 'createdAt')), fc.oneof(fc.integer(), fc.string({ maxLength: 5 })))
      .filter(([, key]) => !['name', 'eventName', 'enabled', 'match', 'conditions', 'actions', 'cooldownSeconds'].includes(key))
      .map(([body, key, value]) => ({ label: `unknown field ${key}`, body: { ...body, [key]: value } })),
    fc.oneof(fc.jsonValue().filter((v) => typeof v !== 'object' || v === null || Array.isArray(v)), fc.constant([])).map((body) => ({ label: 'not an object', body: body })),
  );
}
