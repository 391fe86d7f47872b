import fc from 'fast-check';
import { eventNameArb, fieldNameArb, loneSurrogateArb, textWithLoneSurrogateArb, wellFormedTextArb } from './fuzz-text.js';

/**
 * Ingest bodies for the input-fuzz suite: events valid by construction (every documented rule of
 * `POST /v1/ingest` holds), and the same events with exactly one thing made wrong, so the expected
 * answer of each case is known: 202 for the first, 400 for the second.
 */

export const LEVELS = ['info', 'warning', 'error', 'success'] as const;
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** Any value JSON can carry. Left open: the generators build such values, the type only says so. */
export type Json = unknown;
export type Event = Record<string, Json>;

const EARLIEST_MS = Date.parse('0001-01-02T00:00:00Z');
const HOUR_MS = 3_600_000;

/**
 * An ISO 8601 date-time with a zone, as the service documents it: `Z`, `±hh:mm` or `±hhmm` (the same
 * offset without its colon, as Python's `%z` writes it), any number of fraction digits, from year 1 to
 * 23 h from now (more than 24 h ahead is refused).
 */
export const timestampArb = fc
  .record({
    instant: fc.integer({ min: EARLIEST_MS, max: Date.now() + 23 * HOUR_MS }),
    offsetMinutes: fc.option(fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 })),
    colon: fc.boolean(),
    fraction: fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength: 12 }),
  })
  .map(({ instant, offsetMinutes, colon, fraction }) => {
    const local = new Date(instant + (offsetMinutes ?? 0) * 60_000).toISOString().slice(0, 19);
    const zone = offsetMinutes === null ? 'Z' : `${offsetMinutes < 0 ? '-' : '+'}${hhmm(Math.abs(offsetMinutes), colon ? ':' : '')}`;
    return `${local}${fraction === '' ? '' : `.${fraction}`}${zone}`;
  });

function hhmm(minutes: number, separator: string): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}${separator}${String(minutes % 60).padStart(2, '0')}`;
}

/** True when a `__proto__` key sits anywhere in the value: such bodies are refused, so valid ones exclude it. */
export function hasProtoKey(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (!Array.isArray(value) && Object.keys(value).includes('__proto__')) return true;
  return Object.values(value).some(hasProtoKey);
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when a string or key anywhere in the value holds a UTF-16 unit without its partner. */
export function hasLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value);
  if (typeof value !== 'object' || value === null) return false;
  if (!Array.isArray(value) && Object.keys(value).some((key) => LONE_SURROGATE.test(key))) return true;
  return Object.values(value).some(hasLoneSurrogate);
}

/** Levels of objects and arrays, the value itself counting as 1 (a scalar is 0). */
export function jsonDepth(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  return 1 + Math.max(0, ...Object.values(value).map(jsonDepth));
}

/** Nesting `data` and `metadata` may have, the object itself counting as level 1. */
export const MAX_DATA_DEPTH = 32;

/** Any JSON, strings without lone surrogates, no `__proto__` key, a few levels deep. */
export const safeJsonArb = (maxDepth: number): fc.Arbitrary<Json> =>
  fc.jsonValue({ maxDepth, stringUnit: 'grapheme' }).filter((v) => !hasProtoKey(v));

/** A code point of any plane, and now and then a lone surrogate (fast-check's own units never make one). */
const anyUnitArb = fc.oneof({ weight: 12, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) }, { weight: 1, arbitrary: loneSurrogateArb });
const anyKeyArb = fc.oneof(
  { weight: 8, arbitrary: fc.string({ unit: anyUnitArb, maxLength: 10 }) },
  { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', '') },
);

/** Any JSON value at all: any text (lone surrogates too), any key (`__proto__` too), a few levels deep. */
export const anyJsonArb: fc.Arbitrary<Json> = fc.letrec<{ value: Json; array: Json[]; object: Record<string, Json> }>((tie) => ({
  value: fc.oneof(
    { maxDepth: 6, depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.string({ unit: anyUnitArb, maxLength: 20 }),
    tie('array'),
    tie('object'),
  ),
  array: fc.array(tie('value'), { maxLength: 5 }),
  object: fc.dictionary(anyKeyArb, tie('value'), { maxKeys: 6 }),
})).value;

export const dataArb: fc.Arbitrary<Record<string, Json>> = fc.dictionary(wellFormedTextArb(24), safeJsonArb(4), { maxKeys: 8 }).filter((v) => !hasProtoKey(v));

export const metadataValueArb: fc.Arbitrary<string | number | boolean> = fc.oneof(
  wellFormedTextArb(1000),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.boolean(),
);

/** Metadata keys, dotted ones (OpenTelemetry's attribute names) and the names of Object.prototype members that a careless merge would trip on. */
const metadataKeyArb = fc.oneof(
  { weight: 4, arbitrary: fieldNameArb },
  { weight: 1, arbitrary: fc.constantFrom('constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', '__defineGetter__', 'isPrototypeOf', 'service.name', 'a.b') },
);

export const metadataArb = fc.dictionary(metadataKeyArb, metadataValueArb, { maxKeys: 50 });

export const customerIdArb = wellFormedTextArb(256).filter((s) => s.length >= 1);

const eventShape = (data: fc.Arbitrary<Record<string, Json>>, metadata: fc.Arbitrary<Record<string, string | number | boolean>>) =>
  fc.record(
    { event: eventNameArb, data, level: fc.constantFrom(...LEVELS), customer_id: customerIdArb, timestamp: timestampArb, metadata },
    { requiredKeys: ['event'] },
  ) as fc.Arbitrary<Event>;

export const validEventArb = eventShape(dataArb, metadataArb);

/** Small events, so that 100 of them stay far under the body limit. */
const smallEventArb = eventShape(
  fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.integer(), fc.string({ maxLength: 16 }), fc.boolean()), { maxKeys: 3 }).filter((v) => !hasProtoKey(v)),
  fc.dictionary(fieldNameArb, fc.oneof(fc.string({ maxLength: 16 }), fc.integer(), fc.boolean()), { maxKeys: 3 }),
);

const DAY_MS = 24 * HOUR_MS;
/** The service's limit on the distinct days (UTC dates) one request's events may fall on. */
export const DAYS_PER_REQUEST = 31;
/** How far apart a near batch's timestamps may lie: twice the limit, so that batches meet it and break it. */
const MAX_SPREAD_DAYS = 2 * DAYS_PER_REQUEST;

/**
 * A batch whose timestamps lie near one another, as a real client's do: within `spreadDays` of a common
 * base, under a month as often as not. A full batch falls on as many days as its spread allows, so that
 * batches meet the day limit and break it.
 */
function nearBatchArb(eventArb: fc.Arbitrary<Event>, length: { minLength: number; maxLength: number }): fc.Arbitrary<Event[]> {
  return fc
    .record({
      events: fc.array(eventArb, length),
      base: fc.integer({ min: EARLIEST_MS, max: Date.now() - MAX_SPREAD_DAYS * DAY_MS }),
      spreadDays: fc.integer({ min: 0, max: MAX_SPREAD_DAYS }),
      recent: fc.boolean(),
    })
    .map(({ events, base, spreadDays, recent }) => {
      // Recent batches end near now, where events without a timestamp also fall.
      const start = recent ? Date.now() - spreadDays * DAY_MS : base;
      return events.map((event, i) =>
        event.timestamp === undefined ? event : { ...event, timestamp: new Date(start + ((i * 7919) % (spreadDays + 1)) * DAY_MS).toISOString() },
      );
    });
}

/**
 * The index of the first event that makes the batch fall on more than DAYS_PER_REQUEST distinct days
 * (UTC dates; an event without a timestamp is now), or undefined: where the service must answer 400.
 */
export function beyondDayLimit(events: readonly Event[]): number | undefined {
  const days = new Set<string>();
  for (let i = 0; i < events.length; i++) {
    const timestamp = events[i]!.timestamp;
    days.add(new Date(typeof timestamp === 'string' ? Date.parse(timestamp) : Date.now()).toISOString().slice(0, 10));
    if (days.size > DAYS_PER_REQUEST) return i;
  }
  return undefined;
}

/** One event, a batch of 1 to a few, or a full batch of 100. */
export const validBodyArb: fc.Arbitrary<Event | Event[]> = fc.oneof(
  { weight: 3, arbitrary: validEventArb },
  { weight: 2, arbitrary: nearBatchArb(validEventArb, { minLength: 1, maxLength: 5 }) },
  { weight: 1, arbitrary: nearBatchArb(smallEventArb, { minLength: 100, maxLength: 100 }) },
);

export type TextForm = 'compact' | 'pretty' | 'bom' | 'escaped';
export const textFormArb = fc.constantFrom<TextForm>('compact', 'pretty', 'bom', 'escaped');

/** The same JSON written in ways a parser must read alike: indentation, a byte order mark, \u escapes. */
export function jsonText(value: unknown, form: TextForm): string {
  const compact = JSON.stringify(value);
  switch (form) {
    case 'compact':
      return compact;
    case 'pretty':
      return JSON.stringify(value, null, 2);
    case 'bom':
      return `\ufeff${compact}`;
    case 'escaped':
      return compact.replace(/[^\x20-\x7e]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  }
}

interface Mutation {
  readonly label: string;
  readonly apply: (event: Event) => Json;
}

const mutation = <T>(label: string, values: fc.Arbitrary<T>, apply: (event: Event, value: T) => Json): fc.Arbitrary<Mutation> =>
  values.map((value) => ({ label: `${label}: ${fc.stringify(value).slice(0, 80)}`, apply: (event: Event) => apply(event, value) }));

const set = (field: string) => (event: Event, value: unknown): Json => ({ ...event, [field]: value });
const nonString = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.constant([]), fc.constant({}));
const nonObject = fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 3 }));
const badEventName = fc.oneof(
  fc.constant(''),
  fc.constant('e'.repeat(201)),
  fc.tuple(eventNameArb, fc.constantFrom(' ', '/', 'é', '\u0000', '\n', '😀', '#', '?', '*'), eventNameArb).map(([a, bad, b]) => `${a}${bad}${b}`.slice(0, 200)),
);
const badLevel = fc.oneof(
  fc.string({ maxLength: 12 }).filter((s) => !(LEVELS as readonly string[]).includes(s)),
  fc.constantFrom('INFO', 'Error', 'warn', 'fatal', 'debug', ' info'),
  nonString,
);
const badTimestamp = fc.oneof(
  fc.constantFrom(
    '2020-13-01T00:00:00Z',
    '2021-02-29T00:00:00Z',
    '1900-02-29T00:00:00Z',
    '2020-01-01T24:00:00Z',
    '2020-01-01T00:60:00Z',
    '2020-01-01T00:00:00',
    '2020-01-01',
    '2020-01-01T00:00Z',
    '2020-01-01 00:00:00Z',
    '2020-01-01t00:00:00z',
    '2020-01-01T00:00:00+24:00',
    // An offset without minutes, or with a digit missing (`+0100` is valid: the offset without its colon).
    '2020-01-01T00:00:00+01',
    '2020-01-01T00:00:00+010',
    '+002020-01-01T00:00:00Z',
    'yesterday',
    '',
  ),
  // More than 24 hours ahead: a clock or unit error, refused.
  fc.integer({ min: 26, max: 24 * 365 * 50 }).map((hours) => new Date(Date.now() + hours * HOUR_MS).toISOString()),
  fc.integer(),
  fc.constant(null),
);
const badCustomerId = fc.oneof(
  fc.constant(''),
  // Over 256 characters however they are counted (UTF-16 units or code points).
  fc.constantFrom('c'.repeat(257), '😀'.repeat(257), 'é'.repeat(257)),
  textWithLoneSurrogateArb,
  nonString,
);
const badMetadata = fc.oneof(
  nonObject,
  fc.tuple(fieldNameArb, fc.oneof(fc.constant(null), fc.constant({}), fc.constant([1]), fc.constant({ a: 1 }))).map(([k, v]) => ({ [k]: v })),
  // Keys may hold dots (`service.name`) but not start with one.
  fc.tuple(fc.constantFrom('', '.a', '-a', 'a b', 'é', 'k'.repeat(101), '$x', 'a/b'), fc.string({ maxLength: 5 })).map(([k, v]) => ({ [k]: v })),
  fc.dictionary(fieldNameArb, fc.integer(), { minKeys: 51, maxKeys: 60 }),
  fc.tuple(fieldNameArb, fc.integer({ min: 1001, max: 3000 })).map(([k, n]) => ({ [k]: 'm'.repeat(n) })),
);
const extraKey = fc.tuple(
  fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('__proto__', 'constructor', 'id', 'appId', 'ingestedAt', 'Event', 'name', 'type')),
  fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant(null)),
).filter(([key]) => !['event', 'data', 'level', 'customer_id', 'timestamp', 'metadata'].includes(key));

/** One change that makes a valid event invalid. */
export const eventMutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  mutation('no event name', fc.constant(null), (event) => Object.fromEntries(Object.entries(event).filter(([k]) => k !== 'event'))),
  mutation('event name not a string', nonString, set('event')),
  mutation('bad event name', badEventName, set('event')),
  mutation('bad level', badLevel, set('level')),
  mutation('data not an object', nonObject, set('data')),
  mutation('bad customer_id', badCustomerId, set('customer_id')),
  mutation('bad timestamp', badTimestamp, set('timestamp')),
  mutation('bad metadata', badMetadata, set('metadata')),
  mutation('unknown field', extraKey, (event, [key, value]) => ({ ...event, [key]: value })),
);

/** A valid body made invalid in exactly one place (one event of a batch, or the batch itself). */
export const invalidBodyArb: fc.Arbitrary<{ label: string; body: Json }> = fc.oneof(
  fc.tuple(validEventArb, eventMutationArb).map(([event, m]) => ({ label: m.label, body: m.apply(event) })),
  fc.tuple(fc.array(validEventArb, { minLength: 1, maxLength: 4 }), fc.nat(), eventMutationArb).map(([events, at, m]) => ({
    label: `batch item ${at % events.length}: ${m.label}`,
    body: events.map((event, i) => (i === at % events.length ? m.apply(event) : event)),
  })),
  fc.constant({ label: 'empty batch', body: [] }),
  fc.array(smallEventArb, { minLength: 101, maxLength: 101 }).map((events) => ({ label: '101 events', body: events })),
  fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean(), fc.constant(null)).map((body) => ({ label: 'not an object', body })),
  validEventArb.map((event) => ({ label: 'batch inside a batch', body: [[event]] })),
);

/**
 * The schema the ingest suites register for SCHEMA_EVENT: every event of that name is checked
 * against it, and a violation is a 400 whose details name the field.
 */
export const SCHEMA_EVENT = 'order.checked';
export const CHECKED_SCHEMA = {
  eventName: SCHEMA_EVENT,
  description: 'fuzzed events are checked against this',
  fields: [
    { name: 'amount', type: 'number', required: true },
    { name: 'currency', type: 'enum', required: true, enumValues: ['EUR', 'USD', 'GBP'] },
    { name: 'note', type: 'string' },
    { name: 'gift', type: 'boolean' },
  ],
  metadataFields: [{ name: 'channel', type: 'enum', enumValues: ['web', 'app'] }],
};

/** An event that fits CHECKED_SCHEMA (undeclared keys are allowed; null counts as absent). */
export const conformingEventArb: fc.Arbitrary<Event> = fc
  .record({
    amount: fc.double({ noNaN: true, noDefaultInfinity: true }),
    currency: fc.constantFrom('EUR', 'USD', 'GBP'),
    note: fc.option(wellFormedTextArb(40), { nil: undefined }),
    gift: fc.option(fc.oneof(fc.boolean(), fc.constant(null)), { nil: undefined }),
    extra: fc.option(safeJsonArb(2), { nil: undefined }),
    channel: fc.option(fc.constantFrom('web', 'app'), { nil: undefined }),
  })
  .map(({ channel, ...data }) => ({
    event: SCHEMA_EVENT,
    data: JSON.parse(JSON.stringify(data)) as Record<string, Json>,
    ...(channel === undefined ? {} : { metadata: { channel } }),
  }));

/** One schema violation and the `details` path (inside the event) that must name it. */
export const schemaViolationArb: fc.Arbitrary<{ path: string; apply: (event: Event) => Event }> = fc.oneof(
  fc.oneof(fc.constant(undefined), fc.constant(null), fc.constant('12'), fc.boolean(), fc.constant([1])).map((amount) => ({
    path: 'data.amount',
    apply: (event: Event) => ({ ...event, data: { ...(event.data as object), amount: amount } }),
  })),
  fc.oneof(fc.constantFrom('JPY', 'eur', '', 'EUR '), fc.integer(), fc.constant(null)).map((currency) => ({
    path: 'data.currency',
    apply: (event: Event) => ({ ...event, data: { ...(event.data as object), currency } }),
  })),
  fc.oneof(fc.integer(), fc.boolean(), fc.constant({})).map((note) => ({ path: 'data.note', apply: (event: Event) => ({ ...event, data: { ...(event.data as object), note } }) })),
  fc.oneof(fc.constantFrom('true', 'false', '1'), fc.integer()).map((gift) => ({ path: 'data.gift', apply: (event: Event) => ({ ...event, data: { ...(event.data as object), gift } }) })),
  fc.oneof(fc.constantFrom('tv', 'WEB', ''), fc.integer(), fc.boolean()).map((channel) => ({ path: 'metadata.channel', apply: (event: Event) => ({ ...event, metadata: { channel } }) })),
);
