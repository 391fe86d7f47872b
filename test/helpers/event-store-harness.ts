import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { ChdbEventStore } from '../../src/adapters/event-store/chdb-event-store.js';
import { ClickHouseEventStore } from '../../src/adapters/event-store/clickhouse-event-store.js';
import type { SqlEventStoreOptions } from '../../src/adapters/event-store/sql-event-store.js';
import type { ClickHouseTransport } from '../../src/adapters/event-store/clickhouse-transport.js';
import type { EventQuery, EventStore } from '../../src/ports/event-store.js';
import type { StoredEvent } from '../../src/domain/events.js';
import { quoteIdentifier } from '../../src/adapters/event-store/sql.js';
import { chdbSql, clickhouseSql, dropTestDatabase, testDatabaseName, withMergesStopped, type RunSql } from './clickhouse.js';
import { TableLayout } from '../../src/adapters/event-store/table-layout.js';
import { clusterAddresses } from '../cluster/cluster-control.js';
import { stackEnv } from './stack-env.js';

/**
 * An engine the event store runs on, for the contract suites that hold every engine to one behaviour,
 * with what those suites need beside the store to look behind it.
 */
export interface EventStoreHarness {
  open(database: string, options?: Omit<SqlEventStoreOptions, 'database' | 'cluster'>): EventStore;
  /** Runs a statement beside the store (on a cluster: on its first node). */
  sql: RunSql;
  /** The tables behind the store: where a table's rows live, and the system tables the store reads. */
  tables(database: string): TableLayout;
  /** Runs `body` with the background merges of a table's rows stopped (on a cluster: on every node). */
  withMergesStopped<T>(database: string, table: string, body: () => Promise<T>): Promise<T>;
  /**
   * Waits until every replica has done what was asked of a table's rows so far (fetches, merges):
   * nothing to wait for on one server, where an OPTIMIZE is done when it returns. On a cluster the
   * merge an OPTIMIZE assigns runs from each replica's queue; after merges were stopped, 18.16 runs
   * that queue again only after a back-off of seconds, which SYSTEM SYNC REPLICA cuts short.
   */
  awaitReplicas(database: string, table: string): Promise<void>;
  /** Drops a test database (on a cluster: on every node). */
  dropDatabase(name: string): Promise<void>;
  /**
   * Whether the engine stores the layouts of earlier versions and the rollups of past days: one
   * server and chDB do; a cluster starts from today's layout and counts without rollups.
   */
  readonly singleServer: boolean;
  dispose(): Promise<void>;
}

/** An engine to run the contract suites on. `singleServer`: as the harness's (known before it is made). */
export interface EventStoreEngine {
  readonly name: string;
  readonly singleServer: boolean;
  readonly create: () => Promise<EventStoreHarness>;
}

/** A harness over one server's or chDB's statement runner. */
function singleServerHarness(sql: RunSql, open: EventStoreHarness['open'], dispose: () => Promise<void>): EventStoreHarness {
  return {
    open,
    sql,
    tables: (database) => new TableLayout(database),
    withMergesStopped: (database, table, body) => withMergesStopped([sql], database, table, body),
    awaitReplicas: () => Promise.resolve(),
    dropDatabase: (name) => dropTestDatabase(sql, name),
    singleServer: true,
    dispose,
  };
}

const ONE_SERVER_ENGINES: readonly EventStoreEngine[] = [
  {
    name: 'ClickHouse server over HTTP',
    singleServer: true,
    create: () => {
      const { clickhouseUrl } = stackEnv();
      return Promise.resolve(
        singleServerHarness(clickhouseSql(clickhouseUrl), (database, options) => new ClickHouseEventStore({ urls: [clickhouseUrl], database, ...options }), () => Promise.resolve()),
      );
    },
  },
  {
    name: 'chDB',
    singleServer: true,
    create: async () => {
      const path = await mkdtemp(join(tmpdir(), 'chdb-contract-'));
      return singleServerHarness(
        chdbSql(path),
        (database, options) => new ChdbEventStore({ path, database, ...options }),
        () => rm(path, { recursive: true, force: true }),
      );
    },
  },
];

/** The local cluster (`npm run test:cluster`): 2 shards of 2 replicas, the store talking to all four nodes. */
const CLUSTER_ENGINE: EventStoreEngine = {
  name: 'ClickHouse cluster (2 shards × 2 replicas)',
  singleServer: false,
  create: () => {
    const { clickhouseUrls, clickhouseCluster } = clusterAddresses();
    // Statements beside the store go as the store's do: a write reaches its shard before it returns,
    // and reads ask each shard's first live replica, the one writes went to.
    const nodes = clickhouseUrls.map((url) => clickhouseSql(url, { insert_distributed_sync: 1, load_balancing: 'in_order', insert_deduplicate: 0 }));
    const first = nodes[0] as RunSql;
    return Promise.resolve<EventStoreHarness>({
      open: (database, options) => new ClickHouseEventStore({ urls: clickhouseUrls, cluster: clickhouseCluster, database, ...options }),
      sql: first,
      tables: (database) => new TableLayout(database, clickhouseCluster),
      withMergesStopped: (database, table, body) => withMergesStopped(nodes, database, new TableLayout(database, clickhouseCluster).local(table), body),
      awaitReplicas: async (database, table) => {
        const local = `${quoteIdentifier(database)}.${quoteIdentifier(new TableLayout(database, clickhouseCluster).local(table))}`;
        await Promise.all(nodes.map((run) => run(`SYSTEM SYNC REPLICA ${local}`)));
      },
      dropDatabase: (name) => dropTestDatabase(first, name, clickhouseCluster),
      singleServer: false,
      dispose: () => Promise.resolve(),
    });
  },
};

/**
 * The engines the contract suites run on: one server and chDB in `npm test`; the local cluster in
 * `npm run test:cluster`, whose command sets CLICKHOUSE_CLUSTER.
 */
export const EVENT_STORE_ENGINES: readonly EventStoreEngine[] = process.env.CLICKHOUSE_CLUSTER ? [CLUSTER_ENGINE] : ONE_SERVER_ENGINES;

export const T0 = Date.parse('2024-03-01T12:00:00.000Z');

export function makeEvent(appId: string, overrides: Partial<StoredEvent> = {}): StoredEvent {
  return {
    id: uuidv7(),
    appId,
    event: 'signup',
    customerId: null,
    level: 'info',
    data: {},
    metadata: {},
    timestamp: new Date(T0),
    ingestedAt: new Date(T0 + 5),
    ...overrides,
  };
}

/** Ids whose text order is n's order, for tests that need to know it. */
export function idFor(n: number): string {
  return `01900000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
}

/** The store's read order: newest first, then by id descending. */
export function newestFirst(events: readonly StoredEvent[]): StoredEvent[] {
  return [...events].sort((a, b) => b.timestamp.getTime() - a.timestamp.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
}

export const ids = (events: readonly StoredEvent[]): string[] => events.map((e) => e.id);

/** Follows `after` page by page until a short page. */
export async function readAllPages(store: EventStore, query: Omit<EventQuery, 'after'>): Promise<StoredEvent[][]> {
  const pages: StoredEvent[][] = [];
  let after: EventQuery['after'];
  for (;;) {
    const page = await store.query({ ...query, after });
    pages.push(page);
    const last = page.at(-1);
    if (page.length < query.limit || last === undefined) return pages;
    after = { timestamp: last.timestamp, id: last.id };
  }
}

export interface SuiteStore {
  readonly harness: EventStoreHarness;
  readonly database: string;
  readonly store: EventStore;
}

/** A harness and a migrated store in a test database of its own, for one suite. */
export async function openSuiteStore(createHarness: () => Promise<EventStoreHarness>, purpose: string, options?: Omit<SqlEventStoreOptions, 'database' | 'cluster'>): Promise<SuiteStore> {
  const harness = await createHarness();
  const database = testDatabaseName(purpose);
  const store = harness.open(database, options);
  await store.migrate();
  return { harness, database, store };
}

export async function closeSuiteStore(suite: Partial<SuiteStore>): Promise<void> {
  await suite.store?.close();
  if (suite.harness !== undefined && suite.database !== undefined) {
    await suite.harness.dropDatabase(suite.database);
    await suite.harness.dispose();
  }
}

/**
 * A transport for the migration runner made of the harness's statement runner: it finds no version
 * applied, so applyMigrations(statementsOnly(harness), db, MIGRATIONS.slice(0, n)) makes a database as
 * an installation of an earlier version left it.
 */
export function statementsOnly(harness: EventStoreHarness): ClickHouseTransport {
  return {
    exec: async (sql) => void (await harness.sql(sql)),
    select: () => Promise.resolve([]),
    ping: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

/**
 * Stores `events` straight into `table` of `database`, one INSERT, as an earlier version of the store
 * wrote them: for an installation made by applyMigrations(statementsOnly(harness), …).
 */
export async function insertRows(harness: EventStoreHarness, database: string, table: string, events: readonly StoredEvent[]): Promise<void> {
  const rows = events.map((e) =>
    JSON.stringify({
      id: e.id,
      app_id: e.appId,
      event: e.event,
      customer_id: e.customerId,
      level: e.level,
      data: JSON.stringify(e.data),
      metadata: JSON.stringify(e.metadata),
      timestamp_ms: e.timestamp.getTime(),
      ingested_at_ms: e.ingestedAt.getTime(),
    }),
  );
  await harness.sql(`INSERT INTO ${quoteIdentifier(database)}.${quoteIdentifier(table)} FORMAT JSONEachRow\n${rows.join('\n')}`);
}
