import { z } from 'zod';
import { type EventPosition, type EventQuery } from '../../ports/event-store.js';
import { bindQuery, type QuotedIdentifier, type SqlParams } from './sql.js';
import { CANONICAL_UUID } from '../../domain/uuid.js';
import { utcMonthOf } from '../../domain/months.js';
import { isWellFormedUnicode } from '../../domain/unicode.js';
import { EVENT_LEVELS, type StoredEvent } from '../../domain/events.js';

/**
 * The statements and row mapping of the events table (created in migrations.ts), shared by both
 * engines. Every value in SQL text goes through bindQuery, inserted rows through JSONEachRow (jsonRow); the
 * database name arrives already quoted.
 */


const COLUMNS = 'id, app_id, event, customer_id, level, data, metadata, timestamp_ms, ingested_at_ms';

function millis(date: Date, field: string, id: string): number {
  const ms = date.getTime();
  if (!Number.isFinite(ms)) throw new RangeError(`event ${id}: ${field} is not a valid date`);
  return ms;
}

/**
 * Validates one event on its way in and maps it to one JSONEachRow line. JSON.stringify is the
 * escaping here: the row travels as data after the statement, never as SQL text, so no value is ever
 * parsed as SQL. data and metadata are String columns holding JSON text, hence stringified twice.
 */
function jsonRow(event: StoredEvent): string {
  if (!CANONICAL_UUID.test(event.id)) throw new RangeError(`event id must be a lowercase UUID, got ${JSON.stringify(event.id)}`);
  if (!EVENT_LEVELS.includes(event.level)) throw new RangeError(`event ${event.id}: unknown level ${JSON.stringify(event.level)}`);
  // JSON.stringify writes a lone surrogate as a \u escape, which an engine would decode into some
  // other string; refuse it, as bindQuery does. (data and metadata are stringified twice, so their
  // escapes reach the column as text and read back unchanged.)
  for (const text of [event.appId, event.event, event.customerId ?? '']) {
    if (!isWellFormedUnicode(text)) throw new RangeError(`event ${event.id}: string contains a lone UTF-16 surrogate, which has no UTF-8 form`);
  }
  return JSON.stringify({
    id: event.id,
    app_id: event.appId,
    event: event.event,
    customer_id: event.customerId,
    level: event.level,
    data: JSON.stringify(event.data),
    metadata: JSON.stringify(event.metadata),
    timestamp_ms: millis(event.timestamp, 'timestamp', event.id),
    ingested_at_ms: millis(event.ingestedAt, 'ingestedAt', event.id),
  });
}

/**
 * Current ClickHouse refuses an INSERT block that touches more than 100 partitions
 * (`max_partitions_per_insert_block`; 18.16 has no such limit), and the events table has one per month.
 * A batch whose timestamps span more months (a backfill, or a client sending what it likes) is split,
 * so that no batch can fail every retry.
 */
export const MAX_PARTITIONS_PER_INSERT = 100;

/**
 * The INSERTs for a batch, its rows in the JSONEachRow format after each statement: one for the whole
 * batch (one part per partition, which is what MergeTree wants) unless it spans more than
 * MAX_PARTITIONS_PER_INSERT months. Every engine reads the data format with its fast input parser,
 * where VALUES would go through SQL literal parsing; building the rows is also several times cheaper
 * for the worker than binding each value into SQL text (bench/NOTES.md).
 */
export function insertEventsSql(db: QuotedIdentifier, events: readonly StoredEvent[]): string[] {
  // Every month before 1970 is told apart here although the engine puts them all in its first
  // partition: a group of months here never spans more partitions there.
  const rows = events.map((event) => ({ month: utcMonthOf(event.timestamp), line: jsonRow(event) }));
  const months = [...new Set(rows.map((row) => row.month))];
  const statements: string[] = [];
  for (let i = 0; i < months.length; i += MAX_PARTITIONS_PER_INSERT) {
    const group = new Set(months.slice(i, i + MAX_PARTITIONS_PER_INSERT));
    const lines = rows.filter((row) => group.has(row.month)).map((row) => row.line);
    statements.push(`INSERT INTO ${db}.events (${COLUMNS}) FORMAT JSONEachRow\n${lines.join('\n')}`);
  }
  return statements;
}

/**
 * One page of candidate rows in read order, duplicates included: rows not yet merged by
 * ReplacingMergeTree come back once per copy, next to each other because they share the sorting key.
 * The caller drops repeats and, if that leaves the page short, fetches again strictly after the last
 * row (see sql-event-store.ts). Deduplicating in SQL instead costs every page a full pass: with
 * LIMIT 1 BY the engine can no longer keep just the top `limit` rows while sorting, and FINAL merges
 * all the app's parts in one stream.
 */
export function selectEventsSql(db: QuotedIdentifier, query: EventQuery, after: EventPosition | undefined, limit: number): string {
  const where = ['app_id = {appId:String}'];
  const params: Record<string, string | number> = { appId: query.appId, limit };
  if (query.level !== undefined) {
    where.push('level = {level:String}');
    params.level = query.level;
  }
  if (query.type !== undefined) {
    where.push('event = {type:String}');
    params.type = query.type;
  }
  if (query.customerId !== undefined) {
    where.push('customer_id = {customerId:String}');
    params.customerId = query.customerId;
  }
  if (query.id !== undefined) {
    where.push('id = {id:String}');
    params.id = query.id;
  }
  if (query.from !== undefined) {
    where.push('timestamp_ms >= {from:Int64}');
    params.from = query.from.getTime();
  }
  if (query.to !== undefined) {
    where.push('timestamp_ms < {to:Int64}');
    params.to = query.to.getTime();
  }
  if (after !== undefined) {
    // Spelled out rather than as a tuple comparison, which 18.16 does not support.
    where.push('(timestamp_ms < {afterTs:Int64} OR (timestamp_ms = {afterTs:Int64} AND id < {afterId:String}))');
    params.afterTs = after.timestamp.getTime();
    params.afterId = after.id;
  }
  return bindQuery(
    `SELECT ${COLUMNS} FROM ${db}.events WHERE ${where.join(' AND ')} ORDER BY timestamp_ms DESC, id DESC LIMIT {limit:UInt32}`,
    params satisfies SqlParams,
  );
}

/**
 * A mutation: it rewrites every part holding the app's rows, in the background. 18.16 has no
 * `mutations_sync`, so the caller waits with pendingMutationsSql.
 */
export function deleteAppSql(db: QuotedIdentifier, appId: string): string {
  return bindQuery(`ALTER TABLE ${db}.events DELETE WHERE app_id = {appId:String}`, { appId });
}

export function pendingMutationsSql(database: string): string {
  return bindQuery(
    "SELECT count() AS pending FROM system.mutations WHERE database = {database:String} AND table = 'events' AND is_done = 0",
    { database },
  );
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
