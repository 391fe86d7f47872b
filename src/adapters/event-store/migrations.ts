import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import type { ClickHouseTransport } from './clickhouse-transport.js';
import { bindQuery, quoteIdentifier, type QuotedIdentifier, type SqlParam } from './sql.js';
import type { TableDefinition, TableLayout } from './table-layout.js';
import { DAY_PARTITION_KEY, dayPartitionKey, dayRangeOf, monthPartitionKey, monthRangeOf } from './day-partitions.js';
import { CUSTOMER_INDEX, EVENT_COLUMNS, EVENTS_TABLE, ROLLUP_TABLES, rangeConditions } from './clickhouse-sql.js';

/**
 * Numbered schema migrations of the event store, and the runner both engines share.
 *
 * The runner records each applied version in `schema_migrations` in the configured database and skips
 * versions found there. ClickHouse has no transactions, so that record is an optimisation, not a lock:
 * every statement must itself be idempotent (IF NOT EXISTS and the like). A crash between a statement
 * and its record, or two processes migrating at once, then just re-runs harmless statements, and a
 * version recorded twice is read back with DISTINCT. When two processes collide on a table (one's
 * later migration renamed or dropped it under the other's statement), the one that failed waits, reads
 * the record again, and runs the migration again unless the other recorded it meanwhile.
 *
 * Rules for new migrations: append, never edit or renumber an applied one; the SQL must parse on
 * ClickHouse 18.16 (Debian's package) as well as on current servers and chDB; each header says what it
 * costs on a large table and why re-running it is safe.
 *
 * A cluster (table-layout.ts) has a list of its own, CLUSTER_MIGRATIONS: it starts from the tables as
 * version 5 left them, with no earlier layout to move. A migration after 5 belongs to both lists, its
 * statements written against the TableLayout so that each list gets its own form.
 */

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly statements: (tables: TableLayout) => readonly string[];
  /** Work that needs answers from the engine, run after the statements; as idempotent as they are. */
  readonly run?: (transport: ClickHouseTransport, tables: TableLayout) => Promise<void>;
}

/**
 * The columns of the events table, as migrations 1, 2 and 5 create it. Applied migrations use it, and
 * an applied migration must not change: never edit this.
 */
const EVENT_TABLE_COLUMNS = `
  app_id String,
  timestamp_ms Int64,
  id String,
  event String,
  customer_id Nullable(String),
  level Enum8('info' = 1, 'warning' = 2, 'error' = 3, 'success' = 4),
  data String,
  metadata String,
  ingested_at_ms Int64
`;

/**
 * The tables of today's layout, for both lists: the events (migration 5), the rollups (3) and the
 * customer index (4). Applied migrations create them from these: never edit one.
 */
const TABLES = {
  events: {
    columns: EVENT_TABLE_COLUMNS,
    engine: 'ReplacingMergeTree',
    keys: `PARTITION BY ${DAY_PARTITION_KEY}
ORDER BY (app_id, timestamp_ms, id)
SETTINGS index_granularity = 1024`,
    shardBy: 'app_id',
  },
  rollupBatches: {
    columns: `
  day UInt32,
  part String,
  batch String,
  created_at DateTime DEFAULT now()
`,
    engine: 'MergeTree',
    keys: `PARTITION BY day
ORDER BY (day, part, batch)`,
    shardBy: 'day',
  },
  rollupHours: {
    columns: `
  app_id String,
  batch String,
  hour_ms Int64,
  level Enum8('info' = 1, 'warning' = 2, 'error' = 3, 'success' = 4),
  event String,
  n UInt64,
  last_ms Int64
`,
    engine: 'MergeTree',
    keys: `PARTITION BY ${dayPartitionKey('hour_ms')}
ORDER BY (app_id, batch, hour_ms, level, event)`,
    shardBy: 'app_id',
  },
  rollupCustomers: {
    columns: `
  app_id String,
  batch String,
  day_ms Int64,
  customer_id String,
  n UInt64,
  last_ms Int64
`,
    engine: 'MergeTree',
    keys: `PARTITION BY ${dayPartitionKey('day_ms')}
ORDER BY (app_id, batch, customer_id)`,
    shardBy: 'app_id',
  },
  customerIndex: {
    columns: `
  app_id String,
  customer String,
  timestamp_ms Int64,
  id String,
  level Enum8('info' = 1, 'warning' = 2, 'error' = 3, 'success' = 4),
  event String
`,
    engine: 'ReplacingMergeTree',
    keys: `PARTITION BY ${monthPartitionKey('timestamp_ms')}
ORDER BY (app_id, customer, timestamp_ms, id)
SETTINGS index_granularity = 1024`,
    shardBy: 'app_id',
  },
  // ReplacingMergeTree so versions recorded twice by racing runners eventually collapse.
  schemaMigrations: {
    columns: `
  version UInt32,
  name String,
  applied_at DateTime DEFAULT now()
`,
    engine: 'ReplacingMergeTree',
    keys: 'ORDER BY version',
    shardBy: 'version',
  },
} as const satisfies Record<string, TableDefinition>;

function rollupTables(tables: TableLayout): string[] {
  return [
    ...tables.createTable(ROLLUP_TABLES.batches, TABLES.rollupBatches),
    ...tables.createTable(ROLLUP_TABLES.hours, TABLES.rollupHours),
    ...tables.createTable(ROLLUP_TABLES.customers, TABLES.rollupCustomers),
  ];
}

export const MIGRATIONS: readonly Migration[] = [
  {
    // Cost: metadata only (a new, empty table). Idempotent: IF NOT EXISTS.
    //
    // - Times are Int64 milliseconds since the epoch. 18.16 has no DateTime64, and one integer keeps
    //   ordering, range filters and the keyset cursor exact and simple; Int64 rather than UInt64 so an
    //   event dated before 1970 is representable instead of failing the insert.
    // - ReplacingMergeTree on ORDER BY (app_id, timestamp_ms, id): an event redelivered after a crash
    //   carries the same id and timestamp, so its copies share a sorting key and merges collapse them.
    //   Until a merge runs the copies coexist, so reads also skip repeats (see clickhouse-sql.ts).
    // - id is the UUID text, not the UUID type: 18.16 orders UUIDs by their internal halves, not as
    //   text, and "id desc" must mean the same thing on every engine and in the cursor.
    // - Monthly UTC partitions; timestamp_ms feeds the partition minmax index, so from/to prune months.
    // - customer_id is Nullable (absent differs from ''); it is not in the sorting key, where 18.16
    //   forbids Nullable. data and metadata are JSON text: 18.16 has no JSON type.
    version: 1,
    name: 'create events',
    statements: ({ db }) => [
      `CREATE TABLE IF NOT EXISTS ${db}.events (${EVENT_TABLE_COLUMNS}) ENGINE = ReplacingMergeTree()
PARTITION BY toYYYYMM(toDateTime(intDiv(timestamp_ms, 1000), 'UTC'))
ORDER BY (app_id, timestamp_ms, id)`,
    ],
  },
  {
    // The same columns and sorting key, one partition per UTC day instead of per month (why: see
    // day-partitions.ts), in a table of a new name so that no step can mistake one table for the other.
    //
    // Cost: every stored event is copied once, a month at a time (on a large installation, minutes,
    // during which the starting process waits). Idempotent and safe to interrupt: the monthly table is
    // first renamed to events_monthly_retired (after which a process still running the previous
    // version fails to write, keeps its Kafka offsets and leaves those events to the new version),
    // then copied with FINAL, so that each month arrives without repeated copies, then dropped. A
    // process interrupted in between copies again on its next start; the copies that leaves behind are
    // what every read already counts and lists once, and upkeep merges them away.
    version: 2,
    name: 'partition events by day',
    statements: ({ db }) => [
      `CREATE TABLE IF NOT EXISTS ${db}.${DAY_TABLE} (${EVENT_TABLE_COLUMNS}) ENGINE = ReplacingMergeTree()
PARTITION BY ${DAY_PARTITION_KEY}
ORDER BY (app_id, timestamp_ms, id)`,
    ],
    run: moveMonthlyEvents,
  },
  {
    // The counts of each past day stored in one part (see rollups in clickhouse-sql.ts): per hour,
    // level and event name; per customer and day; and which part of which day each batch of them was
    // computed from. Partitioned by day like the events, so retention drops them together.
    //
    // Cost: metadata only (new, empty tables; upkeep fills them). Idempotent: IF NOT EXISTS.
    version: 3,
    name: 'daily rollups of event counts',
    statements: rollupTables,
  },
  {
    // The customer index (CUSTOMER_INDEX in clickhouse-sql.ts): each event's position, level and name,
    // sorted by app and customer, kept by a materialized view that every insert into the events table
    // feeds in the same statement, whichever process or version writes it. Granules of 1,024 rows (not
    // 8,192): a page of a customer's events reads a few of them per month.
    //
    // Cost: the events stored so far are indexed once, a month at a time (four narrow columns; some
    // 10 s for 10 million events on a 2-core machine), while the starting process waits. The view
    // exists before that copy starts, so no event is missed; one written meanwhile may be indexed
    // twice, and a rerun after an interruption indexes again: copies the reads skip and merges remove.
    // Idempotent: IF NOT EXISTS.
    version: 4,
    name: 'customer index',
    statements: (tables) => [...tables.createTable(CUSTOMER_INDEX.table, TABLES.customerIndex), customerIndexFeedSql(tables, DAY_TABLE_FEED, DAY_TABLE)],
    run: indexStoredCustomers,
  },
  {
    // The events table again, with granules of 1,024 rows instead of 8,192. A page of a customer's
    // events reads each of its rows where the table holds it, one granule per row: 8,192 rows of every
    // column for each (some 17 MiB and 30 ms for a page at 10 million events on 18.16), where 1,024
    // read 8 MiB in 13 ms. Scans (the counts) take the same time either way.
    //
    // Cost: every stored event is copied once more, a day at a time, as migration 2 did and with the
    // same guarantees (ClickHouse cannot change a table's granule size in place): the table is renamed
    // out of the way first, so a process of the previous version fails to write and leaves its events
    // to this one; each day is copied with FINAL; a rerun after an interruption copies again, leaving
    // copies that reads skip and merges remove. The customer index keeps its rows. Its feed, which the
    // engines bind to a table's name when it is created, is made anew for this table once the copy is
    // done (nothing else writes here before this migration is recorded), and the old feed dropped.
    // The rollups are emptied, since they name the parts of the old table: upkeep makes them again.
    version: 5,
    name: 'events in granules of 1024 rows',
    statements: (tables) => tables.createTable(EVENTS_TABLE, TABLES.events),
    run: moveToFinerGranules,
  },
];

/**
 * The migrations of a cluster (table-layout.ts): a cluster starts from the layout version 5 left on
 * one server, with each table replicated per shard behind a Distributed table, all made ON CLUSTER.
 * The customer index's feed is a materialized view on every node, from the node's events table to
 * its index table: an insert is indexed on the replica that took it, and replication copies both.
 * Cost: metadata only. Idempotent: IF NOT EXISTS, on every node.
 */
export const CLUSTER_MIGRATIONS: readonly Migration[] = [
  {
    version: 5,
    name: 'events, rollups and customer index on a cluster',
    statements: (tables) => [
      ...tables.createTable(EVENTS_TABLE, TABLES.events),
      ...rollupTables(tables),
      ...tables.createTable(CUSTOMER_INDEX.table, TABLES.customerIndex),
      customerIndexFeedSql(tables, CUSTOMER_INDEX.feed, EVENTS_TABLE),
    ],
  },
];

/** The events table as migrations 2 to 4 made it, and the customer index's feed from it. */
const DAY_TABLE = 'events_by_day';
const DAY_TABLE_FEED = 'events_by_customer_feed';

/**
 * The index rows of the events table's rows. The index names its column `customer`: under the name
 * `customer_id`, 18.16 would read the WHERE clause's customer_id as the alias, which is never NULL.
 */
function customerIndexRows(db: QuotedIdentifier, eventsTable: string): string {
  return `SELECT app_id, assumeNotNull(customer_id) AS customer, timestamp_ms, id, level, event FROM ${db}.${eventsTable} WHERE customer_id IS NOT NULL`;
}

/** The materialized view `feed` that indexes every row inserted into `eventsTable` (on a cluster: on each node). */
function customerIndexFeedSql(tables: TableLayout, feed: string, eventsTable: string): string {
  const { db } = tables;
  return `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.${feed}${tables.onCluster} TO ${db}.${tables.local(CUSTOMER_INDEX.table)} AS ${customerIndexRows(db, tables.local(eventsTable))}`;
}

async function indexStoredCustomers(transport: ClickHouseTransport, { database, db }: TableLayout): Promise<void> {
  const days = await activePartitions(transport, database, DAY_TABLE, /^\d{8}$/);
  for (const month of [...new Set(days.map((day) => day.slice(0, 6)))].sort()) {
    const params: Record<string, SqlParam> = {};
    const within = rangeConditions('timestamp_ms', [monthRangeOf(month)], 'm', params);
    await transport.exec(bindQuery(`INSERT INTO ${db}.${CUSTOMER_INDEX.table} (app_id, customer, timestamp_ms, id, level, event) ${customerIndexRows(db, DAY_TABLE)} AND ${within}`, params));
  }
}

/** The ids of a table's partitions that have active parts, each checked against `shape`. */
async function activePartitions(transport: ClickHouseTransport, database: string, table: string, shape: RegExp): Promise<string[]> {
  const rows = await transport.select(
    bindQuery('SELECT DISTINCT partition_id FROM system.parts WHERE database = {database:String} AND table = {table:String} AND active', { database, table }),
  );
  return rows.map((row) => z.object({ partition_id: z.string().regex(shape) }).parse(row).partition_id);
}

const MONTH_OF_ROW = "toYYYYMM(toDateTime(intDiv(timestamp_ms, 1000), 'UTC'))";

function moveMonthlyEvents(transport: ClickHouseTransport, { database }: TableLayout): Promise<void> {
  return moveEvents(transport, database, {
    from: 'events',
    retired: 'events_monthly_retired',
    to: DAY_TABLE,
    partitions: /^\d{6}$/,
    rowsOf: (month, params) => {
      params.month = Number(month);
      return `${MONTH_OF_ROW} = {month:UInt32}`;
    },
  });
}

async function moveToFinerGranules(transport: ClickHouseTransport, tables: TableLayout): Promise<void> {
  const { database, db } = tables;
  await moveEvents(transport, database, {
    from: DAY_TABLE,
    retired: 'events_by_day_retired',
    to: EVENTS_TABLE,
    partitions: /^\d{8}$/,
    rowsOf: (day, params) => rangeConditions('timestamp_ms', [dayRangeOf(day)], 'd', params),
  });
  await transport.exec(customerIndexFeedSql(tables, CUSTOMER_INDEX.feed, EVENTS_TABLE));
  await transport.exec(`DROP TABLE IF EXISTS ${db}.${DAY_TABLE_FEED}`);
  for (const table of Object.values(ROLLUP_TABLES)) await transport.exec(`TRUNCATE TABLE IF EXISTS ${db}.${table}`);
}

/**
 * Moves every event of table `from` into table `to`, each once: renames `from` to `retired` (a process
 * still writing to `from` then fails and leaves its events to the new version), copies each of the
 * retired table's partitions with FINAL, so that each arrives without repeated copies, and drops it.
 * A process interrupted in between finds the retired table on its next start and copies again.
 */
async function moveEvents(
  transport: ClickHouseTransport,
  database: string,
  move: { from: string; retired: string; to: string; partitions: RegExp; rowsOf: (partitionId: string, params: Record<string, SqlParam>) => string },
): Promise<void> {
  const db = quoteIdentifier(database);
  if (await tableExists(transport, database, move.from)) {
    try {
      await transport.exec(`RENAME TABLE ${db}.${move.from} TO ${db}.${move.retired}`);
    } catch (err) {
      // Another process renamed it first; carry on with the copy, as it does.
      if (await tableExists(transport, database, move.from)) throw err;
    }
  }
  if (!(await tableExists(transport, database, move.retired))) return;
  for (const partition of await activePartitions(transport, database, move.retired, move.partitions)) {
    const params: Record<string, SqlParam> = {};
    const rows = move.rowsOf(partition, params);
    await transport.exec(bindQuery(`INSERT INTO ${db}.${move.to} (${EVENT_COLUMNS}) SELECT ${EVENT_COLUMNS} FROM ${db}.${move.retired} FINAL WHERE ${rows}`, params));
  }
  await transport.exec(`DROP TABLE IF EXISTS ${db}.${move.retired}`);
}

async function tableExists(transport: ClickHouseTransport, database: string, table: string): Promise<boolean> {
  const rows = await transport.select(
    bindQuery('SELECT count() AS n FROM system.tables WHERE database = {database:String} AND name = {table:String}', { database, table }),
  );
  return rows.some((row) => Number((row as { n?: unknown }).n) > 0);
}

/**
 * Creates the database if missing and applies the migrations it has not recorded, in order: the
 * layout's own list unless given one. The record is read first, and nothing else is sent when it holds
 * every version: on a cluster each statement waits for every node, and a process starting while one
 * node is down must not wait for it.
 */
export async function applyMigrations(
  transport: ClickHouseTransport,
  tables: TableLayout,
  migrations: readonly Migration[] = tables.cluster === undefined ? MIGRATIONS : CLUSTER_MIGRATIONS,
): Promise<void> {
  assertOrdered(migrations);
  const { db } = tables;
  const appliedVersions = async (): Promise<Set<number>> => new Set((await transport.select(`SELECT DISTINCT version FROM ${db}.schema_migrations`)).map(versionOf));
  let applied = await appliedVersions().catch((err: unknown) => {
    if (isMissing(err)) return new Set<number>();
    throw err;
  });
  if (migrations.every((migration) => applied.has(migration.version))) return;
  await transport.exec(`CREATE DATABASE IF NOT EXISTS ${db}${tables.onCluster}`);
  for (const statement of tables.createTable('schema_migrations', TABLES.schemaMigrations)) await transport.exec(statement);
  for (const migration of migrations) {
    for (let attempt = 1; !applied.has(migration.version); attempt++) {
      try {
        for (const statement of migration.statements(tables)) {
          await transport.exec(statement);
        }
        await migration.run?.(transport, tables);
        await transport.exec(
          bindQuery(`INSERT INTO ${db}.schema_migrations (version, name) VALUES ({version:UInt32}, {name:String})`, {
            version: migration.version,
            name: migration.name,
          }),
        );
        applied.add(migration.version);
      } catch (err) {
        // Another process migrating at the same moment moved a table this one expected (its later
        // migration renamed or dropped it). Once it has recorded this migration, its work stands;
        // until then, this one runs again: every migration may run twice.
        if (!isConcurrentDdl(err) || attempt >= CONCURRENT_DDL_ATTEMPTS) throw err;
        await delay(200 * attempt);
        applied = await appliedVersions();
      }
    }
  }
}

/** How often one migration is tried while another process changes the same tables. */
const CONCURRENT_DDL_ATTEMPTS = 5;

/**
 * ClickHouse's answers when a table changed under a statement: it no longer exists (60) or already
 * exists (57). 18.16 checks and acts in separate steps even for IF EXISTS and IF NOT EXISTS, so two
 * processes running the same migrations at once get these too.
 */
function isConcurrentDdl(err: unknown): boolean {
  return err instanceof Error && /\bCode: (57|60)\b/.test(err.message);
}

/** ClickHouse's answer to a read of a table (60) or database (81) that does not exist. */
function isMissing(err: unknown): boolean {
  return err instanceof Error && /\bCode: (60|81)\b/.test(err.message);
}

function versionOf(row: unknown): number {
  const version = (row as { version?: unknown } | null)?.version;
  // UInt32 comes back as a JSON number; accept the quoted form too in case an engine quotes it.
  const n = typeof version === 'string' ? Number(version) : version;
  if (typeof n !== 'number' || !Number.isSafeInteger(n)) {
    throw new Error(`schema_migrations returned an unexpected row: ${JSON.stringify(row)}`);
  }
  return n;
}

function assertOrdered(migrations: readonly Migration[]): void {
  migrations.forEach((migration, i) => {
    const previous = migrations[i - 1];
    if (!Number.isSafeInteger(migration.version) || (previous !== undefined && migration.version <= previous.version)) {
      throw new Error(`migration versions must be increasing integers; found ${migration.version} after ${previous?.version}`);
    }
  });
}
