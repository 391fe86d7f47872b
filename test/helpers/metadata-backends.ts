import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createPostgresMetadataStore, createSqliteMetadataStore } from '../../src/adapters/metadata/metadata-store.js';
import type { AccountRecord, AppRecord, MetadataStore } from '../../src/ports/metadata.js';
import { createTestDatabase } from './postgres.js';
import { stackEnv } from './stack-env.js';

/**
 * Every backend of the metadata port, for the contract suites: a SQLite file (embedded mode), SQLite
 * in memory and a PostgreSQL database of its own (distributed mode). Each test creates its own
 * account, so no test depends on another's data.
 */
export interface MetadataBackend {
  readonly name: string;
  open(): Promise<OpenedStore>;
}

export interface OpenedStore {
  readonly store: MetadataStore;
  dispose(): Promise<void>;
}

export const METADATA_BACKENDS: readonly MetadataBackend[] = [
  {
    name: 'sqlite file',
    open: async () => {
      const dir = await mkdtemp(join(tmpdir(), 'eas-metadata-'));
      // A subdirectory that does not exist yet: the store must create it.
      const store = createSqliteMetadataStore({ path: join(dir, 'data', 'metadata.sqlite') });
      return {
        store,
        dispose: async () => {
          await store.close();
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'sqlite :memory:',
    open: () => {
      const store = createSqliteMetadataStore({ path: ':memory:' });
      return Promise.resolve({ store, dispose: () => store.close() });
    },
  },
  {
    name: 'postgres',
    open: async () => {
      const db = await createTestDatabase(stackEnv().databaseUrl);
      const store = createPostgresMetadataStore({ url: db.url });
      return {
        store,
        dispose: async () => {
          try {
            await store.close();
          } finally {
            await db.drop();
          }
        },
      };
    },
  },
];

/** Opens and migrates the backend's store before the suite's tests and disposes of it after them. */
export function migratedStore(backend: MetadataBackend): () => MetadataStore {
  let opened: OpenedStore | undefined;
  beforeAll(async () => {
    opened = await backend.open();
    await opened.store.migrate();
  });
  afterAll(async () => {
    await opened?.dispose();
  });
  return () => {
    if (!opened) throw new Error('store not opened');
    return opened.store;
  };
}

/** A random SHA-256 hex digest, as the services store for keys and secrets. */
export const digest = (): string => createHash('sha256').update(randomBytes(32)).digest('hex');

/** A new account with one app, the starting point of most tests. */
export async function newAccountWithApp(store: MetadataStore, slug = 'shop'): Promise<{ account: AccountRecord; app: AppRecord }> {
  const account = await store.accounts.create({ name: 'acme' });
  const app = await store.apps.create({ accountId: account.id, name: 'Shop', slug, apiKeyDigest: digest(), apiKeyPrefix: 'svc_live_abc' });
  return { account, app };
}

/** Waits (at most a millisecond) until the clock has moved past `time`, so a later write is distinguishable. */
export async function clockPast(time: Date): Promise<void> {
  while (Date.now() <= time.getTime()) await Promise.resolve();
}
