import { ClickHouseLogLevel, createClient } from '@clickhouse/client';
import { setTimeout as delay } from 'node:timers/promises';
import { Session } from 'chdb';
import { ChdbEventStore } from '../src/adapters/event-store/chdb-event-store.js';
import { ClickHouseEventStore } from '../src/adapters/event-store/clickhouse-event-store.js';
import { CUSTOMER_INDEX, EVENT_COLUMNS, EVENTS_TABLE } from '../src/adapters/event-store/clickhouse-sql.js';
import { dayPartitionOf } from '../src/adapters/event-store/day-partitions.js';
import type { SqlEventStore } from '../src/adapters/event-store/sql-event-store.js';
import { bindQuery, quoteIdentifier, type SqlParams } from '../src/adapters/event-store/sql.js';
import type { ReadsAppSize, ReadsSeeding } from './results.js';
import type { EventStoreLocation } from './targets.js';

/**
 * The data set of the reads benchmark, written straight into the service's events table: 10 million
 * events of one app and 1 million of each of nine others over the 30 days up to now. Through the
 * ingest API that would take hours; here the engine makes the rows itself (`INSERT … SELECT … FROM
 * numbers(n)`), with the same statements on ClickHouse 18.16 and on chDB.
 *
 * Each row's values come from cityHash64(app, row number, salt), so every run stores the same events
 * but for their ids and the clock they end at. The ids are UUIDv7 of the instant the row says the event
 * was ingested, random in their other bits (from generateUUIDv4), as the service makes them. The shape,
 * chosen to look like a product's telemetry:
 * - EVENT_NAMES: 40 names, the row's name picked as floor(40 · u³) with u uniform in [0, 1), so the first
 *   name is 29 % of the events, the second 8 %, the fifth 3.6 %, the twentieth 1.35 % and the last 0.8 %;
 * - levels info / warning / error / success in LEVEL_PERCENT;
 * - a customer id for 90 % of the events, `cus_<k>` with k = 1 + floor(customers · u²): customer 1
 *   has 1.4 % of the big app's customer events, the median customer about 0.014 %;
 * - data a JSON object of about 105 bytes, metadata `{}`, ingested 0–2 s after the timestamp;
 * - timestamps evenly spread: row n of N at start + n · 30 d / N.
 */

const DAY_MS = 86_400_000;
export const SEED_DAYS = 30;

export interface SeedApp extends ReadsAppSize {
  readonly id: string;
}

/** The apps' sizes, the first being the large one. */
export const SEED_APPS: readonly ReadsAppSize[] = [
  { events: 10_000_000, customers: 5_000 },
  ...Array.from({ length: 9 }, () => ({ events: 1_000_000, customers: 1_000 })),
];

export const EVENT_NAMES = [
  'page.viewed', 'session.started', 'api.request', 'session.ended', 'button.clicked',
  'search.performed', 'cart.item_added', 'product.viewed', 'user.logged_in', 'email.sent',
  'order.created', 'payment.succeeded', 'notification.sent', 'file.uploaded', 'cart.item_removed',
  'checkout.started', 'user.logged_out', 'email.opened', 'webhook.received', 'job.completed',
  'report.generated', 'comment.posted', 'subscription.renewed', 'user.signed_up', 'order.shipped',
  'invoice.created', 'payment.failed', 'password.reset', 'job.failed', 'order.cancelled',
  'refund.issued', 'subscription.cancelled', 'export.requested', 'team.invited', 'api_key.rotated',
  'plan.upgraded', 'plan.downgraded', 'account.deleted', 'integration.connected', 'error.reported',
] as const;

const LEVEL_PERCENT = { info: 80, warning: 10, error: 7, success: 3 } as const;
const CUSTOMER_PERCENT = 90;

/** The filters the benchmark reads with: a name and a customer of middling frequency (rank 20 of 40, the median customer). */
export const MID_EVENT = EVENT_NAMES[19];
export const midCustomer = (app: ReadsAppSize): string => `cus_${app.customers / 2}`;

/**
 * Past days are written a few at a time: current ClickHouse (chDB) refuses an INSERT touching more
 * than 100 partitions, one per day here. Today is written in TODAY_INSERTS statements per app and is
 * never compacted, so that it stays in several parts, as it does while events keep arriving.
 */
const CHUNK_DAYS = 4;
const TODAY_INSERTS = 6;

const levelSql = (): string => {
  let bound = 0;
  const branches = Object.entries(LEVEL_PERCENT).map(([level, percent]) => `l < ${(bound += percent)}, '${level}'`);
  return `multiIf(${branches.join(', ')}, 'info')`;
};

/** The rows n in [first, first + count) of an app's `total`, as one INSERT. */
const INSERT_ROWS = (db: string) => `INSERT INTO ${db}.${EVENTS_TABLE} (${EVENT_COLUMNS})
SELECT
  lower(concat(substring(h, 3, 8), '-', substring(h, 11, 4), '-7', substring(u, 16, 3), '-', substring(u, 20, 17))),
  {app:String},
  arrayElement({names:Array(String)}, 1 + toUInt32(floor(${EVENT_NAMES.length} * pow(cityHash64({app:String}, n, 1) % 1000000 / 1000000, 3)))),
  if(cityHash64({app:String}, n, 2) % 100 >= ${CUSTOMER_PERCENT}, NULL,
     concat('cus_', toString(1 + toUInt32(floor({customers:UInt32} * pow(cityHash64({app:String}, n, 3) % 1000000 / 1000000, 2)))))),
  ${levelSql()},
  concat('{"amount_cents":', toString(cityHash64({app:String}, n, 5) % 100000),
         ',"currency":"', arrayElement(['EUR', 'USD', 'GBP', 'JPY'], 1 + cityHash64({app:String}, n, 6) % 4),
         '","path":"/products/', toString(cityHash64({app:String}, n, 7) % 5000),
         '","session":"s_', toString(cityHash64({app:String}, n, 8) % 10000000000),
         '","items":', toString(1 + cityHash64({app:String}, n, 9) % 9), ',"ok":true}'),
  '{}',
  ts,
  ingested
FROM (
  SELECT number + {first:UInt64} AS n, {start:Int64} + intDiv(n * {span:UInt64}, {total:UInt64}) AS ts, cityHash64({app:String}, n, 4) % 100 AS l,
    ts + cityHash64({app:String}, n, 10) % 2000 AS ingested, hex(toUInt64(ingested) + ${2 ** 48}) AS h, toString(generateUUIDv4()) AS u
  FROM numbers({count:UInt64})
)`;

/** The first row whose timestamp is at or after `t`: row n lies at start + floor(n · span / total). */
function firstRowAt(t: number, start: number, span: number, total: number): number {
  const scaled = BigInt(t - start) * BigInt(total);
  return Number((scaled + BigInt(span) - 1n) / BigInt(span));
}

/** [from, to) time slices covering [start, end): past days CHUNK_DAYS at a time, then today in TODAY_INSERTS. */
function slices(start: number, end: number): Array<[number, number]> {
  const todayStart = Math.floor(end / DAY_MS) * DAY_MS;
  const out: Array<[number, number]> = [];
  for (let from = start; from < todayStart; ) {
    const to = Math.min(todayStart, (Math.floor(from / DAY_MS) + CHUNK_DAYS) * DAY_MS);
    out.push([from, to]);
    from = to;
  }
  const step = Math.ceil((end - todayStart) / TODAY_INSERTS);
  for (let from = todayStart; from < end; from += step) out.push([from, Math.min(end, from + step)]);
  return out;
}

/** The statements that write `app`'s events over [start, end). */
export function seedStatements(db: string, app: SeedApp, start: number, end: number): string[] {
  const span = end - start;
  return slices(start, end).flatMap(([from, to]) => {
    const first = firstRowAt(from, start, span, app.events);
    const count = Math.min(app.events, firstRowAt(to, start, span, app.events)) - first;
    if (count <= 0) return [];
    const params: SqlParams = { app: app.id, names: [...EVENT_NAMES], customers: app.customers, first, start, span, total: app.events, count };
    return [bindQuery(INSERT_ROWS(db), params)];
  });
}

/** What seeding needs of an engine besides the store: raw statements and rows. */
interface SeedEngine {
  exec(sql: string): Promise<void>;
  rows<T>(sql: string): Promise<T[]>;
  close(): Promise<void>;
}

/** The longest seeding waits for the engine's own merges to finish. */
const SETTLE_LIMIT_MS = 300_000;

/** Seeding runs statements of seconds (a few million rows, a day's compaction): far over the client's 30 s default would be a hang. */
const STATEMENT_TIMEOUT_MS = 600_000;

function openEngine(location: EventStoreLocation): { engine: SeedEngine; store: (now: () => number) => SqlEventStore } {
  if (location.kind === 'clickhouse') {
    // Its console logging off, as in the service: a failure reaches the caller as a rejection.
    const client = createClient({ url: location.url, request_timeout: STATEMENT_TIMEOUT_MS, log: { level: ClickHouseLogLevel.OFF } });
    return {
      engine: {
        exec: async (sql) => void (await client.command({ query: sql })),
        rows: async <T>(sql: string) => (await client.query({ query: sql, format: 'JSONEachRow' })).json<T>(),
        close: () => client.close(),
      },
      store: (now) => new ClickHouseEventStore({ urls: [location.url], database: location.database, now }),
    };
  }
  // Sessions on one path share chDB's one engine of this process (see chdb-event-store.ts).
  const session = new Session(location.path);
  return {
    engine: {
      exec: async (sql) => void (await session.queryAsync(sql)),
      rows: async <T>(sql: string) =>
        (await session.queryAsync(sql, { format: 'JSONEachRow' }))
          .text()
          .split('\n')
          .filter((line) => line.length > 0)
          .map((line) => JSON.parse(line) as T),
      close: () => Promise.resolve(session.close()),
    },
    store: (now) => new ChdbEventStore({ path: location.path, database: location.database, now }),
  };
}

/**
 * Writes the apps' events into the store at `location` (its table already made by the service's
 * migrations), then brings it to the state a running installation keeps it in: every past day
 * compacted by the store's own upkeep into one part and rolled up, with a clock whose today is the
 * data's last day.
 */
export async function seedEvents(location: EventStoreLocation, apps: readonly SeedApp[], log: (message: string) => void): Promise<ReadsSeeding> {
  const { engine, store: storeAt } = openEngine(location);
  const db = quoteIdentifier(location.database);
  const end = Date.now();
  const start = end - SEED_DAYS * DAY_MS;
  const store = storeAt(() => end);
  try {
    const insertStarted = performance.now();
    let statements = 0;
    for (const app of apps) {
      for (const statement of seedStatements(db, app, start, end)) {
        await engine.exec(statement);
        statements += 1;
      }
    }
    const insertSeconds = (performance.now() - insertStarted) / 1000;
    const [stored] = await engine.rows<{ n: string | number }>(`SELECT count() AS n FROM ${db}.${EVENTS_TABLE}`);
    const rows = Number(stored?.n ?? 0);
    log(`seeded ${rows.toLocaleString('en-US')} events in ${statements} INSERTs, ${insertSeconds.toFixed(1)} s; compacting the past days`);

    const compactStarted = performance.now();
    let compactedDays = 0;
    let rolledUpDays = 0;
    let rounds = 0;
    for (;;) {
      const { compacted, rolledUp } = await store.upkeep();
      rounds += 1;
      compactedDays += compacted.length;
      rolledUpDays += rolledUp.length;
      if (compacted.length === 0 && rolledUp.length === 0) break;
    }
    const compactSeconds = (performance.now() - compactStarted) / 1000;
    // The engine's own merges (of today's parts, of the customer index's) would otherwise run during
    // the first measurements; a running installation has them behind it.
    const settleStarted = performance.now();
    while (performance.now() - settleStarted < SETTLE_LIMIT_MS) {
      const [merging] = await engine.rows<{ n: string | number }>(bindQuery('SELECT count() AS n FROM system.merges WHERE database = {database:String}', { database: location.database }));
      if (Number(merging?.n ?? 0) === 0) break;
      await delay(500);
    }
    const settleSeconds = (performance.now() - settleStarted) / 1000;
    const parts = await engine.rows<{ partition_id: string; parts: string | number; bytes: string | number }>(
      bindQuery(
        'SELECT partition_id, count() AS parts, sum(bytes_on_disk) AS bytes FROM system.parts WHERE database = {database:String} AND table = {table:String} AND active GROUP BY partition_id',
        { database: location.database, table: EVENTS_TABLE },
      ),
    );
    const [index] = await engine.rows<{ bytes: string | number }>(
      bindQuery('SELECT sum(bytes_on_disk) AS bytes FROM system.parts WHERE database = {database:String} AND table = {table:String} AND active', {
        database: location.database,
        table: CUSTOMER_INDEX.table,
      }),
    );
    const today = dayPartitionOf(end);
    const big = apps[0]!;
    const count = async (condition: string, params: SqlParams): Promise<number> => {
      const [row] = await engine.rows<{ n: string | number }>(bindQuery(`SELECT count() AS n FROM ${db}.${EVENTS_TABLE} WHERE app_id = {app:String} AND ${condition}`, { app: big.id, ...params }));
      return Number(row?.n ?? 0);
    };
    const seeding: ReadsSeeding = {
      rows,
      insertStatements: statements,
      insertSeconds,
      compactSeconds,
      settleSeconds,
      upkeepRounds: rounds,
      compactedDays,
      rolledUpDays,
      partitions: parts.length,
      partsToday: Number(parts.find((p) => p.partition_id === today)?.parts ?? 0),
      bytes: parts.reduce((sum, p) => sum + Number(p.bytes), 0),
      customerIndexBytes: Number(index?.bytes ?? 0),
      from: new Date(start).toISOString(),
      to: new Date(end).toISOString(),
      largeAppMatches: {
        levelError: await count("level = 'error'", {}),
        type: await count('event = {type:String}', { type: MID_EVENT }),
        customer: await count('customer_id = {customer:String}', { customer: midCustomer(big) }),
      },
    };
    log(
      `compacted ${compactedDays} days and rolled up ${rolledUpDays} in ${rounds} rounds of upkeep, ${compactSeconds.toFixed(1)} s; today in ${seeding.partsToday} parts; the engine's merges done ${settleSeconds.toFixed(1)} s later`,
    );
    return seeding;
  } finally {
    await store.close();
    await engine.close();
  }
}
