import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppEntity } from '../../src/adapters/metadata/entities/app.entity.js';
import { ClientSecretEntity } from '../../src/adapters/metadata/entities/client-secret.entity.js';
import { EventSchemaEntity, type StoredSchemaField } from '../../src/adapters/metadata/entities/event-schema.entity.js';
import {
  createPostgresMetadataStore,
  createSqliteMetadataStore,
  MIGRATIONS_TABLE,
  type MetadataStore,
} from '../../src/adapters/metadata/metadata-store.js';
import { metadataMigrations } from '../../src/adapters/metadata/migrations/metadata-migrations.js';
import { getOrCreateSetting } from '../../src/adapters/metadata/repositories/service-setting-repository.js';
import { createAccount } from '../../src/adapters/metadata/repositories/account-repository.js';
import { createApp, findAppByApiKeyDigest } from '../../src/adapters/metadata/repositories/app-repository.js';
import { createClientSecret, findActiveClientSecretByDigest } from '../../src/adapters/metadata/repositories/client-secret-repository.js';
import { createEventSchema, findEventSchemaByName } from '../../src/adapters/metadata/repositories/event-schema-repository.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { stackEnv } from '../helpers/stack-env.js';

/**
 * One contract for the metadata store, run against every backend: a SQLite file (embedded mode),
 * SQLite in memory (what unit-level tests may use) and a PostgreSQL database of its own
 * (distributed mode). Each test creates its own account, so no test depends on another's data.
 */

interface OpenedStore {
  readonly store: MetadataStore;
  dispose(): Promise<void>;
}

const backends: { name: string; open: () => Promise<OpenedStore> }[] = [
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

const digest = (): string => createHash('sha256').update(randomBytes(32)).digest('hex');

async function appliedMigrations(store: MetadataStore): Promise<{ id: number; name: string }[]> {
  // The row shape of a raw query is ours to state.
  const rows = await store.em().getConnection().execute<Array<{ id: number | string; name: string }>>(`select id, name from ${MIGRATIONS_TABLE} order by id`);
  return rows.map((r) => ({ id: Number(r.id), name: r.name }));
}

describe.each(backends)('metadata store on $name', (backend) => {
  let opened: OpenedStore | undefined;
  const store = (): MetadataStore => {
    if (!opened) throw new Error('store not opened');
    return opened.store;
  };

  beforeAll(async () => {
    opened = await backend.open();
    await store().migrate();
  });

  afterAll(async () => {
    await opened?.dispose();
  });

  async function newAccountWithApp(slug = 'shop') {
    const account = await createAccount(store().em(), { name: 'acme' });
    const app = await createApp(store().em(), {
      accountId: account.id,
      name: 'Shop',
      slug,
      apiKeyDigest: digest(),
      apiKeyPrefix: 'svc_live_abc',
    });
    return { account, app };
  }

  it('records every migration once, and a second migrate changes nothing', async () => {
    const expected = metadataMigrations.map((m) => m.name);
    const first = await appliedMigrations(store());
    expect(first.map((r) => r.name)).toEqual(expected);

    await store().migrate();
    expect(await appliedMigrations(store())).toEqual(first);
  });

  it('creates a service setting once, even when many units of work race to create it', async () => {
    const name = `test-setting-${Math.random().toString(36).slice(2)}`;
    let created = 0;
    const values = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        getOrCreateSetting(store().em(), name, () => {
          created += 1;
          return `value-${i}`;
        }),
      ),
    );
    expect(new Set(values).size).toBe(1);
    expect(created).toBeGreaterThanOrEqual(1);
    // Later reads never create again and return the stored value.
    expect(await getOrCreateSetting(store().em(), name, () => 'other')).toBe(values[0]);
  });

  it('answers ping', async () => {
    await expect(store().ping()).resolves.toBeUndefined();
  });

  it('creates an account, client secret, app and schema and reads them back in a new unit of work', async () => {
    const { account, app } = await newAccountWithApp();
    const secretDigest = digest();
    const secret = await createClientSecret(store().em(), {
      accountId: account.id,
      label: 'ci',
      scopes: ['read', 'write'],
      digest: secretDigest,
      hint: 'svc_cs_abcd…',
    });
    const schema = await createEventSchema(store().em(), {
      appId: app.id,
      eventName: 'order.created',
      fields: [{ id: 'f1', name: 'amount', type: 'number', required: true }],
    });

    expect(account.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    const em = store().em();
    const loadedSecret = await em.findOneOrFail(ClientSecretEntity, { id: secret.id });
    expect(loadedSecret).toMatchObject({ label: 'ci', scopes: ['read', 'write'], digest: secretDigest, hint: 'svc_cs_abcd…', lastUsedAt: null, revokedAt: null });
    expect(loadedSecret.account.id).toBe(account.id);

    const loadedApp = await em.findOneOrFail(AppEntity, { id: app.id });
    expect(loadedApp).toMatchObject({ name: 'Shop', slug: 'shop', apiKeyDigest: app.apiKeyDigest, apiKeyPrefix: 'svc_live_abc', defaultMetadata: {} });
    expect(loadedApp.account.id).toBe(account.id);

    const loadedSchema = await findEventSchemaByName(em, app.id, 'order.created');
    expect(loadedSchema).toMatchObject({ id: schema.id, description: '', metadataFields: [], fields: [{ id: 'f1', name: 'amount', type: 'number', required: true }] });
    expect(loadedSchema?.app.id).toBe(app.id);
  });

  it('finds an app by the digest of its api key, and nothing for an unknown digest', async () => {
    const { app } = await newAccountWithApp();
    const found = await findAppByApiKeyDigest(store().em(), app.apiKeyDigest);
    expect(found?.id).toBe(app.id);
    expect(await findAppByApiKeyDigest(store().em(), digest())).toBeNull();
  });

  it('finds an active client secret by digest, and neither a revoked nor an unknown one', async () => {
    const { account } = await newAccountWithApp();
    const active = await createClientSecret(store().em(), { accountId: account.id, label: 'a', scopes: ['read'], digest: digest(), hint: 'h' });
    const revoked = await createClientSecret(store().em(), { accountId: account.id, label: 'b', scopes: ['write'], digest: digest(), hint: 'h' });
    const em = store().em();
    (await em.findOneOrFail(ClientSecretEntity, { id: revoked.id })).revokedAt = new Date();
    await em.flush();

    expect((await findActiveClientSecretByDigest(store().em(), active.digest))?.id).toBe(active.id);
    expect(await findActiveClientSecretByDigest(store().em(), revoked.digest)).toBeNull();
    expect(await findActiveClientSecretByDigest(store().em(), digest())).toBeNull();
  });

  it('keeps slugs unique per account but lets different accounts share one', async () => {
    const { account, app } = await newAccountWithApp('billing');
    await expect(
      createApp(store().em(), { accountId: account.id, name: 'Other', slug: app.slug, apiKeyDigest: digest(), apiKeyPrefix: 'p' }),
    ).rejects.toBeInstanceOf(UniqueConstraintViolationException);

    const { app: sameSlugElsewhere } = await newAccountWithApp('billing');
    expect(sameSlugElsewhere.slug).toBe(app.slug);
  });

  it('keeps api key and client secret digests unique across accounts', async () => {
    const { app } = await newAccountWithApp();
    const other = await createAccount(store().em(), { name: 'other' });
    await expect(
      createApp(store().em(), { accountId: other.id, name: 'X', slug: 'x', apiKeyDigest: app.apiKeyDigest, apiKeyPrefix: 'p' }),
    ).rejects.toBeInstanceOf(UniqueConstraintViolationException);

    const secretDigest = digest();
    await createClientSecret(store().em(), { accountId: app.account.id, label: 'a', scopes: ['read'], digest: secretDigest, hint: 'h' });
    await expect(
      createClientSecret(store().em(), { accountId: other.id, label: 'b', scopes: ['read'], digest: secretDigest, hint: 'h' }),
    ).rejects.toBeInstanceOf(UniqueConstraintViolationException);
  });

  it('keeps event names unique per app but lets another app reuse one', async () => {
    const { account, app } = await newAccountWithApp();
    const fields: StoredSchemaField[] = [{ id: 'f', name: 'x', type: 'string' }];
    await createEventSchema(store().em(), { appId: app.id, eventName: 'user.signup', fields });
    await expect(createEventSchema(store().em(), { appId: app.id, eventName: 'user.signup', fields })).rejects.toBeInstanceOf(
      UniqueConstraintViolationException,
    );
    // Event names are case-sensitive on both databases.
    await createEventSchema(store().em(), { appId: app.id, eventName: 'User.Signup', fields });

    const second = await createApp(store().em(), { accountId: account.id, name: 'Second', slug: 'second', apiKeyDigest: digest(), apiKeyPrefix: 'p' });
    await createEventSchema(store().em(), { appId: second.id, eventName: 'user.signup', fields });
  });

  it('round-trips JSON columns: nested arrays and objects, unicode, escapes and numbers', async () => {
    const { account } = await newAccountWithApp();
    const defaultMetadata = {
      region: 'eu-west-1',
      'clé-ünïcødé': 'Grüße, 日本語, שלום, 🚀👩‍👩‍👧 e\u0301',
      quotes: `"double" 'single' \\ back\\slash / slash\nnew line\ttab`,
      version: 3,
      ratio: -0.125,
      big: 9007199254740991,
      beta: false,
    };
    const app = await createApp(store().em(), { accountId: account.id, name: 'Json', slug: 'json', apiKeyDigest: digest(), apiKeyPrefix: 'p', defaultMetadata });
    const fields: StoredSchemaField[] = [
      { id: 'status', name: 'status', type: 'enum', required: true, enumValues: ['ok', 'échec', '失败', '💥', ''] },
      { id: 'amount', name: 'amount', type: 'number' },
      { id: 'note', name: 'nöte 📝', type: 'string', required: false },
    ];
    const metadataFields: StoredSchemaField[] = [{ id: 'm', name: 'tenant', type: 'boolean' }];
    await createEventSchema(store().em(), { appId: app.id, eventName: 'json.check', description: 'Beschreibung – „zitiert“ 🧪', fields, metadataFields });

    const em = store().em();
    expect((await em.findOneOrFail(AppEntity, { id: app.id })).defaultMetadata).toEqual(defaultMetadata);
    const schema = await em.findOneOrFail(EventSchemaEntity, { app: app.id, eventName: 'json.check' });
    expect(schema.fields).toEqual(fields);
    expect(schema.metadataFields).toEqual(metadataFields);
    expect(schema.description).toBe('Beschreibung – „zitiert“ 🧪');
  });

  it('deletes the schemas of an app together with the app, and only those', async () => {
    const { account, app } = await newAccountWithApp();
    const fields: StoredSchemaField[] = [{ id: 'f', name: 'x', type: 'string' }];
    await createEventSchema(store().em(), { appId: app.id, eventName: 'a', fields });
    await createEventSchema(store().em(), { appId: app.id, eventName: 'b', fields });
    const kept = await createApp(store().em(), { accountId: account.id, name: 'Kept', slug: 'kept', apiKeyDigest: digest(), apiKeyPrefix: 'p' });
    await createEventSchema(store().em(), { appId: kept.id, eventName: 'a', fields });

    // The schemas are not loaded into this unit of work: the database's ON DELETE CASCADE removes them.
    const em = store().em();
    em.remove(await em.findOneOrFail(AppEntity, { id: app.id }));
    await em.flush();

    expect(await store().em().count(EventSchemaEntity, { app: app.id })).toBe(0);
    expect(await store().em().count(EventSchemaEntity, { app: kept.id })).toBe(1);
    expect(await findAppByApiKeyDigest(store().em(), app.apiKeyDigest)).toBeNull();
  });

  it('sets createdAt and updatedAt, moves updatedAt on change, and keeps millisecond precision', async () => {
    const before = Date.now();
    const { app } = await newAccountWithApp();
    const schema = await createEventSchema(store().em(), { appId: app.id, eventName: 'ts', fields: [{ id: 'f', name: 'x', type: 'string' }] });
    const after = Date.now();

    expect(schema.createdAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(schema.createdAt.getTime()).toBeLessThanOrEqual(after);
    expect(schema.updatedAt.getTime()).toBe(schema.createdAt.getTime());

    const reloaded = await store().em().findOneOrFail(EventSchemaEntity, { id: schema.id });
    expect(reloaded.createdAt).toBeInstanceOf(Date);
    expect(reloaded.createdAt.getTime()).toBe(schema.createdAt.getTime());

    // Wait (at most a millisecond) for the clock to move, so the new updatedAt is distinguishable.
    while (Date.now() <= schema.updatedAt.getTime()) await Promise.resolve();
    const em = store().em();
    const editable = await em.findOneOrFail(EventSchemaEntity, { id: schema.id });
    editable.description = 'changed';
    await em.flush();

    const updated = await store().em().findOneOrFail(EventSchemaEntity, { id: schema.id });
    expect(updated.updatedAt.getTime()).toBeGreaterThan(schema.updatedAt.getTime());
    expect(updated.createdAt.getTime()).toBe(schema.createdAt.getTime());
  });
});

describe('postgres metadata store under contention and failure', () => {
  it('lets several processes migrate one database at the same time', async () => {
    const db = await createTestDatabase(stackEnv().databaseUrl);
    // Separate stores have separate pools, just like separate processes.
    const stores = [1, 2, 3].map(() => createPostgresMetadataStore({ url: db.url }));
    try {
      await Promise.all(stores.map((s) => s.migrate()));
      const applied = await appliedMigrations(stores[0]!);
      expect(applied.map((r) => r.name)).toEqual(metadataMigrations.map((m) => m.name));
      // The schema is usable from every store.
      for (const s of stores) await createAccount(s.em(), { name: 'after-concurrent-migrate' });
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      await db.drop();
    }
  });

  it('fails ping at once when nothing listens on the port', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise<void>((resolve) => server.close(() => resolve()));

    const store = createPostgresMetadataStore({ url: `postgres://postgres@127.0.0.1:${port}/eas_test_unreachable` });
    try {
      const started = Date.now();
      await expect(store.ping()).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await store.close();
    }
  });

  it('fails ping within its timeout when the server accepts but never answers', async () => {
    // A socket that accepts the connection and then stays silent, like a hung or partitioned server.
    const sockets = new Set<Socket>();
    const server = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };

    const store = createPostgresMetadataStore({ url: `postgres://postgres@127.0.0.1:${port}/eas_test_silent`, pingTimeoutMs: 500 });
    try {
      const started = Date.now();
      await expect(store.ping()).rejects.toThrow(/did not answer within 500 ms/);
      expect(Date.now() - started).toBeLessThan(1500);
    } finally {
      // Cut the silent connections first so closing the pool does not wait for pg's connect timeout.
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await store.close();
    }
  });
});
