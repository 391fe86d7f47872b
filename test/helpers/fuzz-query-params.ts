import fc from 'fast-check';
import { expect } from 'vitest';
import { describeAnswer, encodeComponent } from './fuzz-http.js';
import { LEVELS, timestampArb } from './fuzz-ingest-bodies.js';
import type { FuzzService } from './fuzz-service.js';
import { waitFor } from './service-process.js';
import { eventNameArb, injectionTextArb, wellFormedTextArb } from './fuzz-text.js';

/**
 * Query strings for `GET /v1/apps/{appId}/events`: each parameter drawn either from its valid values
 * or from adversarial text, sometimes repeated, sometimes unknown, sometimes followed by raw
 * fragments no encoder would write. A case knows enough of itself to say which answer is owed.
 */

export const FILTERS = ['limit', 'cursor', 'level', 'type', 'customer_id', 'from', 'to'] as const;

export interface QueryParam {
  readonly name: string;
  readonly value: string;
  /** Drawn from the parameter's valid values. */
  readonly valid: boolean;
}

export interface QueryCase {
  readonly params: readonly QueryParam[];
  /** Appended unencoded: what the service decodes from them is not predicted. */
  readonly raw: readonly string[];
}

/** What the filter suite has stored and read before fuzzing: names, customers, and issued cursors. */
export interface FilterFixtures {
  readonly types: readonly string[];
  readonly customers: readonly string[];
  /** A cursor with the exact query parameters of the page that issued it. */
  readonly cursors: ReadonlyArray<{ readonly cursor: string; readonly params: readonly QueryParam[] }>;
}

const adversarial: fc.Arbitrary<string> = fc.oneof(
  injectionTextArb,
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
  // Long, but under the 16 KiB a request head may have (that limit has its own suite).
  fc.integer({ min: 257, max: 6_000 }).map((n) => 'x'.repeat(n)),
  fc.integer({ min: 100, max: 2_000 }).map((n) => `${"'".repeat(n)}\\`),
);

const param = (name: string, valid: fc.Arbitrary<string>, odd: fc.Arbitrary<string> = fc.constant('')): fc.Arbitrary<QueryParam> =>
  fc.oneof(
    { weight: 3, arbitrary: valid.map((value) => ({ name, value, valid: true })) },
    { weight: 1, arbitrary: odd.map((value) => ({ name, value, valid: false })) },
    { weight: 2, arbitrary: adversarial.map((value) => ({ name, value, valid: false })) },
  );

function paramArb(fixtures: FilterFixtures): fc.Arbitrary<QueryParam> {
  const oddTimes = fc.constantFrom('2020-01-01', 'now', '0', '1577836800000', '2020-01-01T00:00:00', '2020-02-30T00:00:00Z', '+002020-01-01T00:00:00Z', '2020-01-01T00:00:00+24:00');
  return fc.oneof(
    param('limit', fc.integer({ min: 1, max: 100 }).map(String), fc.constantFrom('0', '-1', '101', '1e2', '0x10', ' 5 ', '', 'Infinity', 'NaN', '1.5', '99999999999999999999', '٣', '1,2', '+5', '05')),
    param('level', fc.constantFrom(...LEVELS), fc.constantFrom('INFO', 'warn', 'info ', 'debug')),
    param('type', fc.oneof(fc.constantFrom(...fixtures.types), eventNameArb), fc.constantFrom('a b', 'ä', 'e'.repeat(201), '*', '%')),
    param('customer_id', fc.oneof(fc.constantFrom(...fixtures.customers), wellFormedTextArb(40).filter((s) => s.length > 0)), fc.constantFrom('c'.repeat(257))),
    param('from', timestampArb, oddTimes),
    param('to', timestampArb, oddTimes),
    // Cursors tampered with, cut, extended, made up, or sent with other filters (issued ones with their own filters come below).
    fc
      .oneof(
        fc.constantFrom(...fixtures.cursors.map((c) => c.cursor)).chain((cursor) =>
          fc.oneof(
            fc.nat({ max: cursor.length - 1 }).map((i) => cursor.slice(0, i) + (cursor[i] === 'A' ? 'B' : 'A') + cursor.slice(i + 1)),
            fc.nat({ max: cursor.length - 1 }).map((i) => cursor.slice(0, i)),
            fc.string({ minLength: 1, maxLength: 8 }).map((tail) => cursor + tail),
          ),
        ),
        // As issued, but possibly with other filters than the ones it was issued for.
        fc.constantFrom(...fixtures.cursors.map((c) => c.cursor)),
        fc.base64String({ maxLength: 200 }),
        fc.constantFrom('e30', 'eyJ0cyI6MCwiaWQiOiIifQ', 'null', '{}'),
        adversarial,
      )
      .map((value) => ({ name: 'cursor', value, valid: false })),
    fc
      .oneof(fc.constantFrom('offset', 'appId', 'LIMIT', 'Level', 'level[]', 'level[0]', 'constructor', 'toString', 'hasOwnProperty', 'q', 'sort', ' ', ''), fc.string({ maxLength: 10 }))
      .filter((name) => !(FILTERS as readonly string[]).includes(name))
      .chain((name) => fc.oneof(fc.string({ maxLength: 10 }), injectionTextArb).map((value) => ({ name, value, valid: false }))),
  );
}

const RAW_FRAGMENTS = ['%', '%Z', '%zz', '%00', '%ff', '%C0%80', '%ED%A0%80', '&&', '=', '==', '&=&', 'level', 'limit=', ';level=info', '%26', '%3D', '+', 'level=%E2%82', 'type=%2e%2e', 'cursor=%00', 'a=%%%'];

/**
 * The longest query string a case may have once encoded: a request head may take 16 KiB (that limit
 * has its own suite), and the path and headers need the rest. Each adversarial value keeps under it,
 * but six of them, or quotes that encode to three bytes each, can add up past it.
 */
const QUERY_BYTES_MAX = 14 * 1024;

export function queryCaseArb(fixtures: FilterFixtures): fc.Arbitrary<QueryCase> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.record({ params: fc.array(paramArb(fixtures), { maxLength: 6 }), raw: fc.constant([]) }) },
    { weight: 1, arbitrary: fc.record({ params: fc.array(paramArb(fixtures), { maxLength: 3 }), raw: fc.array(fc.constantFrom(...RAW_FRAGMENTS), { minLength: 1, maxLength: 3 }) }) },
    // A cursor with the very filters it was issued for: the next page, which must be served.
    { weight: 1, arbitrary: fc.constantFrom(...fixtures.cursors).map((c) => ({ params: [...c.params, { name: 'cursor', value: c.cursor, valid: true }], raw: [] })) },
  ).filter((query) => Buffer.byteLength(queryString(query)) <= QUERY_BYTES_MAX);
}

export function queryString(query: QueryCase): string {
  const parts = [...query.params.map((p) => `${encodeComponent(p.name)}=${encodeComponent(p.value)}`), ...query.raw];
  return parts.length === 0 ? '' : `?${parts.join('&')}`;
}

/**
 * The answer owed, where the case decides it: 400 for a repeated or unknown parameter (each read
 * exactly as sent), 200 for a query of valid values only (and `from` before `to`); null otherwise,
 * where 200 and 400 are both possible.
 */
export function owedStatus(query: QueryCase): 200 | 400 | null {
  if (query.raw.length > 0) return null;
  const names = query.params.map((p) => p.name);
  if (names.some((name, i) => names.indexOf(name) !== i)) return 400;
  // `__proto__` may be dropped by a query parser rather than kept as a key: not predicted.
  if (names.some((name) => !(FILTERS as readonly string[]).includes(name))) return names.includes('__proto__') ? null : 400;
  if (!query.params.every((p) => p.valid)) return null;
  const from = query.params.find((p) => p.name === 'from');
  const to = query.params.find((p) => p.name === 'to');
  if (from && to && Date.parse(from.value) >= Date.parse(to.value)) return 400;
  return 200;
}

/** The single value of a parameter when the case sent it once, validly (so the service read it as sent). */
export function soleValidValue(query: QueryCase, name: string): string | undefined {
  if (query.raw.length > 0) return undefined;
  const found = query.params.filter((p) => p.name === name);
  return found.length === 1 && found[0]!.valid ? found[0]!.value : undefined;
}

/** A path segment: real ids, unknown ids, and malformed escapes a router must not choke on. */
export function pathSegmentArb(real: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...real),
    fc.uuid(),
    fc.constantFrom('%', '%ZZ', '%E0%A4%A', '%00', '%2F', '..', '.', '%2e%2e', ';', '%C0%AF', '%ED%A0%80', '%FF%FE', 'a%', '%%41', '%u0041'),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 20 }).map(encodeComponent),
    injectionTextArb.filter((s) => s !== '').map(encodeComponent),
    fc.integer({ min: 200, max: 4_000 }).map((n) => 'a'.repeat(n)),
  );
}

/**
 * Stores events to filter and page over in the app (every filter value matches several of them,
 * customers with quotes, backslashes and SQL in them) and takes a cursor for several filter sets.
 */
export async function filterFixtures(service: FuzzService, appId: string, apiKey: string): Promise<FilterFixtures> {
  const types = ['alpha', 'order.created', 'x:y-z_1', 'a.b.c'];
  const customers = ['c-1', "O'Brien", 'a\\b', '50%', 'ü', '😀', 'a b', "'; DROP TABLE events; --", '{customer:String}'];
  const levels = ['info', 'warning', 'error'];
  const events = Array.from({ length: 72 }, (_, i) => ({
    event: types[i % types.length]!,
    level: levels[i % levels.length]!,
    customer_id: customers[i % customers.length]!,
    timestamp: new Date(Date.UTC(2019, 0, 1) + i * 17 * 86_400_000).toISOString(),
  }));
  // Twenty at a time: twenty distinct days (17 apart), within the 31 days one request may fall on.
  for (let i = 0; i < events.length; i += 20) {
    const body = JSON.stringify(events.slice(i, i + 20));
    const stored = await service.client.send({ method: 'POST', path: '/v1/ingest', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body });
    expect(stored.status, describeAnswer(stored)).toBe(202);
  }
  // A 202 means durable, not yet readable: the pages below need every event in the store.
  await waitFor(async () => {
    const all = await service.client.send({ method: 'GET', path: `/v1/apps/${appId}/events?limit=100`, headers: service.auth });
    return all.status === 200 && all.json.items.length === events.length;
  }, 30_000, `the ${events.length} fixture events to be readable`, 50);
  const cursors: Array<{ cursor: string; params: QueryParam[] }> = [];
  const filterSets: Array<Array<[string, string]>> = [[], [['level', 'info']], [['type', 'alpha']], [['customer_id', "O'Brien"]], [['from', '2019-06-01T00:00:00Z'], ['to', '2021-06-01T00:00:00+02:00']]];
  for (const set of filterSets) {
    const params = [...set.map(([name, value]) => ({ name, value, valid: true })), { name: 'limit', value: '2', valid: true }];
    const page = await service.client.send({ method: 'GET', path: `/v1/apps/${appId}/events${queryString({ params, raw: [] })}`, headers: service.auth });
    expect(page.status, describeAnswer(page)).toBe(200);
    expect(page.json.nextCursor, `no second page for ${JSON.stringify(set)}`).toEqual(expect.any(String));
    cursors.push({ cursor: page.json.nextCursor, params });
  }
  return { types, customers, cursors };
}
