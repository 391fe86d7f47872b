import { createServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { appliedMigrations, createPostgresMetadataStore } from '../../src/adapters/metadata/metadata-store.js';
import { metadataMigrations } from '../../src/adapters/metadata/migrations/metadata-migrations.js';
import { DuplicateRecordError, type StoredSchemaField } from '../../src/ports/metadata.js';
import { clockPast, digest, METADATA_BACKENDS, migratedStore, newAccountWithApp } from '../helpers/metadata-backends.js';
import { createTestDatabase } from '../helpers/postgres.js';
import { stackEnv } from '../helpers/stack-env.js';

/**
 * The metadata port's contract for the store itself, accounts, apps, client secrets, event schemas
 * and settings, run against every backend (test/helpers/metadata-backends.ts). Destinations, rules
 * and deliveries: metadata-alerting.contract.test.ts.
 */
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const FIELDS: StoredSchemaField[] = [{ id: 'f', name: 'x', type: 'string' }];

describe.each(METADATA_BACKENDS)('metadata store on $name', (backend) => {
  const store = migratedStore(backend);

  describe('the store', () => {
    it('records every migration once, and a second migrate changes nothing', async () => {
      const first = await appliedMigrations(store());
      expect(first.map((r) => r.name)).toEqual(metadataMigrations.map((m) => m.name));
      await store().migrate();
      expect(await appliedMigrations(store())).toEqual(first);
    });

    it('answers ping', async () => {
      await expect(store().ping()).resolves.toBeUndefined();
    });

    it('commits a transaction when its work resolves, with what the work returned', async () => {
      const result = await store().transaction(async (tx) => {
        const account = await tx.accounts.create({ name: 'committed' });
        const secret = await tx.clientSecrets.create({ accountId: account.id, label: 'first', scopes: ['read'], digest: digest(), hint: 'h' });
        return { account, secret };
      });
      expect(await store().accounts.findById(result.account.id)).toEqual(result.account);
      expect(await store().clientSecrets.findById(result.secret.id)).toEqual(result.secret);
    });

    it('rolls every write of a transaction back when its work throws, and rethrows', async () => {
      const { app } = await newAccountWithApp(store());
      let accountId = '';
      const failure = new Error('changed my mind');
      await expect(
        store().transaction(async (tx) => {
          accountId = (await tx.accounts.create({ name: 'rolled back' })).id;
          await tx.apps.update(app.id, { name: 'Renamed' });
          await tx.schemas.create({ appId: app.id, eventName: 'gone', fields: FIELDS });
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await store().accounts.findById(accountId)).toBeNull();
      expect((await store().apps.findById(app.id))?.name).toBe('Shop');
      expect(await store().schemas.findByName(app.id, 'gone')).toBeNull();
    });

    it('rolls a transaction back on a duplicate inside it, and surfaces DuplicateRecordError', async () => {
      const { account, app } = await newAccountWithApp(store(), 'taken');
      let created = '';
      await expect(
        store().transaction(async (tx) => {
          created = (await tx.apps.create({ accountId: account.id, name: 'First', slug: 'free', apiKeyDigest: digest(), apiKeyPrefix: 'p' })).id;
          await tx.apps.create({ accountId: account.id, name: 'Second', slug: app.slug, apiKeyDigest: digest(), apiKeyPrefix: 'p' });
        }),
      ).rejects.toBeInstanceOf(DuplicateRecordError);
      expect(await store().apps.findById(created)).toBeNull();
    });

    it('reads inside a transaction without writing what it read back at commit', async () => {
      const { app } = await newAccountWithApp(store());
      const schema = await store().schemas.create({ appId: app.id, eventName: 'read.only', fields: FIELDS });
      await clockPast(schema.updatedAt);
      await store().transaction(async (tx) => {
        expect(await tx.schemas.findById(app.id, schema.id)).toEqual(schema);
        await tx.apps.findInAccount(app.accountId, app.id);
        await tx.schemas.create({ appId: app.id, eventName: 'written', fields: FIELDS });
      });
      expect(await store().schemas.findById(app.id, schema.id)).toEqual(schema);
      expect(await store().apps.findById(app.id)).toEqual(app);
    });
  });

  describe('accounts', () => {
    it('creates accounts with UUIDv7 ids and finds them by id and, oldest first, by name', async () => {
      const name = `named-${Math.random().toString(36).slice(2)}`;
      const first = await store().accounts.create({ name });
      await clockPast(first.createdAt);
      await store().accounts.create({ name });
      expect(first.id).toMatch(UUID_V7);
      expect(await store().accounts.findById(first.id)).toEqual(first);
      expect(await store().accounts.findOldestByName(name)).toEqual(first);
      expect(await store().accounts.findOldestByName(`${name}-unknown`)).toBeNull();
      expect(await store().accounts.findById('018f0000-0000-7000-8000-000000000000')).toBeNull();
    });

    it('lists every account oldest first, a page at a time', async () => {
      const made = [];
      for (let i = 0; i < 3; i++) {
        const account = await store().accounts.create({ name: `listed-${i}` });
        made.push(account);
        await clockPast(account.createdAt);
      }
      const all = [];
      for (let offset = 0; ; offset += 2) {
        const page = await store().accounts.list({ limit: 2, offset });
        expect(page.length).toBeLessThanOrEqual(2);
        all.push(...page);
        if (page.length < 2) break;
      }
      // Other tests of the suite made accounts too: these three come last, in order, each once.
      expect(all.slice(-3)).toEqual(made);
      expect(new Set(all.map((a) => a.id)).size).toBe(all.length);
      expect(all.map((a) => a.createdAt.getTime())).toEqual(all.map((a) => a.createdAt.getTime()).sort((a, b) => a - b));
    });

    it('locks an account inside a transaction, and refuses to outside one', async () => {
      const { account } = await newAccountWithApp(store());
      expect(await store().transaction((tx) => tx.accounts.lock(account.id))).toEqual(account);
      await expect(store().accounts.lock(account.id)).rejects.toThrow();
    });
  });

  describe('apps', () => {
    it('creates an app and finds it by id, in its account, by slug and by key digest; nothing elsewhere', async () => {
      const { account, app } = await newAccountWithApp(store());
      const other = await store().accounts.create({ name: 'other' });
      expect(app).toMatchObject({ accountId: account.id, name: 'Shop', slug: 'shop', apiKeyPrefix: 'svc_live_abc', defaultMetadata: {} });
      expect(app.updatedAt.getTime()).toBe(app.createdAt.getTime());
      for (const found of [
        await store().apps.findById(app.id),
        await store().apps.findInAccount(account.id, app.id),
        await store().apps.findBySlug(account.id, 'shop'),
        await store().apps.findByApiKeyDigest(app.apiKeyDigest),
      ]) {
        expect(found).toEqual(app);
      }
      expect(await store().apps.findInAccount(other.id, app.id)).toBeNull();
      expect(await store().apps.findBySlug(other.id, 'shop')).toBeNull();
      expect(await store().apps.findByApiKeyDigest(digest())).toBeNull();
    });

    it("lists an account's apps in creation order, by page, and tells which slugs are taken", async () => {
      const { account, app } = await newAccountWithApp(store(), 'first');
      const second = await store().apps.create({ accountId: account.id, name: 'Second', slug: 'second', apiKeyDigest: digest(), apiKeyPrefix: 'p' });
      const third = await store().apps.create({ accountId: account.id, name: 'Third', slug: 'third', apiKeyDigest: digest(), apiKeyPrefix: 'p' });
      expect((await store().apps.list(account.id, { limit: 10, offset: 0 })).map((a) => a.id)).toEqual([app.id, second.id, third.id]);
      expect((await store().apps.list(account.id, { limit: 1, offset: 1 })).map((a) => a.id)).toEqual([second.id]);
      expect((await store().apps.takenSlugs(account.id, ['first', 'third', 'free'])).sort()).toEqual(['first', 'third']);
      expect(await store().apps.takenSlugs((await store().accounts.create({ name: 'empty' })).id, ['first'])).toEqual([]);
    });

    it('updates what it is given, moves updatedAt, and answers null for an unknown app', async () => {
      const { app } = await newAccountWithApp(store());
      await clockPast(app.updatedAt);
      const updated = await store().apps.update(app.id, { name: 'Renamed', slug: undefined, defaultMetadata: { env: 'prod', tier: 2, beta: true } });
      expect(updated).toEqual({ ...app, name: 'Renamed', defaultMetadata: { env: 'prod', tier: 2, beta: true }, updatedAt: updated!.updatedAt });
      expect(updated!.updatedAt.getTime()).toBeGreaterThan(app.updatedAt.getTime());
      expect(await store().apps.findById(app.id)).toEqual(updated);
      const rotated = await store().apps.update(app.id, { apiKeyDigest: digest(), apiKeyPrefix: 'svc_live_new' });
      expect(await store().apps.findByApiKeyDigest(app.apiKeyDigest)).toBeNull();
      expect(await store().apps.findByApiKeyDigest(rotated!.apiKeyDigest)).toEqual(rotated);
      expect(await store().apps.update('018f0000-0000-7000-8000-000000000000', { name: 'x' })).toBeNull();
    });

    it('keeps slugs unique per account, on create and on update, but lets different accounts share one', async () => {
      const { account, app } = await newAccountWithApp(store(), 'billing');
      const create = (slug: string) => store().apps.create({ accountId: account.id, name: 'Other', slug, apiKeyDigest: digest(), apiKeyPrefix: 'p' });
      await expect(create(app.slug)).rejects.toBeInstanceOf(DuplicateRecordError);
      const other = await create('other');
      await expect(store().apps.update(other.id, { slug: app.slug })).rejects.toBeInstanceOf(DuplicateRecordError);
      expect((await store().apps.findById(other.id))?.slug).toBe('other');
      const { app: sameSlugElsewhere } = await newAccountWithApp(store(), 'billing');
      expect(sameSlugElsewhere.slug).toBe(app.slug);
    });

    it('keeps api key digests unique across accounts', async () => {
      const { app } = await newAccountWithApp(store());
      const other = await store().accounts.create({ name: 'other' });
      await expect(store().apps.create({ accountId: other.id, name: 'X', slug: 'x', apiKeyDigest: app.apiKeyDigest, apiKeyPrefix: 'p' })).rejects.toBeInstanceOf(
        DuplicateRecordError,
      );
    });

    it('deletes an app with everything of it, and only that', async () => {
      const { account, app } = await newAccountWithApp(store());
      await store().schemas.create({ appId: app.id, eventName: 'a', fields: FIELDS });
      const kept = await store().apps.create({ accountId: account.id, name: 'Kept', slug: 'kept', apiKeyDigest: digest(), apiKeyPrefix: 'p' });
      await store().schemas.create({ appId: kept.id, eventName: 'a', fields: FIELDS });
      expect(await store().apps.delete(app.id)).toBe(true);
      expect(await store().apps.delete(app.id)).toBe(false);
      expect(await store().apps.findById(app.id)).toBeNull();
      expect(await store().schemas.listAll(app.id)).toEqual([]);
      expect(await store().schemas.listAll(kept.id)).toHaveLength(1);
    });

    it('round-trips JSON: unicode, escapes and numbers', async () => {
      const { account } = await newAccountWithApp(store());
      const defaultMetadata = {
        region: 'eu-west-1',
        'clé-ünïcødé': 'Grüße, 日本語, שלום, 🚀👩‍👩‍👧 e\u0301',
        quotes: `"double" 'single' \\ back\\slash / slash\nnew line\ttab`,
        version: 3,
        ratio: -0.125,
        big: 9007199254740991,
        beta: false,
      };
      const app = await store().apps.create({ accountId: account.id, name: 'Json', slug: 'json', apiKeyDigest: digest(), apiKeyPrefix: 'p', defaultMetadata });
      expect((await store().apps.findById(app.id))?.defaultMetadata).toEqual(defaultMetadata);
    });
  });

  describe('client secrets', () => {
    it('creates secrets and finds them by id, in their account and by digest', async () => {
      const { account } = await newAccountWithApp(store());
      const other = await store().accounts.create({ name: 'other' });
      const secret = await store().clientSecrets.create({ accountId: account.id, label: 'ci', scopes: ['read', 'write'], digest: digest(), hint: 'svc_cs_abcd…' });
      expect(secret).toMatchObject({ accountId: account.id, label: 'ci', scopes: ['read', 'write'], hint: 'svc_cs_abcd…', lastUsedAt: null, revokedAt: null });
      expect(secret.id).toMatch(UUID_V7);
      expect(await store().clientSecrets.findById(secret.id)).toEqual(secret);
      expect(await store().clientSecrets.findInAccount(account.id, secret.id)).toEqual(secret);
      expect(await store().clientSecrets.findInAccount(other.id, secret.id)).toBeNull();
      expect(await store().clientSecrets.findByDigest(secret.digest)).toEqual(secret);
      expect(await store().clientSecrets.findActiveByDigest(secret.digest)).toEqual(secret);
      expect(await store().clientSecrets.findByDigest(digest())).toBeNull();
    });

    it('revokes an active secret of its account once, counts the active ones, and reactivates', async () => {
      const { account } = await newAccountWithApp(store());
      const other = await store().accounts.create({ name: 'other' });
      const [a, b] = [
        await store().clientSecrets.create({ accountId: account.id, label: 'a', scopes: ['read'], digest: digest(), hint: 'h' }),
        await store().clientSecrets.create({ accountId: account.id, label: 'b', scopes: ['write'], digest: digest(), hint: 'h' }),
      ] as const;
      expect(await store().clientSecrets.countActive(account.id)).toBe(2);
      const at = new Date();
      expect(await store().clientSecrets.revokeActive({ accountId: other.id, id: a.id, at })).toBe(false);
      expect(await store().clientSecrets.revokeActive({ accountId: account.id, id: a.id, at })).toBe(true);
      expect(await store().clientSecrets.revokeActive({ accountId: account.id, id: a.id, at: new Date() })).toBe(false);
      expect(await store().clientSecrets.countActive(account.id)).toBe(1);
      const unknown = '01900000-0000-7000-8000-000000000000';
      expect(await store().clientSecrets.countActiveByAccount([account.id, other.id, unknown])).toEqual(
        new Map([
          [account.id, 1],
          [other.id, 0],
          [unknown, 0],
        ]),
      );
      expect(await store().clientSecrets.countActiveByAccount([])).toEqual(new Map());
      expect(await store().clientSecrets.findActiveByDigest(a.digest)).toBeNull();
      expect((await store().clientSecrets.findByDigest(a.digest))?.revokedAt).toEqual(at);
      expect((await store().clientSecrets.list(account.id, { limit: 10, offset: 0 })).map((s) => [s.id, s.revokedAt])).toEqual([
        [a.id, at],
        [b.id, null],
      ]);
      expect((await store().clientSecrets.list(account.id, { limit: 1, offset: 1 })).map((s) => s.id)).toEqual([b.id]);
      await store().clientSecrets.reactivate(a.id);
      expect(await store().clientSecrets.findActiveByDigest(a.digest)).toMatchObject({ id: a.id, revokedAt: null });
    });

    it('records when a secret was last used', async () => {
      const { account } = await newAccountWithApp(store());
      const secret = await store().clientSecrets.create({ accountId: account.id, label: 'a', scopes: ['read'], digest: digest(), hint: 'h' });
      const at = new Date(Date.now() + 1000);
      await store().clientSecrets.recordUse(secret.id, at);
      expect(await store().clientSecrets.findById(secret.id)).toEqual({ ...secret, lastUsedAt: at });
    });

    it('keeps digests unique across accounts', async () => {
      const { account } = await newAccountWithApp(store());
      const other = await store().accounts.create({ name: 'other' });
      const shared = digest();
      await store().clientSecrets.create({ accountId: account.id, label: 'a', scopes: ['read'], digest: shared, hint: 'h' });
      await expect(store().clientSecrets.create({ accountId: other.id, label: 'b', scopes: ['read'], digest: shared, hint: 'h' })).rejects.toBeInstanceOf(
        DuplicateRecordError,
      );
    });
  });

  describe('event schemas', () => {
    it('creates, finds, lists, updates and deletes the schemas of an app', async () => {
      const { app } = await newAccountWithApp(store());
      const fields: StoredSchemaField[] = [
        { id: 'status', name: 'status', type: 'enum', required: true, enumValues: ['ok', 'échec', '失败', '💥', ''] },
        { id: 'note', name: 'nöte 📝', type: 'string', required: false },
      ];
      const metadataFields: StoredSchemaField[] = [{ id: 'm', name: 'tenant', type: 'boolean' }];
      const first = await store().schemas.create({ appId: app.id, eventName: 'order.created', description: 'Beschreibung – „zitiert“ 🧪', fields, metadataFields });
      const second = await store().schemas.create({ appId: app.id, eventName: 'order.paid', fields: FIELDS });
      expect(first).toMatchObject({ appId: app.id, eventName: 'order.created', description: 'Beschreibung – „zitiert“ 🧪', fields, metadataFields });
      expect(second).toMatchObject({ description: '', metadataFields: [] });
      expect(await store().schemas.findById(app.id, first.id)).toEqual(first);
      expect(await store().schemas.findByName(app.id, 'order.created')).toEqual(first);
      expect(await store().schemas.findByName(app.id, 'Order.Created')).toBeNull();
      expect((await store().schemas.list(app.id, { limit: 10, offset: 0 })).map((s) => s.id)).toEqual([first.id, second.id]);
      expect((await store().schemas.list(app.id, { limit: 1, offset: 1 })).map((s) => s.id)).toEqual([second.id]);
      expect((await store().schemas.listAll(app.id)).map((s) => s.id).sort()).toEqual([first.id, second.id].sort());

      await clockPast(first.updatedAt);
      const updated = await store().schemas.update(first.id, { description: 'changed', fields: FIELDS });
      expect(updated).toEqual({ ...first, description: 'changed', fields: FIELDS, updatedAt: updated!.updatedAt });
      expect(updated!.updatedAt.getTime()).toBeGreaterThan(first.updatedAt.getTime());
      expect(await store().schemas.findById(app.id, first.id)).toEqual(updated);
      expect(await store().schemas.update('018f0000-0000-7000-8000-000000000000', { description: 'x' })).toBeNull();

      expect(await store().schemas.delete(app.id, first.id)).toBe(true);
      expect(await store().schemas.delete(app.id, first.id)).toBe(false);
      expect(await store().schemas.findById(app.id, first.id)).toBeNull();
    });

    it("keeps event names unique per app (case-sensitively) but lets another app reuse one; never finds another app's", async () => {
      const { account, app } = await newAccountWithApp(store());
      const schema = await store().schemas.create({ appId: app.id, eventName: 'user.signup', fields: FIELDS });
      await expect(store().schemas.create({ appId: app.id, eventName: 'user.signup', fields: FIELDS })).rejects.toBeInstanceOf(DuplicateRecordError);
      await store().schemas.create({ appId: app.id, eventName: 'User.Signup', fields: FIELDS });
      const second = await store().apps.create({ accountId: account.id, name: 'Second', slug: 'second', apiKeyDigest: digest(), apiKeyPrefix: 'p' });
      await store().schemas.create({ appId: second.id, eventName: 'user.signup', fields: FIELDS });
      expect(await store().schemas.findById(second.id, schema.id)).toBeNull();
      expect(await store().schemas.delete(second.id, schema.id)).toBe(false);
    });

    it('keeps millisecond precision of timestamps', async () => {
      const before = Date.now();
      const { app } = await newAccountWithApp(store());
      const schema = await store().schemas.create({ appId: app.id, eventName: 'ts', fields: FIELDS });
      expect(schema.createdAt.getTime()).toBeGreaterThanOrEqual(before);
      expect(schema.createdAt.getTime()).toBeLessThanOrEqual(Date.now());
      expect(schema.updatedAt.getTime()).toBe(schema.createdAt.getTime());
      const reloaded = await store().schemas.findById(app.id, schema.id);
      expect(reloaded?.createdAt).toBeInstanceOf(Date);
      expect(reloaded?.createdAt.getTime()).toBe(schema.createdAt.getTime());
    });
  });

  describe('settings', () => {
    it('creates a setting once, even when many callers race to create it', async () => {
      const name = `test-setting-${Math.random().toString(36).slice(2)}`;
      let created = 0;
      const values = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          store().settings.getOrCreate(name, () => {
            created += 1;
            return `value-${i}`;
          }),
        ),
      );
      expect(new Set(values).size).toBe(1);
      expect(created).toBeGreaterThanOrEqual(1);
      // Later reads never create again and return the stored value.
      expect(await store().settings.getOrCreate(name, () => 'other')).toBe(values[0]);
    });
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
      for (const s of stores) await s.accounts.create({ name: 'after-concurrent-migrate' });
    } finally {
      await Promise.all(stores.map((s) => s.close()));
      await db.drop();
    }
  });

  it('serialises transactions that lock the same account', async () => {
    const db = await createTestDatabase(stackEnv().databaseUrl);
    const [a, b] = [createPostgresMetadataStore({ url: db.url }), createPostgresMetadataStore({ url: db.url })];
    try {
      await a.migrate();
      const account = await a.accounts.create({ name: 'locked' });
      const order: string[] = [];
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      let locked!: () => void;
      const lockTaken = new Promise<void>((resolve) => (locked = resolve));
      const first = a.transaction(async (tx) => {
        await tx.accounts.lock(account.id);
        locked();
        await held;
        order.push('first');
      });
      await lockTaken;
      const second = b.transaction(async (tx) => {
        await tx.accounts.lock(account.id);
        order.push('second');
      });
      // Nothing to wait for but time: the second transaction must still be waiting for the lock.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(order).toEqual([]);
      release();
      await Promise.all([first, second]);
      expect(order).toEqual(['first', 'second']);
    } finally {
      await Promise.all([a.close(), b.close()]);
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
