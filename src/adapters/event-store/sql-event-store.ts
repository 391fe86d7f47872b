import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import {
  compactPartitionSql,
  deleteAppSql,
  dropPartitionSql,
  eventFromRow,
  insertEventsSql,
  countRow,
  countSql,
  customerPositionsSql,
  customersRow,
  customersSql,
  eventPartsSql,
  eventsAtCustomerPositionsSql,
  eventsAtSql,
  partitionRow,
  partitionsSql,
  PARTITIONED_TABLES,
  positionRow,
  rollupBatchRow,
  rollupBatchesSql,
  rollupSql,
  tablePartitionRow,
  tableRowsSql,
  appRowsSql,
  EVENTS_TABLE,
  ROLLUP_TABLES,
  pendingFromRow,
  pendingMutationsSql,
  selectEventsSql,
  seriesRow,
  seriesSql,
  rankedRow,
  rankedSql,
  topRow,
  topSql,
  type CountingPlan,
} from './clickhouse-sql.js';
import type { ClickHouseTransport } from './clickhouse-transport.js';
import type {
  EventCounts,
  EventCountsQuery,
  EventFilter,
  EventPosition,
  EventQuery,
  EventSeries,
  EventStore,
  EventStoreUpkeep,
  EventTopItem,
  EventTopQuery,
} from '../../ports/event-store.js';
import { dayPartitionOf, dayRangeOf, mergeDayRanges, type DayRange } from './day-partitions.js';
import { INTERVALS } from '../../domain/event-stats.js';
import { applyMigrations } from './migrations.js';
import type { QuotedIdentifier } from './sql.js';
import { TableLayout } from './table-layout.js';
import { MAX_EVENT_FUTURE_MS, type StoredEvent } from '../../domain/events.js';
import { uuidv7Millis } from '../../domain/uuid.js';

export interface SqlEventStoreOptions {
  /** Database holding the events; created by migrate(). Letters, digits and _. */
  readonly database: string;
  /**
   * A cluster of the servers' configuration to keep the events on, sharded and replicated (see
   * table-layout.ts); undefined keeps them on the one server the transport reaches.
   */
  readonly cluster?: string | undefined;
  /**
   * Longest deleteApp() waits for its mutation. The mutation rewrites every part holding the app's
   * rows, so on a big table it can take a while; it keeps running (and completes) after a timeout.
   */
  readonly deleteTimeoutMs?: number;
  /** Events older than this many days are not read and are dropped by upkeep; 0 keeps everything. */
  readonly retentionDays?: number;
  /** The clock retention and upkeep go by. */
  readonly now?: () => number;
  /**
   * Below this many stored events (all apps) a list page is read in one statement instead of through
   * time windows (see query()); default WINDOWED_READS_FROM_ROWS.
   */
  readonly windowedReadsFromRows?: number;
}

/** The first window a page is read through, and how much longer each next one may be (see query()). */
const FIRST_WINDOW_MS = INTERVALS.hour;
const WINDOW_GROWTH = 8;
/** A window reaching further back than this reads the rest of the range at once. */
const WHOLE_RANGE_MS = 100 * 365 * INTERVALS.day;
/**
 * Windows pay off on a large table; on a small one a single statement is cheaper than several, each
 * of which has the whole table's parts to consider. The table's size is looked up at most this often.
 */
const WINDOWED_READS_FROM_ROWS = 1_000_000;
const TABLE_SIZE_TTL_MS = 10_000;
/** Past days compacted, and rolled up, per round of upkeep at most: a round stays short, the next one goes on. */
const COMPACTIONS_PER_UPKEEP = 4;
const ROLLUPS_PER_UPKEEP = 8;

const MAX_LIMIT = 1000;
// Re-fetch size cap for the rare page thinned by not-yet-merged copies (see query()).
const MAX_FETCH = 10_000;

/**
 * The event store over any ClickHouse engine: the server and chDB differ only in the transport.
 */
export class SqlEventStore implements EventStore {
  readonly #transport: ClickHouseTransport;
  readonly #tables: TableLayout;
  readonly #db: QuotedIdentifier;
  readonly #deleteTimeoutMs: number;
  readonly #retentionMs: number | undefined;
  readonly #now: () => number;
  readonly #windowedFromRows: number;
  #tableSize: { rows: number; at: number } | undefined;

  constructor(transport: ClickHouseTransport, options: SqlEventStoreOptions) {
    this.#transport = transport;
    // Validates the names up front: a bad one fails at wiring time, not at the first query.
    this.#tables = new TableLayout(options.database, options.cluster);
    this.#db = this.#tables.db;
    this.#deleteTimeoutMs = options.deleteTimeoutMs ?? 120_000;
    const days = options.retentionDays ?? 0;
    if (!Number.isSafeInteger(days) || days < 0) throw new RangeError(`retentionDays must be a whole number of days, got ${days}`);
    this.#retentionMs = days === 0 ? undefined : days * INTERVALS.day;
    this.#now = options.now ?? Date.now;
    this.#windowedFromRows = options.windowedReadsFromRows ?? WINDOWED_READS_FROM_ROWS;
  }

  /** Whether list pages are read through time windows: when the table holds many events. */
  async #windowed(): Promise<boolean> {
    if (this.#windowedFromRows === 0) return true;
    const now = Date.now();
    if (this.#tableSize === undefined || now - this.#tableSize.at > TABLE_SIZE_TTL_MS) {
      const [row] = await this.#transport.select(tableRowsSql(this.#tables));
      this.#tableSize = { rows: countRow.parse(row).n, at: now };
    }
    return this.#tableSize.rows >= this.#windowedFromRows;
  }

  /** The oldest time a read may return, or undefined when everything is kept. */
  #notBefore(): number | undefined {
    return this.#retentionMs === undefined ? undefined : this.#now() - this.#retentionMs;
  }

  async migrate(): Promise<void> {
    await applyMigrations(this.#transport, this.#tables);
  }

  /**
   * Not an async function: one would keep `events` alive until its last statement is answered, and a
   * worker's batch of decoded events is tens of megabytes for the young-generation collector to copy
   * at every scavenge meanwhile (bench/NOTES.md). The rows are text from the start; only the text waits.
   */
  insert(events: readonly StoredEvent[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    // One statement unless the batch spans more days than one INSERT may; a retry after a partial
    // failure writes the first ones again, which the table's deduplication by id absorbs. Built in
    // an executor, so that an event the store refuses rejects the promise instead of throwing.
    const statements = new Promise<string[]>((resolve) => resolve(insertEventsSql(this.#db, events)));
    return statements.then((built) => this.#execInOrder(built));
  }

  async #execInOrder(statements: readonly string[]): Promise<void> {
    for (const statement of statements) await this.#transport.exec(statement);
  }

  /**
   * Reads in (timestamp desc, id desc) order and drops repeated ids. Copies of one event share its
   * sorting key, so they are adjacent; when dropping them leaves the page short and the engine had
   * more rows, it reads on strictly after the last row seen, which also skips that row's remaining
   * copies. Each round moves the position forward, so the loop ends; the fetch size doubles so even a
   * heavily duplicated range takes few rounds.
   *
   * The engine cannot stop at the first rows of the sorting order (18.16 has no read-in-order): a
   * query over all of an app's events sorts all of them to return 25. So a page is read through time
   * windows reaching back from its upper end (the cursor, `to`, or now), the first an hour long, each
   * next one sized by nextReach, until the page is full or the range is exhausted; a window that
   * filled the fetch is read on before the next one opens. A busy app's page costs one small query; a
   * quiet app's, or a rare filter's, a few more. Any read while the table is small
   * (WINDOWED_READS_FROM_ROWS) is one statement without windows. A lookup by id reads the time around
   * its id's instant first (#queryById); a customer's events are read through the customer index
   * (#queryByCustomer).
   */
  async query(query: EventQuery): Promise<StoredEvent[]> {
    assertLimit(query.limit);
    if (query.id !== undefined) return this.#queryById({ ...query, id: query.id });
    if (query.customerId !== undefined) return this.#queryByCustomer({ ...query, customerId: query.customerId });
    return this.#scan(query);
  }

  /**
   * An event by id. The sorting key narrows a time range, not an id, and every id is a UUIDv7 that
   * the service made when it accepted the event: its instant is known, and the event's time lies at
   * most MAX_EVENT_FUTURE_MS after it (ingest refuses later times) and, for an event sent as it
   * happens, moments before it. So the hour around that instant is read first, then the day before to
   * the latest time allowed, and the whole range only when the event is in neither (old events sent
   * late, or no such event).
   */
  async #queryById(query: EventQuery & { id: string }): Promise<StoredEvent[]> {
    const made = uuidv7Millis(query.id);
    const near: Array<[number, number]> = made === undefined ? [] : [[made - INTERVALS.hour, made + INTERVALS.hour], [made - INTERVALS.day, made + MAX_EVENT_FUTURE_MS + 1]];
    for (const [start, end] of near) {
      const from = Math.max(query.from?.getTime() ?? -Infinity, start);
      const to = Math.min(query.to?.getTime() ?? Infinity, end);
      const found = from < to ? await this.#scan({ ...query, from: new Date(from), to: new Date(to) }) : [];
      if (found.length > 0) return found;
    }
    return this.#scan(query);
  }

  /** The events of `query` through time windows (see query()), or in one statement for an id or a small table. */
  async #scan(query: EventQuery): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    const seen = new Set<string>();
    let after: EventPosition | undefined = query.after;
    let fetch = query.limit;
    const floor = maxDefined(query.from?.getTime(), this.#notBefore());
    const top = query.after?.timestamp.getTime() ?? query.to?.getTime() ?? this.#now();
    let reach = query.id === undefined && (await this.#windowed()) ? FIRST_WINDOW_MS : Infinity;
    for (;;) {
      const windowFloor = reach >= WHOLE_RANGE_MS ? undefined : top - reach;
      const last = windowFloor === undefined || (floor !== undefined && windowFloor <= floor);
      const rows = await this.#transport.select(selectEventsSql(this.#db, { ...query, notBefore: last ? floor : windowFloor }, after, fetch));
      for (const row of rows) {
        const event = eventFromRow(row);
        if (!seen.has(event.id)) {
          seen.add(event.id);
          events.push(event);
        }
        if (events.length === query.limit) return events;
        after = { timestamp: event.timestamp, id: event.id };
      }
      if (rows.length === fetch) {
        fetch = Math.min(fetch * 2, MAX_FETCH);
      } else if (last) {
        return events;
      } else {
        reach = nextReach(reach, events.length, query.limit);
      }
    }
  }

  /**
   * A customer's page: its next positions from the customer index (CUSTOMER_INDEX) and, at the same
   * time, the rows at those positions, whatever the table's size. Copies of a position (an event indexed twice) are
   * adjacent and read once; a position whose row is gone (its app being deleted) is passed over. When
   * the positions fetched yield too few events, the next ones are read strictly after the last, in
   * growing numbers, as in query().
   */
  async #queryByCustomer(query: EventQuery & { customerId: string }): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    const notBefore = this.#notBefore();
    let after = query.after;
    let fetch = query.limit;
    for (;;) {
      const page = { ...query, notBefore };
      const [rows, stored] = await Promise.all([
        this.#transport.select(customerPositionsSql(this.#db, page, after, fetch)),
        this.#transport.select(eventsAtCustomerPositionsSql(this.#db, page, after, fetch)),
      ]);
      let previous: string | undefined;
      const positions = rows
        .map((row) => positionRow.parse(row))
        .filter((position) => {
          const key = positionKey(position);
          const first = key !== previous;
          previous = key;
          return first;
        });
      const found = new Map<string, StoredEvent>();
      const keep = (row: unknown): void => {
        const event = eventFromRow(row);
        found.set(positionKey({ timestamp: event.timestamp, id: event.id }), event);
      };
      stored.forEach(keep);
      // The two statements may have seen different positions (an event indexed between them): the
      // rows of any position the first one named and the second did not are read by position.
      const missing = positions.filter((position) => !found.has(positionKey(position)));
      if (missing.length > 0) (await this.#transport.select(eventsAtSql(this.#db, query.appId, missing))).forEach(keep);
      for (const position of positions) {
        const event = found.get(positionKey(position));
        if (event !== undefined) events.push(event);
        if (events.length === query.limit) return events;
        after = position;
      }
      if (rows.length < fetch) return events;
      fetch = Math.min(fetch * 2, MAX_FETCH);
    }
  }

  async counts(query: EventCountsQuery): Promise<EventCounts> {
    assertLimit(query.limit);
    if (!Number.isSafeInteger(query.bucketMs) || query.bucketMs < 1) throw new RangeError(`bucketMs must be a positive integer, got ${query.bucketMs}`);
    const plan = await this.#plan(query);
    const buckets = { originMs: Math.floor(query.from.getTime() / query.bucketMs) * query.bucketMs, bucketMs: query.bucketMs };
    // Without groups the one series is every matching event, its total the count; with groups the
    // series are the top `limit` values only, and the count is a statement of its own.
    const [total, { customers, rows }] = await Promise.all([
      query.groupBy === undefined ? undefined : this.#transport.select(countSql(plan)).then(([row]) => countRow.parse(row).n),
      this.#series(plan, buckets, query),
    ]);
    const series = rows.map((raw): EventSeries => {
      const row = seriesRow.parse(raw);
      const counts = new Map<number, number>();
      row.bs.forEach((b, i) => counts.set(buckets.originMs + b * buckets.bucketMs, row.cs[i] ?? 0));
      return { key: row.k, total: row.n, buckets: counts };
    });
    if (total !== undefined) return { total, uniqueCustomers: customers, series };
    const all = series[0]?.total ?? 0;
    return { total: all, uniqueCustomers: customers, series: [{ key: null, total: all, buckets: series[0]?.buckets ?? new Map() }] };
  }

  /**
   * The rows of seriesSql, and the distinct customers of the matching events. Levels and names are
   * ranked and counted per bucket in one statement, beside the one counting the customers. Customer
   * ids are unbounded (a month of a busy app has thousands, each with a bucket per day): they are
   * ranked first, in the statement that also counts them (rankedSql), and only the top ones counted
   * per bucket. The two steps measured 154 against 277 ms in one statement at 10 million events (30
   * days by day), where levels took 98 in one statement against 123 in two.
   */
  async #series(plan: CountingPlan, buckets: { originMs: number; bucketMs: number }, query: EventCountsQuery): Promise<{ customers: number; rows: unknown[] }> {
    if (query.groupBy === 'customer_id') {
      const ranked = rankedRow.parse((await this.#transport.select(rankedSql(plan, query.groupBy, query.limit)))[0]);
      const keys = ranked.ks;
      const rows = keys.length === 0 ? [] : await this.#transport.select(seriesSql(plan, buckets, { field: query.groupBy, keys }, query.limit));
      return { customers: ranked.nk, rows };
    }
    const group = query.groupBy === undefined ? undefined : { field: query.groupBy };
    const [customers, rows] = await Promise.all([
      this.#transport.select(customersSql(plan)).then(([row]) => customersRow.parse(row).customers),
      this.#transport.select(seriesSql(plan, buckets, group, group === undefined ? 1 : query.limit)),
    ]);
    return { customers, rows };
  }

  async top(query: EventTopQuery): Promise<EventTopItem[]> {
    assertLimit(query.limit);
    const rows = await this.#transport.select(topSql(await this.#plan(query), query.by, query.limit));
    return rows.map((raw) => {
      const row = topRow.parse(raw);
      return { key: row.k, count: row.n, lastSeen: new Date(row.last) };
    });
  }

  /**
   * What counting needs besides the filter (see CountingPlan): the days of the range in several
   * parts, and the days wholly in it whose one part has a recorded rollup.
   */
  async #plan(filter: EventFilter): Promise<CountingPlan> {
    const notBefore = this.#notBefore();
    const from = Math.max(filter.from.getTime(), notBefore ?? -Infinity);
    const to = filter.to.getTime();
    const unsettled: DayRange[] = [];
    const rolled: { ranges: DayRange[]; batches: string[] } = { ranges: [], batches: [] };
    if (this.#tables.cluster !== undefined) {
      // A day's parts differ between the replicas of a shard until replication settles, and a read
      // may go to either: no day counts as one part, and every day is counted distinct.
      unsettled.push({ start: from, end: to });
    } else if (from < to) {
      const [first, last] = [dayPartitionOf(from), dayPartitionOf(to - 1)];
      const [parts, batches] = await Promise.all([
        this.#transport.select(eventPartsSql(this.#tables.database, first, last)).then((rows) => rows.map((row) => partitionRow.parse(row))),
        this.#transport.select(rollupBatchesSql(this.#db, first, last)).then((rows) => rows.map((row) => rollupBatchRow.parse(row))),
      ]);
      const batchOf = new Map(batches.map((b) => [`${b.day_id} ${b.part}`, b.batch]));
      for (const day of parts) {
        const range = dayRangeOf(day.partition_id);
        const batch = batchOf.get(`${day.partition_id} ${day.part}`);
        if (day.parts > 1) {
          unsettled.push(range);
        } else if (batch !== undefined && range.start !== undefined && range.end !== undefined && range.start >= from && range.end <= to) {
          rolled.ranges.push(range);
          rolled.batches.push(batch);
        }
      }
    }
    return { db: this.#db, filter: { ...filter, notBefore }, unsettled: mergeDayRanges(unsettled), rolled: { ranges: mergeDayRanges(rolled.ranges), batches: rolled.batches } };
  }

  /**
   * One round of upkeep, newest days first:
   * - drops every day (of the events and their rollups) that ended before the retention's cutoff;
   * - compacts past days stored in more than one part, a few per round;
   * - rolls up past days stored in one part that has no rollup yet, a few more.
   * Today is left to the engine's own merges, since its parts keep arriving. Two processes doing
   * this at once drop or merge the same day twice, which changes nothing, or roll it up twice, which
   * leaves two complete batches of which readers use one.
   */
  async upkeep(): Promise<EventStoreUpkeep> {
    const partitions = (await this.#transport.select(partitionsSql(this.#tables))).map((row) => tablePartitionRow.parse(row));
    const notBefore = this.#notBefore();
    const today = dayRangeOf(dayPartitionOf(this.#now()));
    const dropped = new Set<string>();
    for (const p of partitions) {
      const rangeOf = PARTITIONED_TABLES[p.table];
      if (rangeOf === undefined) continue;
      const end = rangeOf(p.partition_id).end;
      if (notBefore !== undefined && end !== undefined && end <= notBefore) {
        await this.#transport.exec(dropPartitionSql(this.#tables, p.table, p.partition_id));
        if (p.table === EVENTS_TABLE) dropped.add(p.partition_id);
      }
    }
    const pastDays = partitions
      .filter((p) => p.table === EVENTS_TABLE && !dropped.has(p.partition_id))
      .map((p) => ({ id: p.partition_id, parts: p.parts, part: p.part, range: dayRangeOf(p.partition_id) }))
      .filter((day) => day.range.end !== undefined && today.start !== undefined && day.range.end <= today.start)
      .sort((a, b) => b.id.localeCompare(a.id));
    const compacted: string[] = [];
    for (const day of pastDays.filter((d) => d.parts > 1).slice(0, COMPACTIONS_PER_UPKEEP)) {
      await this.#transport.exec(compactPartitionSql(this.#tables, day.id));
      compacted.push(day.id);
    }
    // Counts on a cluster read no rollup (see #plan), so none is made there.
    if (this.#tables.cluster !== undefined) return { dropped: [...dropped].sort(), compacted, rolledUp: [] };
    const recorded = new Set(
      partitions.some((p) => p.table === ROLLUP_TABLES.batches)
        ? (await this.#transport.select(rollupBatchesSql(this.#db, '19700101', '20991231'))).map((row) => {
            const b = rollupBatchRow.parse(row);
            return `${b.day_id} ${b.part}`;
          })
        : [],
    );
    const rolledUp: string[] = [];
    for (const day of pastDays) {
      if (rolledUp.length === ROLLUPS_PER_UPKEEP) break;
      const { start, end } = day.range;
      if (day.parts !== 1 || start === undefined || end === undefined || recorded.has(`${day.id} ${day.part}`)) continue;
      for (const statement of rollupSql(this.#db, { partitionId: day.id, part: day.part, start, end }, randomUUID())) await this.#transport.exec(statement);
      rolledUp.push(day.id);
    }
    return { dropped: [...dropped].sort(), compacted, rolledUp };
  }

  async deleteApp(appId: string): Promise<void> {
    // A mutation visits every part of its table, many on an installation keeping many days: an app
    // with nothing stored (the app's rows are found through the sorting key) is left at that.
    const [stored] = await this.#transport.select(appRowsSql(this.#db, appId));
    if (countRow.parse(stored).n === 0) return;
    for (const statement of deleteAppSql(this.#tables, appId)) await this.#transport.exec(statement);
    await this.#waitForMutations();
  }

  /**
   * Waits until the events table has no unfinished mutation (ours and any earlier one), polling with
   * backoff. 18.16 cannot make ALTER ... DELETE synchronous (no `mutations_sync`), and the caller
   * needs the app's events gone from reads when this resolves.
   */
  async #waitForMutations(): Promise<void> {
    const deadline = Date.now() + this.#deleteTimeoutMs;
    let pause = 10;
    for (;;) {
      const [row] = await this.#transport.select(pendingMutationsSql(this.#tables));
      if (pendingFromRow(row) === 0) return;
      if (Date.now() >= deadline) {
        throw new Error(
          `events of the deleted app are still being removed after ${this.#deleteTimeoutMs} ms; the mutation continues in the background`,
        );
      }
      await delay(pause);
      pause = Math.min(pause * 2, 500);
    }
  }

  async ping(): Promise<void> {
    await this.#transport.ping();
  }

  async close(): Promise<void> {
    await this.#transport.close();
  }
}

function assertLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new RangeError(`limit must be an integer from 1 to ${MAX_LIMIT}, got ${limit}`);
  }
}

/**
 * How far back the next window reaches, given how far the last one did and how many of the page's
 * events it found: far enough for the whole page at the rate found so far, with half again to spare,
 * but at least twice and at most WINDOW_GROWTH times as far (nothing found: WINDOW_GROWTH times).
 */
function nextReach(reach: number, found: number, limit: number): number {
  if (found === 0) return reach * WINDOW_GROWTH;
  return Math.round(Math.min(reach * WINDOW_GROWTH, Math.max(reach * 2, ((reach * limit) / found) * 1.5)));
}

function positionKey(position: EventPosition): string {
  return `${position.timestamp.getTime()} ${position.id}`;
}

/** The largest of the defined values, or undefined when none is. */
function maxDefined(...values: (number | undefined)[]): number | undefined {
  const defined = values.filter((v): v is number => v !== undefined);
  return defined.length === 0 ? undefined : Math.max(...defined);
}
