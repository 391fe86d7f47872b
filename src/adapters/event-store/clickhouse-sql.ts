import { z } from 'zod';
import type { EventGroupField, EventPosition, EventQuery } from '../../ports/event-store.js';
import { bindQuery, quoteIdentifier, SqlBindError, tsvField, tsvNullableField, type QuotedIdentifier, type SqlParam } from './sql.js';
import type { TableLayout } from './table-layout.js';
import { CANONICAL_UUID } from '../../domain/uuid.js';
import { EVENT_LEVELS, type EventLevel, type StoredEvent } from '../../domain/events.js';
import { dayNumberOf, dayRangeOf, monthRangeOf, type DayRange } from './day-partitions.js';
import { entryOf } from '../../lib/map-entry.js';
import { INTERVALS } from '../../domain/event-stats.js';
import { receivedJsonOf } from '../../domain/messages/event-message.js';

/**
 * The statements and row mapping of the events table (created in migrations.ts), shared by both
 * engines. Every value in SQL text goes through bindQuery, every value of an inserted row through tsvField (tsvRow); the
 * database name arrives already quoted.
 */


export const EVENT_COLUMNS = 'id, app_id, event, customer_id, level, data, metadata, timestamp_ms, ingested_at_ms';

function millis(date: Date, field: string, id: string): number {
  const ms = date.getTime();
  if (!Number.isFinite(ms)) throw new RangeError(`event ${id}: ${field} is not a valid date`);
  return ms;
}

/**
 * Validates one event on its way in and maps it to one TabSeparated row, in EVENT_COLUMNS' order.
 * tsvField is the escaping here: the row travels as data after the statement, never as SQL text, so
 * no value is ever parsed as SQL. data and metadata are String columns holding JSON text.
 *
 * TabSeparated rather than JSONEachRow: ClickHouse 18.16 parsed these rows in about 60 % of the CPU
 * time (no field names to match), and they are a third shorter to send (bench/NOTES.md).
 */
function tsvRow(event: StoredEvent): string {
  if (!CANONICAL_UUID.test(event.id)) throw new RangeError(`event id must be a lowercase UUID, got ${JSON.stringify(event.id)}`);
  if (!EVENT_LEVELS.includes(event.level)) throw new RangeError(`event ${event.id}: unknown level ${JSON.stringify(event.level)}`);
  const timestamp = millis(event.timestamp, 'timestamp', event.id);
  const ingestedAt = millis(event.ingestedAt, 'ingestedAt', event.id);
  try {
    // An event off the bus brings the text its data and metadata arrived in (checked to parse to them
    // when decoded), written as it is. JSON.stringify writes a lone surrogate as a \u escape, which
    // reaches the column as text and reads back unchanged.
    const json = receivedJsonOf(event);
    const data = tsvField(json?.data ?? JSON.stringify(event.data));
    const metadata = tsvField(json?.metadata ?? JSON.stringify(event.metadata));
    return `${event.id}\t${tsvField(event.appId)}\t${tsvField(event.event)}\t${tsvNullableField(event.customerId)}\t${event.level}\t${data}\t${metadata}\t${timestamp}\t${ingestedAt}`;
  } catch (error) {
    if (error instanceof SqlBindError) throw new RangeError(`event ${event.id}: ${error.message}`);
    throw error;
  }
}

/**
 * The events table (migration 5 in migrations.ts): one partition per UTC day, granules of 1,024 rows.
 * Its predecessors were `events` (by month) and `events_by_day` (granules of 8,192 rows).
 */
export const EVENTS_TABLE = 'events_by_day_v2';

/**
 * Current ClickHouse refuses an INSERT block that touches more than 100 partitions
 * (`max_partitions_per_insert_block`; 18.16 has no such limit), and the events table has one per day.
 * A batch whose timestamps span more days (a backfill, or a client sending what it likes) is split,
 * so that no batch can fail every retry.
 */
export const MAX_PARTITIONS_PER_INSERT = 100;

/**
 * The INSERTs for a batch, its rows in the TabSeparated format after each statement: one for the whole
 * batch (one part per day, which is what MergeTree wants) unless it spans more than
 * MAX_PARTITIONS_PER_INSERT days. An event repeated within the batch is written once: the counting reads
 * rely on a part never holding two copies of an event. Every engine reads the data format with its
 * fast input parser, where VALUES would go through SQL literal parsing; building the rows is also
 * several times cheaper for the worker than binding each value into SQL text (bench/NOTES.md).
 */
export function insertEventsSql(db: QuotedIdentifier, events: readonly StoredEvent[]): string[] {
  // Each day's rows, each event once: a batch redelivered in part repeats ids. Apps may share an id
  // (the sorting key starts with the app), so the ids seen are kept per app: a batch's events share
  // few app strings, whose hashes V8 keeps, where a key joining app and id was a new string to hash
  // for every event.
  const byDay = new Map<number, string[]>();
  const seen = new Map<string, Set<string>>();
  for (const event of events) {
    const line = tsvRow(event);
    const ids = entryOf(seen, event.appId, () => new Set<string>());
    if (ids.has(event.id)) continue;
    ids.add(event.id);
    entryOf(byDay, dayNumberOf(event.timestamp.getTime()), () => []).push(line);
  }
  const days = [...byDay.values()];
  const statements: string[] = [];
  for (let i = 0; i < days.length; i += MAX_PARTITIONS_PER_INSERT) {
    const lines = days.slice(i, i + MAX_PARTITIONS_PER_INSERT).flat();
    // Joined in one go, so that the statement is one flat string: around a template literal the rows
    // made a string of two pieces, which the client (trimming the statement) then copied whole.
    statements.push([`INSERT INTO ${db}.${EVENTS_TABLE} (${EVENT_COLUMNS}) FORMAT TabSeparated`, ...lines].join('\n'));
  }
  return statements;
}

/** The filters every read shares, as conditions and their parameters. */
interface Filter {
  readonly appId: string;
  readonly level?: EventLevel | undefined;
  readonly type?: string | undefined;
  readonly customerId?: string | undefined;
  readonly id?: string | undefined;
  readonly from?: Date | undefined;
  readonly to?: Date | undefined;
  /** The retention's cutoff: older events are gone for every read. */
  readonly notBefore?: number | undefined;
}

/** `customerColumn`: where the table keeps the customer (the customer index names it `customer`). */
function filterConditions(filter: Filter, customerColumn = 'customer_id'): { where: string[]; params: Record<string, SqlParam> } {
  const where = ['app_id = {appId:String}'];
  const params: Record<string, SqlParam> = { appId: filter.appId };
  const add = (condition: string, name: string, value: SqlParam | undefined) => {
    if (value === undefined) return;
    where.push(condition);
    params[name] = value;
  };
  add('level = {level:String}', 'level', filter.level);
  add('event = {type:String}', 'type', filter.type);
  add(`${customerColumn} = {customerId:String}`, 'customerId', filter.customerId);
  add('id = {id:String}', 'id', filter.id);
  add('timestamp_ms >= {from:Int64}', 'from', filter.from?.getTime());
  add('timestamp_ms < {to:Int64}', 'to', filter.to?.getTime());
  add('timestamp_ms >= {notBefore:Int64}', 'notBefore', filter.notBefore);
  return { where, params };
}

/**
 * One page of candidate rows in read order, duplicates included: rows not yet merged by
 * ReplacingMergeTree come back once per copy, next to each other because they share the sorting key.
 * The caller drops repeats and, if that leaves the page short, fetches again strictly after the last
 * row (see sql-event-store.ts). Deduplicating in SQL instead costs every page a full pass: with
 * LIMIT 1 BY the engine can no longer keep just the top `limit` rows while sorting, and FINAL merges
 * all the app's parts in one stream.
 */
export function selectEventsSql(db: QuotedIdentifier, query: ReadFilter, after: EventPosition | undefined, limit: number): string {
  return pageSql(db, EVENTS_TABLE, EVENT_COLUMNS, filterConditions(query), after, limit);
}

type ReadFilter = EventQuery & { notBefore?: number | undefined };

/** `SELECT <columns> … WHERE <filter> [strictly after a position] ORDER BY` the read order `LIMIT`. */
function pageSql(
  db: QuotedIdentifier,
  table: string,
  columns: string,
  { where, params }: ReturnType<typeof filterConditions>,
  after: EventPosition | undefined,
  limit: number,
): string {
  params.limit = limit;
  if (after !== undefined) {
    // Spelled out rather than as a tuple comparison, which 18.16 does not support.
    where.push('(timestamp_ms < {afterTs:Int64} OR (timestamp_ms = {afterTs:Int64} AND id < {afterId:String}))');
    params.afterTs = after.timestamp.getTime();
    params.afterId = after.id;
  }
  return bindQuery(`SELECT ${columns} FROM ${db}.${table} WHERE ${where.join(' AND ')} ORDER BY timestamp_ms DESC, id DESC LIMIT {limit:UInt32}`, params);
}

/**
 * The customer index (migration 4): the position (time, id), level and name of every event that has a
 * customer, sorted by app and customer, filled by a materialized view on every insert into the events
 * table. The events table is sorted by time, so a customer's events are scattered over all of an app's
 * rows there (the median customer of a busy app has one event in every few thousand); here they are
 * adjacent, and finding a page of them reads a few small granules. Partitioned by month, not by day:
 * a customer's page spans days, and every partition read costs a lookup of its own.
 */
export const CUSTOMER_INDEX = { table: 'events_by_customer', feed: 'events_by_customer_feed_v2' } as const;

/**
 * The positions of the next `limit` events of a customer in read order (the filter's customerId set):
 * rows { timestamp_ms, id }, copies included (adjacent, as in the events table).
 */
export function customerPositionsSql(db: QuotedIdentifier, query: ReadFilter & { customerId: string }, after: EventPosition | undefined, limit: number): string {
  return pageSql(db, CUSTOMER_INDEX.table, 'timestamp_ms, id', filterConditions(query, 'customer'), after, limit);
}

/**
 * The rows of an app's events at these positions, in no order, copies included. `timestamp_ms IN`
 * a list of constants is what the sorting key can narrow to a granule per position, on 18.16 too.
 */
export function eventsAtSql(db: QuotedIdentifier, appId: string, positions: readonly EventPosition[]): string {
  if (positions.length === 0) throw new RangeError('eventsAtSql needs at least one position');
  const params: Record<string, SqlParam> = { appId };
  const times = [...new Set(positions.map((p) => p.timestamp.getTime()))].map((ms, i) => {
    params[`t${i}`] = ms;
    return `{t${i}:Int64}`;
  });
  const ids = [...new Set(positions.map((p) => p.id))].map((id, i) => {
    params[`i${i}`] = id;
    return `{i${i}:String}`;
  });
  return bindQuery(`SELECT ${EVENT_COLUMNS} FROM ${db}.${EVENTS_TABLE} WHERE app_id = {appId:String} AND timestamp_ms IN (${times.join(', ')}) AND id IN (${ids.join(', ')})`, params);
}

/**
 * The rows of the events at the positions customerPositionsSql reads for the same arguments, in no
 * order, copies included: the positions as a subquery, so that both statements can run at once instead
 * of one after the other. A tuple IN a subquery narrows the sorting key to a granule per position, on
 * 18.16 too. The positions statement is bound text of our own, appended after the bound prefix so that
 * nothing in it is read as a placeholder.
 */
export function eventsAtCustomerPositionsSql(db: QuotedIdentifier, query: ReadFilter & { customerId: string }, after: EventPosition | undefined, limit: number): string {
  const prefix = bindQuery(`SELECT ${EVENT_COLUMNS} FROM ${db}.${EVENTS_TABLE} WHERE app_id = {appId:String} AND (timestamp_ms, id) IN (`, { appId: query.appId });
  return `${prefix}${customerPositionsSql(db, query, after, limit)})`;
}

/**
 * Counting exactly. A part never holds two copies of an event (inserts write an id once, merges keep
 * one copy), so a day stored in a single part is counted with count(), reading no more than the
 * grouping columns. A day split over several parts may hold copies of one event in two of them until
 * a merge joins the parts: its rows are counted with uniqExact(id), which reads the ids and hashes each
 * one but only for those days (today, and past days not yet compacted by upkeep).
 *
 * Past days in one part are also rolled up by upkeep: their counts per hour, level and event name,
 * and per customer, computed once from that part and tagged with a batch id (ROLLUP_TABLES). A day
 * whose one part is still the part its rollup was computed from is read from the rollup instead,
 * where the question allows it (rollupFor): thousands of rows instead of millions.
 *
 * The plan is taken from system.parts and the rollup batches just before the query; a part
 * appearing in between (a late event for a compacted day) is counted with count() until the next
 * read.
 */
export interface CountingPlan {
  readonly db: QuotedIdentifier;
  readonly filter: Filter & { readonly from: Date; readonly to: Date };
  /** Days in several parts: counted distinct. */
  readonly unsettled: readonly DayRange[];
  /** Days wholly in the range with a current rollup: its ranges and batch ids. */
  readonly rolled: { readonly ranges: readonly DayRange[]; readonly batches: readonly string[] };
}

/** The rollup tables (migration 3): which part each batch was computed from, and its counts. */
export const ROLLUP_TABLES = { batches: 'event_rollup_batches', hours: 'event_rollup_hours', customers: 'event_rollup_customers' } as const;

const { hour: HOUR_MS, day: DAY_MS } = INTERVALS;

/**
 * The rollup that answers a question over whole days, if one does: the hourly counts know levels
 * and names but not customers, the daily customer counts know customers but not levels or names.
 */
export function rollupFor(filter: Filter, question: { groupBy?: EventGroupField | undefined; bucketMs?: number | undefined; distinctCustomers?: boolean }): 'hours' | 'customers' | undefined {
  const byCustomer = question.groupBy === 'customer_id' || question.distinctCustomers === true;
  if (byCustomer) {
    const fits = filter.level === undefined && filter.type === undefined && (question.bucketMs === undefined || question.bucketMs % DAY_MS === 0);
    return fits ? 'customers' : undefined;
  }
  const fits = filter.customerId === undefined && (question.bucketMs === undefined || question.bucketMs % HOUR_MS === 0);
  return fits ? 'hours' : undefined;
}

const GROUP_COLUMNS: Readonly<Record<EventGroupField, { expr: string; where?: string; rollup: string }>> = {
  level: { expr: 'toString(level)', rollup: 'toString(level)' },
  event: { expr: 'event', rollup: 'event' },
  customer_id: { expr: 'assumeNotNull(customer_id)', where: 'customer_id IS NOT NULL', rollup: 'customer_id' },
};

/** What one counting question reads: the events' rows, and the rollup's when one answers it. */
interface CountShape {
  /** The select list over events, given the counting aggregate of the days read. */
  readonly inner: (count: string) => string;
  readonly groupBy?: string;
  readonly outer: string;
  readonly tail?: string;
  /** A statement around the counted one, sharing its parameters. */
  readonly wrap?: (counted: string) => string;
  /** Conditions on the events' columns. */
  readonly where?: readonly string[];
  readonly params?: Record<string, SqlParam>;
  readonly rollup?: { readonly table: 'hours' | 'customers'; readonly select: string; readonly where?: readonly string[] };
}

/**
 * `column` within any of `ranges` ([start, end), either end open), as one condition; the bounds are
 * added to `params` under names made of `prefix`. ('1' for a range open at both ends.)
 */
export function rangeConditions(column: string, ranges: readonly DayRange[], prefix: string, params: Record<string, SqlParam>): string {
  return ranges
    .map((range, i) => {
      const bounds: string[] = [];
      if (range.start !== undefined) {
        bounds.push(`${column} >= {${prefix}${i}s:Int64}`);
        params[`${prefix}${i}s`] = range.start;
      }
      if (range.end !== undefined) {
        bounds.push(`${column} < {${prefix}${i}e:Int64}`);
        params[`${prefix}${i}e`] = range.end;
      }
      return bounds.length === 0 ? '1' : `(${bounds.join(' AND ')})`;
    })
    .join(' OR ');
}

/**
 * `SELECT <outer> FROM (<members>) <tail>`, the members: the rollup of the rolled days (when the
 * shape has one and there are such days), count() over the other days in one part, uniqExact(id)
 * over the days in several.
 */
function countedSql(plan: CountingPlan, shape: CountShape): string {
  const { where, params } = filterConditions(plan.filter);
  where.push(...(shape.where ?? []));
  Object.assign(params, shape.params);
  const grouped = shape.groupBy === undefined ? '' : ` GROUP BY ${shape.groupBy}`;
  const members: string[] = [];
  const rollup = plan.rolled.batches.length === 0 ? undefined : shape.rollup;
  const excluded: string[] = [];
  if (rollup !== undefined) {
    params.batches = [...plan.rolled.batches];
    const rollupWhere = ['app_id = {appId:String}', 'has({batches:Array(String)}, batch)', ...(rollup.where ?? [])];
    members.push(`SELECT ${rollup.select} FROM ${plan.db}.${ROLLUP_TABLES[rollup.table]} WHERE ${rollupWhere.join(' AND ')}${grouped}`);
    excluded.push(`NOT (${rangeConditions('timestamp_ms', plan.rolled.ranges, 'r', params)})`);
  }
  const unsettled = rangeConditions('timestamp_ms', plan.unsettled, 'u', params);
  const rows = (count: string, conditions: readonly string[]) =>
    `SELECT ${shape.inner(count)} FROM ${plan.db}.${EVENTS_TABLE} WHERE ${[...where, ...conditions].join(' AND ')}${grouped}`;
  if (unsettled === '') {
    members.push(rows('count()', excluded));
  } else {
    members.push(rows('count()', [...excluded, `NOT (${unsettled})`]), rows('uniqExact(id)', [`(${unsettled})`]));
  }
  const counted = `SELECT ${shape.outer} FROM (${members.join(' UNION ALL ')})${shape.tail ?? ''}`;
  return bindQuery(shape.wrap === undefined ? counted : shape.wrap(counted), params);
}

/** Conditions of the filter the rollup table knows: level and name (hours), or customer (customers). */
function rollupFilter(filter: Filter, table: 'hours' | 'customers'): string[] {
  if (table === 'customers') return filter.customerId === undefined ? [] : ['customer_id = {customerId:String}'];
  return [...(filter.level === undefined ? [] : ['level = {level:String}']), ...(filter.type === undefined ? [] : ['event = {type:String}'])];
}

/** Every matching event: one row { n }. */
export function countSql(plan: CountingPlan): string {
  const table = rollupFor(plan.filter, {});
  return countedSql(plan, {
    inner: (count) => `${count} AS n`,
    outer: 'sum(n) AS n',
    ...(table === undefined ? {} : { rollup: { table, select: 'sum(n) AS n', where: rollupFilter(plan.filter, table) } }),
  });
}

/** The distinct customers among the matching events: one row { customers }. Copies change no distinct count. */
export function customersSql(plan: CountingPlan): string {
  const table = rollupFor(plan.filter, { distinctCustomers: true });
  return countedSql(plan, {
    inner: () => 'uniqExactState(customer_id) AS c',
    outer: 'uniqExactMerge(c) AS customers',
    ...(table === undefined ? {} : { rollup: { table, select: 'uniqExactState(toNullable(customer_id)) AS c', where: rollupFilter(plan.filter, table) } }),
  });
}

/**
 * The series of a count over time: without a group field one row for all matching events (none when
 * there are none), with one the `limit` values of the field with the most events (of `keys` only, when
 * given), largest first, then by key. Rows { k, n, bs, cs }: the value ('' without a field), its total,
 * and its non-empty buckets as indexes from `originMs` in steps of `bucketMs` (every matching time is
 * at or after the origin, so the division floors) with their counts. The values are ranked by the
 * totals of their buckets, in the same statement.
 */
export function seriesSql(
  plan: CountingPlan,
  buckets: { originMs: number; bucketMs: number },
  group: { field: EventGroupField; keys?: readonly string[] | undefined } | undefined,
  limit: number,
): string {
  const column = group === undefined ? undefined : GROUP_COLUMNS[group.field];
  const keys = group?.keys;
  const table = rollupFor(plan.filter, { groupBy: group?.field, bucketMs: buckets.bucketMs });
  const time = table === 'customers' ? 'day_ms' : 'hour_ms';
  const rollupKey = column === undefined ? "''" : column.rollup;
  return countedSql(plan, {
    inner: (count) => `${column === undefined ? "''" : column.expr} AS k, intDiv(timestamp_ms - {origin:Int64}, {bucket:Int64}) AS b, ${count} AS c`,
    groupBy: 'k, b',
    outer: 'k, b, sum(c) AS c',
    // Ranked outside: the totals are sums of the buckets, which are summed over the members first.
    tail: ' GROUP BY k, b',
    wrap: (counted) => `SELECT k, sum(c) AS n, groupArray(b) AS bs, groupArray(c) AS cs FROM (${counted}) GROUP BY k ORDER BY n DESC, k ASC LIMIT {limit:UInt32}`,
    where: [...(column?.where === undefined ? [] : [column.where]), ...(column === undefined || keys === undefined ? [] : [`has({keys:Array(String)}, ${column.expr})`])],
    params: { origin: buckets.originMs, bucket: buckets.bucketMs, limit, ...(keys === undefined ? {} : { keys: [...keys] }) },
    ...(table === undefined
      ? {}
      : {
          rollup: {
            table,
            select: `${rollupKey} AS k, intDiv(${time} - {origin:Int64}, {bucket:Int64}) AS b, sum(n) AS c`,
            where: [...rollupFilter(plan.filter, table), ...(keys === undefined ? [] : [`has({keys:Array(String)}, ${rollupKey})`])],
          },
        }),
  });
}

/** The `limit` values of a field with the most events: rows { k, n, last }, largest first, then by key. */
export function topSql(plan: CountingPlan, field: EventGroupField, limit: number): string {
  return countedSql(plan, { ...valueCounts(plan, field), tail: ' GROUP BY k ORDER BY n DESC, k ASC LIMIT {limit:UInt32}', params: { limit } });
}

/**
 * The keys topSql ranks first, in its order, and how many values the field has among the matching
 * events, in one pass over them: one row { nk, ks }. Every value is a group of the ranking, so counting
 * them costs nothing more; the ranking sorts them all in an array (18.16 has no window functions),
 * which for a few thousand values is less work than reading the events a second time. Only the keys
 * come out, as a plain array: a server may name a tuple's elements and write it as an object.
 */
export function rankedSql(plan: CountingPlan, field: EventGroupField, limit: number): string {
  return countedSql(plan, {
    ...valueCounts(plan, field),
    tail: ' GROUP BY k',
    wrap: (counted) => `SELECT count() AS nk, arrayMap(x -> x.2, arraySlice(arraySort(x -> (-x.1, x.2), groupArray((n, k))), 1, {limit:UInt32})) AS ks FROM (${counted})`,
    params: { limit },
  });
}

/** The events and rollup rows counted per value of a field: k, n, last (before grouping by k). */
function valueCounts(plan: CountingPlan, field: EventGroupField): CountShape {
  const column = GROUP_COLUMNS[field];
  const table = rollupFor(plan.filter, { groupBy: field });
  return {
    inner: (count) => `${column.expr} AS k, ${count} AS n, max(timestamp_ms) AS last`,
    groupBy: 'k',
    outer: 'k, sum(n) AS n, max(last) AS last',
    where: column.where === undefined ? [] : [column.where],
    ...(table === undefined ? {} : { rollup: { table, select: `${column.rollup} AS k, sum(n) AS n, max(last_ms) AS last`, where: rollupFilter(plan.filter, table) } }),
  };
}

/**
 * The rollup of one day's part, under a batch id of its own: the hourly counts, the customer
 * counts, and last the batch's record, which is what makes a reader use it. A batch is complete once
 * recorded, so two workers rolling up the same part leave two complete batches, and a reader takes
 * one of them. A part merged away meanwhile leaves an empty batch for a part no reader will see.
 */
export function rollupSql(db: QuotedIdentifier, day: { partitionId: string; part: string; start: number; end: number }, batch: string): string[] {
  const params = { part: day.part, start: day.start, end: day.end, batch };
  const source = `FROM ${db}.${EVENTS_TABLE} WHERE _part = {part:String} AND timestamp_ms >= {start:Int64} AND timestamp_ms < {end:Int64}`;
  return [
    bindQuery(
      `INSERT INTO ${db}.${ROLLUP_TABLES.hours} (app_id, batch, hour_ms, level, event, n, last_ms) SELECT app_id, {batch:String}, intDiv(timestamp_ms, ${HOUR_MS}) * ${HOUR_MS} AS h, level, event, count(), max(timestamp_ms) ${source} GROUP BY app_id, h, level, event`,
      params,
    ),
    bindQuery(
      `INSERT INTO ${db}.${ROLLUP_TABLES.customers} (app_id, batch, day_ms, customer_id, n, last_ms) SELECT app_id, {batch:String}, {start:Int64}, assumeNotNull(customer_id) AS c, count(), max(timestamp_ms) ${source} AND customer_id IS NOT NULL GROUP BY app_id, c`,
      params,
    ),
    bindQuery(`INSERT INTO ${db}.${ROLLUP_TABLES.batches} (day, part, batch) VALUES ({day:UInt32}, {part:String}, {batch:String})`, {
      day: Number(day.partitionId),
      part: day.part,
      batch,
    }),
  ];
}

/** The recorded rollup batches of days `first` to `last`: rows { day_id, part, batch }. */
export function rollupBatchesSql(db: QuotedIdentifier, first: string, last: string): string {
  return bindQuery(`SELECT toString(day) AS day_id, part, any(batch) AS batch FROM ${db}.${ROLLUP_TABLES.batches} WHERE day >= {first:UInt32} AND day <= {last:UInt32} GROUP BY day, part`, {
    first: Number(first),
    last: Number(last),
  });
}

/**
 * Every table partitioned by time, with the times each of its partitions holds: the events and their
 * rollups by day, the customer index by month.
 */
export const PARTITIONED_TABLES: Readonly<Record<string, (partitionId: string) => DayRange>> = {
  [EVENTS_TABLE]: dayRangeOf,
  [ROLLUP_TABLES.batches]: dayRangeOf,
  [ROLLUP_TABLES.hours]: dayRangeOf,
  [ROLLUP_TABLES.customers]: dayRangeOf,
  [CUSTOMER_INDEX.table]: monthRangeOf,
};

/** The tables holding rows of an app: what deleting it removes. */
const APP_TABLES = [EVENTS_TABLE, ROLLUP_TABLES.hours, ROLLUP_TABLES.customers, CUSTOMER_INDEX.table];

/**
 * The active parts per partition of each of those tables: rows { table, partition_id, parts, part }
 * (part: one of them). On a cluster, `parts` is the most any shard holds (a shard's replica, as
 * layout.system reads it) and the table is named as on one server.
 */
export function partitionsSql(layout: TableLayout): string {
  const tables = Object.keys(PARTITIONED_TABLES);
  return bindQuery(
    `SELECT replaceRegexpOne(t, '_local$', '') AS table, partition_id, max(n) AS parts, any(one) AS part FROM (
SELECT ${layout.partNode} AS node, table AS t, partition_id, count() AS n, any(name) AS one FROM ${layout.system('parts')} WHERE database = {database:String} AND has({tables:Array(String)}, table) AND active GROUP BY node, t, partition_id
) GROUP BY t, partition_id`,
    { database: layout.database, tables: tables.map((table) => layout.local(table)) },
  );
}

/** The events stored, copies included, as the parts count them: one row { n }. */
export function tableRowsSql(layout: TableLayout): string {
  return bindQuery(`SELECT sum(rows) AS n FROM ${layout.system('parts')} WHERE database = {database:String} AND table = {table:String} AND active`, {
    database: layout.database,
    table: layout.local(EVENTS_TABLE),
  });
}

/** The active parts of the events table's days `first` to `last` (yyyymmdd) on one server: rows { partition_id, parts, part }. */
export function eventPartsSql(database: string, first: string, last: string): string {
  return bindQuery(
    'SELECT partition_id, count() AS parts, any(name) AS part FROM system.parts WHERE database = {database:String} AND table = {table:String} AND active AND partition_id >= {first:String} AND partition_id <= {last:String} GROUP BY partition_id',
    { database, table: EVENTS_TABLE, first, last },
  );
}

export function dropPartitionSql(layout: TableLayout, table: string, partitionId: string): string {
  return bindQuery(`ALTER TABLE ${layout.db}.${quoteIdentifier(layout.local(table))}${layout.onCluster} DROP PARTITION ID {partition:String}`, { partition: partitionId });
}

/** Merges a day's parts into one; ReplacingMergeTree keeps one copy of each event while merging. */
export function compactPartitionSql(layout: TableLayout, partitionId: string): string {
  return bindQuery(`OPTIMIZE TABLE ${layout.db}.${quoteIdentifier(layout.local(EVENTS_TABLE))}${layout.onCluster} PARTITION ID {partition:String} FINAL`, { partition: partitionId });
}

/** The rows an app has in the tables deleting it empties: one row { n }. */
export function appRowsSql(db: QuotedIdentifier, appId: string): string {
  return bindQuery(`SELECT ${APP_TABLES.map((table) => `(SELECT count() FROM ${db}.${table} WHERE app_id = {appId:String})`).join(' + ')} AS n`, { appId });
}

/**
 * Mutations: each rewrites every part of its table holding the app's rows, in the background. 18.16
 * has no `mutations_sync`, so the caller waits with pendingMutationsSql.
 */
export function deleteAppSql(layout: TableLayout, appId: string): string[] {
  return APP_TABLES.map((table) => bindQuery(`ALTER TABLE ${layout.db}.${quoteIdentifier(layout.local(table))}${layout.onCluster} DELETE WHERE app_id = {appId:String}`, { appId }));
}

export function pendingMutationsSql(layout: TableLayout): string {
  return bindQuery(`SELECT count() AS pending FROM ${layout.system('mutations')} WHERE database = {database:String} AND has({tables:Array(String)}, table) AND is_done = 0`, {
    database: layout.database,
    tables: APP_TABLES.map((table) => layout.local(table)),
  });
}

// Int64/UInt64 arrive as JSON strings or numbers depending on the engine's
// output_format_json_quote_64bit_integers default (18.16 quotes, chDB 26 does not).
const int64 = z.union([z.string().regex(/^-?\d+$/), z.number().int()]).transform((v, ctx) => {
  const n = Number(v);
  if (!Number.isSafeInteger(n)) {
    ctx.addIssue({ code: 'custom', message: `integer out of the safe range: ${v}` });
    return z.NEVER;
  }
  return n;
});

const jsonText = <T extends z.ZodType>(schema: T) =>
  z.string().transform((text, ctx): z.output<T> => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not JSON' });
      return z.NEVER;
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      ctx.addIssue({ code: 'custom', message: parsed.error.message });
      return z.NEVER;
    }
    return parsed.data;
  });

const eventRow = z.object({
  id: z.string(),
  app_id: z.string(),
  event: z.string(),
  customer_id: z.string().nullable(),
  level: z.enum(EVENT_LEVELS),
  data: jsonText(z.record(z.string(), z.unknown())),
  metadata: jsonText(z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]))),
  timestamp_ms: int64,
  ingested_at_ms: int64,
});

/** Validates one row on its way out; a row that does not fit means a schema drift worth failing on. */
export function eventFromRow(row: unknown): StoredEvent {
  const r = eventRow.parse(row);
  return {
    id: r.id,
    appId: r.app_id,
    event: r.event,
    customerId: r.customer_id,
    level: r.level,
    data: r.data,
    metadata: r.metadata,
    timestamp: new Date(r.timestamp_ms),
    ingestedAt: new Date(r.ingested_at_ms),
  };
}

export function pendingFromRow(row: unknown): number {
  return z.object({ pending: int64 }).parse(row).pending;
}

export const countRow = z.object({ n: int64 });
export const customersRow = z.object({ customers: int64 });
export const rollupBatchRow = z.object({ day_id: z.string(), part: z.string(), batch: z.string() });
export const seriesRow = z.object({ k: z.string(), n: int64, bs: z.array(int64), cs: z.array(int64) });
export const topRow = z.object({ k: z.string(), n: int64, last: int64 });
export const rankedRow = z.object({ nk: int64, ks: z.array(z.string()) });
export const positionRow = z.object({ timestamp_ms: int64, id: z.string() }).transform((r): EventPosition => ({ timestamp: new Date(r.timestamp_ms), id: r.id }));
export const partitionRow = z.object({ partition_id: z.string(), parts: int64, part: z.string() });
export const tablePartitionRow = partitionRow.extend({ table: z.string() });
