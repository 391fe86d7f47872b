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
import { chdbSql, clickhouseSql, dropTestDatabase, testDatabaseName, type RunSql } from './clickhouse.js';
import { stackEnv } from './stack-env.js';

/** The two engines the event store runs on, for the contract suites that hold them to one behaviour. */
export interface EventStoreHarness {
  open(database: string, options?: Omit<SqlEventStoreOptions, 'database'>): EventStore;
  /** Set-up and clean-up statements beside the store (drop a database, stop merges). */
  sql: RunSql;
  dispose(): Promise<void>;
}

export const EVENT_STORE_ENGINES: readonly { name: string; create: () => Promise<EventStoreHarness> }[] = [
  {
    name: 'ClickHouse server over HTTP',
    create: () => {
      const { clickhouseUrl } = stackEnv();
      return Promise.resolve({
        open: (database, options) => new ClickHouseEventStore({ url: clickhouseUrl, database, ...options }),
        sql: clickhouseSql(clickhouseUrl),
        dispose: () => Promise.resolve(),
      });
    },
  },
  {
    name: 'chDB',
    create: async () => {
      const path = await mkdtemp(join(tmpdir(), 'chdb-contract-'));
      return {
        open: (database, options) => new ChdbEventStore({ path, database, ...options }),
        sql: chdbSql(path),
        dispose: () => rm(path, { recursive: true, force: true }),
      };
    },
  },
];

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
export async function openSuiteStore(createHarness: () => Promise<EventStoreHarness>, purpose: string, options?: Omit<SqlEventStoreOptions, 'database'>): Promise<SuiteStore> {
  const harness = await createHarness();
  const database = testDatabaseName(purpose);
  const store = harness.open(database, options);
  await store.migrate();
  return { harness, database, store };
}

export async function closeSuiteStore(suite: Partial<SuiteStore>): Promise<void> {
  await suite.store?.close();
  if (suite.harness !== undefined && suite.database !== undefined) {
    await dropTestDatabase(suite.harness.sql, suite.database);
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
