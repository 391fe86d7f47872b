import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { ChdbEventStore } from '../../src/adapters/event-store/chdb-event-store.js';
import { ClickHouseEventStore } from '../../src/adapters/event-store/clickhouse-event-store.js';
import type { SqlEventStoreOptions } from '../../src/adapters/event-store/sql-event-store.js';
import type { EventStore } from '../../src/ports/event-store.js';
import type { StoredEvent } from '../../src/domain/events.js';
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
