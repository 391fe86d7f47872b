import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVALID_AUTH, NOT_FOUND, createTestApp, expectError, expectValidationError, readOnlySecretOf } from '../helpers/api-assertions.js';
import { MODES, startApi, type ApiHarness, type TestAccount } from '../helpers/api-harness.js';
import { openApiCheck, type OpenApiCheck } from '../helpers/openapi-check.js';

const API_KEY_FORM = /^svc_live_[A-Za-z0-9_-]{43}$/;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe.each(MODES)('apps (%s)', (mode) => {
  let api: ApiHarness;
  let openapi: OpenApiCheck;
  let account: TestAccount;

  beforeAll(async () => {
    api = await startApi(mode);
    openapi = await openApiCheck(api);
  });
  afterAll(async () => {
    await api?.stop();
  });

  async function freshAccount(): Promise<TestAccount> {
    account = await api.newAccount();
    return account;
  }

  function call(method: string, path: string, body?: unknown, auth = account.auth) {
    return api.request(method, path, { headers: auth, ...(body !== undefined ? { body } : {}) });
  }

  /** A success response: the expected status, and a body the OpenAPI document describes. */
  async function ok(method: string, path: string, documentedPath: string, status: number, body?: unknown): Promise<any> {
    const res = await call(method, path, body);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    openapi.assertResponse(method, documentedPath, status, res.body);
    return res.body;
  }

  describe('POST /v1/apps', () => {
    it('creates an app and returns it with its full API key, once', async () => {
      await freshAccount();
      const created = await ok('POST', '/v1/apps', '/v1/apps', 201, { name: '  My Shop  ' });
      const { app, apiKey } = created;
      expect(apiKey).toMatch(API_KEY_FORM);
      expect(app).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        accountId: account.accountId,
        name: 'My Shop',
        slug: 'my-shop',
        apiKeyPrefix: apiKey.slice(0, 12),
        apiKeyHint: `${apiKey.slice(0, 12)}…`,
        createdAt: expect.stringMatching(ISO),
        updatedAt: app.createdAt,
      });
      // The key works for ingestion, for this app only.
      expect(await api.container.services.authenticator.authenticate(apiKey)).toEqual({ kind: 'api_key', accountId: account.accountId, appId: app.id });
      // Never again in full: not in the read, not in the listing.
      const read = await call('GET', `/v1/apps/${app.id}`);
      const list = await call('GET', '/v1/apps');
      expect(JSON.stringify([read.body, list.body])).not.toContain(apiKey);
    });

    it('takes an explicit slug', async () => {
      await freshAccount();
      const { app } = await createTestApp(api, account, { name: 'Checkout', slug: 'checkout-eu' });
      expect(app.slug).toBe('checkout-eu');
    });

    it('generates slugs from names: accents folded, made unique with a suffix', async () => {
      await freshAccount();
      const slugs: string[] = [];
      for (const name of ['Café Crème', 'Café  crème!', 'CAFÉ-CRÈME', '商店', '!!!']) slugs.push((await createTestApp(api, account, { name })).app.slug);
      expect(slugs).toEqual(['cafe-creme', 'cafe-creme-2', 'cafe-creme-3', 'app', 'app-2']);
    });

    it('gives distinct slugs to a burst of same-named apps created at once', async () => {
      await freshAccount();
      const results = await Promise.all(Array.from({ length: 6 }, () => call('POST', '/v1/apps', { name: 'Burst' })));
      expect(results.map((r) => r.status)).toEqual(Array(6).fill(201));
      const slugs = results.map((r) => r.body.app.slug as string);
      expect(new Set(slugs).size).toBe(6);
      expect(slugs).toEqual(expect.arrayContaining(['burst', 'burst-2']));
      for (const slug of slugs) expect(slug).toMatch(/^burst(-[0-9a-f]+)?$/);
    });

    it('refuses an explicit slug the account already uses with 409, but another account may use it', async () => {
      await freshAccount();
      await createTestApp(api, account, { name: 'One', slug: 'shop' });
      expectError(await call('POST', '/v1/apps', { name: 'Two', slug: 'shop' }), 409, /slug "shop" is already used/);
      const other = await api.newAccount();
      const res = await api.request('POST', '/v1/apps', { headers: other.auth, body: { name: 'Shop', slug: 'shop' } });
      expect(res.status).toBe(201);
      // A generated slug steps around the taken one instead.
      expect((await createTestApp(api, account, { name: 'Shop' })).app.slug).toBe('shop-2');
    });

    it.each([
      [{}, 'name', /must be a non-empty string/],
      [{ name: '' }, 'name', /must be a non-empty string/],
      [{ name: '   ' }, 'name', /must be a non-empty string/],
      [{ name: 42 }, 'name', /must be a non-empty string/],
      [{ name: 'x'.repeat(201) }, 'name', /at most 200/],
      // PostgreSQL cannot store a NUL; refused in both modes alike rather than a 500 in one.
      [{ name: 'nul\u0000byte' }, 'name', /control characters/],
      [{ name: 'two\nlines' }, 'name', /control characters/],
      // Refused as the body is read, before the name's own rules.
      [{ name: 'lone \uD83D surrogate' }, 'name', /unpaired surrogate/],
      [{ name: 'ok', slug: 'Has Caps' }, 'slug', /lower-case letters, digits or hyphens/],
      [{ name: 'ok', slug: '-leading' }, 'slug', /lower-case/],
      [{ name: 'ok', slug: 'a'.repeat(64) }, 'slug', /1–63/],
      [{ name: 'ok', slug: '' }, 'slug', /1–63/],
      [{ name: 'ok', slug: '0190f5a2-7c3b-7def-8a12-3456789abcde' }, 'slug', /UUID/],
      [{ name: 'ok', apiKey: 'svc_live_mine' }, 'body', /Unrecognized key/],
      [['ok'], 'body', /expected object/],
    ])('400 for %j (%s)', async (body, path, message) => {
      await freshAccount();
      const res = await call('POST', '/v1/apps', body);
      expectValidationError(res, path, message);
      expect(res.body.message).toMatch(new RegExp(`^${path}: `));
    });

    it('400 for malformed JSON, 401 without a valid secret, 403 for a read-only secret', async () => {
      await freshAccount();
      expectError(await api.request('POST', '/v1/apps', { headers: { ...account.auth, 'content-type': 'application/json' }, rawBody: '{"name":' }), 400);
      expectError(await api.request('POST', '/v1/apps', { body: { name: 'x' } }), 401, INVALID_AUTH);
      const { apiKey } = await createTestApp(api, account);
      // An API key is the wrong kind of credential for management, however it is presented.
      expectError(await call('POST', '/v1/apps', { name: 'x' }, { authorization: `Bearer ${apiKey}` }), 401, INVALID_AUTH);
      expectError(await api.request('POST', '/v1/apps', { headers: { 'x-api-key': apiKey }, body: { name: 'x' } }), 401, INVALID_AUTH);
      const reader = await readOnlySecretOf(api, account);
      expectError(await api.request('POST', '/v1/apps', { headers: reader, body: { name: 'x' } }), 403, 'Insufficient scope');
      expect((await call('GET', '/v1/apps')).body).toHaveLength(1);
    });
  });

  describe('GET /v1/apps', () => {
    it("lists only the caller's apps, oldest first, with the key hint and never the key", async () => {
      const other = await api.newAccount();
      await api.request('POST', '/v1/apps', { headers: other.auth, body: { name: 'Not mine' } });
      await freshAccount();
      const created = [];
      for (const name of ['First', 'Second', 'Third']) created.push(await createTestApp(api, account, { name }));
      const list = await ok('GET', '/v1/apps', '/v1/apps', 200);
      expect(list.map((a: any) => a.name)).toEqual(['First', 'Second', 'Third']);
      expect(list).toEqual(created.map((c) => c.app));
      for (const [i, app] of list.entries()) expect(app.apiKeyHint).toBe(`${created[i]!.apiKey.slice(0, 12)}…`);
      expect(JSON.stringify(list)).not.toMatch(/svc_live_[A-Za-z0-9_-]{20}/);
    });

    it('pages with limit and offset', async () => {
      await freshAccount();
      for (const name of ['a', 'b', 'c', 'd', 'e']) await createTestApp(api, account, { name });
      const names = async (query: string) => ((await ok('GET', `/v1/apps${query}`, '/v1/apps', 200)) as any[]).map((a) => a.name);
      expect(await names('?limit=2')).toEqual(['a', 'b']);
      expect(await names('?limit=2&offset=2')).toEqual(['c', 'd']);
      expect(await names('?limit=2&offset=4')).toEqual(['e']);
      expect(await names('?offset=5')).toEqual([]);
      expect(await names('?limit=1000')).toEqual(['a', 'b', 'c', 'd', 'e']);
    });

    it.each([
      ['?limit=0', 'limit'],
      ['?limit=1001', 'limit'],
      ['?limit=ten', 'limit'],
      ['?limit=1.5', 'limit'],
      ['?offset=-1', 'offset'],
      ['?cursor=abc', 'query'],
    ])('400 for %s', async (query, path) => {
      await freshAccount();
      expectValidationError(await call('GET', `/v1/apps${query}`), path);
    });

    it('401 without credentials; a read-only secret may list', async () => {
      expectError(await api.request('GET', '/v1/apps'), 401, INVALID_AUTH);
      expectError(await api.request('GET', '/v1/apps', { headers: { authorization: 'Bearer svc_cs_not-a-real-secret-0000000000000000000' } }), 401, INVALID_AUTH);
      await freshAccount();
      const { app } = await createTestApp(api, account);
      const reader = await readOnlySecretOf(api, account);
      const res = await api.request('GET', '/v1/apps', { headers: reader });
      expect(res.status).toBe(200);
      expect(res.body).toEqual([app]);
      expect((await api.request('GET', `/v1/apps/${app.slug}`, { headers: reader })).status).toBe(200);
    });
  });

  describe('GET /v1/apps/{appId}', () => {
    it('reads an app by id (either case) and by slug', async () => {
      await freshAccount();
      const { app } = await createTestApp(api, account, { name: 'Reader', slug: 'reader' });
      expect(await ok('GET', `/v1/apps/${app.id}`, '/v1/apps/{appId}', 200)).toEqual(app);
      expect(await ok('GET', `/v1/apps/${app.id.toUpperCase()}`, '/v1/apps/{appId}', 200)).toEqual(app);
      expect(await ok('GET', '/v1/apps/reader', '/v1/apps/{appId}', 200)).toEqual(app);
    });

    it("404 for an unknown app and for another account's app, by id and by slug", async () => {
      const other = await api.newAccount();
      const theirs = (await api.request('POST', '/v1/apps', { headers: other.auth, body: { name: 'Theirs', slug: 'theirs' } })).body.app;
      await freshAccount();
      for (const ref of [theirs.id, 'theirs', uuidv7(), 'no-such-app', 'Not_A_Slug', '%00', 'x'.repeat(300)]) {
        expectError(await call('GET', `/v1/apps/${ref}`), 404, NOT_FOUND);
      }
    });

    it('401 without credentials', async () => {
      expectError(await api.request('GET', `/v1/apps/${uuidv7()}`), 401, INVALID_AUTH);
    });
  });

  describe('PATCH /v1/apps/{appId}', () => {
    it('renames an app and keeps its slug', async () => {
      await freshAccount();
      const { app } = await createTestApp(api, account, { name: 'Old name' });
      const updated = await ok('PATCH', `/v1/apps/${app.slug}`, '/v1/apps/{appId}', 200, { name: ' New name ' });
      expect(updated).toEqual({ ...app, name: 'New name', updatedAt: expect.stringMatching(ISO) });
      expect(Date.parse(updated.updatedAt)).toBeGreaterThanOrEqual(Date.parse(app.updatedAt));
      expect((await call('GET', `/v1/apps/${app.id}`)).body.name).toBe('New name');
    });

    it('changes the slug: the new one resolves, the old one is 404', async () => {
      await freshAccount();
      const { app } = await createTestApp(api, account, { name: 'Mover', slug: 'before' });
      const updated = await ok('PATCH', `/v1/apps/${app.id}`, '/v1/apps/{appId}', 200, { slug: 'after' });
      expect(updated.slug).toBe('after');
      expect((await call('GET', '/v1/apps/after')).body.id).toBe(app.id);
      expectError(await call('GET', '/v1/apps/before'), 404, NOT_FOUND);
      // An empty update changes nothing.
      expect(await ok('PATCH', '/v1/apps/after', '/v1/apps/{appId}', 200, {})).toEqual(updated);
    });

    it('409 for a slug another app of the account uses', async () => {
      await freshAccount();
      await createTestApp(api, account, { name: 'A', slug: 'taken' });
      const { app } = await createTestApp(api, account, { name: 'B', slug: 'free' });
      expectError(await call('PATCH', `/v1/apps/${app.id}`, { slug: 'taken' }), 409, /slug "taken" is already used/);
      expect((await call('GET', `/v1/apps/${app.id}`)).body.slug).toBe('free');
    });

    it.each([
      [{ name: '' }, 'name'],
      [{ name: null }, 'name'],
      [{ slug: 'UPPER' }, 'slug'],
      [{ slug: 7 }, 'slug'],
      [{ accountId: 'someone-else' }, 'body'],
      [{ apiKeyPrefix: 'svc_live_abc' }, 'body'],
    ])('400 for %j', async (body, path) => {
      await freshAccount();
      const { app } = await createTestApp(api, account);
      expectValidationError(await call('PATCH', `/v1/apps/${app.id}`, body), path);
    });

    it('names one problem for a slug that breaks the pattern, and the UUID rule only for a slug of the right form', async () => {
      await freshAccount();
      const { app } = await createTestApp(api, account);
      const badForm = await call('PATCH', `/v1/apps/${app.id}`, { slug: 'BAD SLUG' });
      expect(badForm.status).toBe(400);
      expect(badForm.body.details).toEqual([{ path: 'slug', message: expect.stringMatching(/lower-case letters/) }]);
      const uuidForm = await call('PATCH', `/v1/apps/${app.id}`, { slug: '0190a5f0-1111-7000-8000-000000000002' });
      expect(uuidForm.status).toBe(400);
      expect(uuidForm.body.details).toEqual([{ path: 'slug', message: expect.stringMatching(/form of a UUID/) }]);
    });

    it("404 for another account's app by id and by slug; 401 and 403 as for every write", async () => {
      const other = await api.newAccount();
      const theirs = (await api.request('POST', '/v1/apps', { headers: other.auth, body: { name: 'Theirs', slug: 'theirs' } })).body.app;
      await freshAccount();
      expectError(await call('PATCH', `/v1/apps/${theirs.id}`, { name: 'Mine now' }), 404, NOT_FOUND);
      expectError(await call('PATCH', '/v1/apps/theirs', { name: 'Mine now' }), 404, NOT_FOUND);
      expect((await api.request('GET', `/v1/apps/${theirs.id}`, { headers: other.auth })).body.name).toBe('Theirs');
      expectError(await api.request('PATCH', `/v1/apps/${theirs.id}`, { body: { name: 'x' } }), 401, INVALID_AUTH);
      // The owner's read-only secret: the app is visible to it, the write is not allowed.
      const reader = await readOnlySecretOf(api, other);
      expectError(await api.request('PATCH', `/v1/apps/${theirs.id}`, { headers: reader, body: { name: 'x' } }), 403, 'Insufficient scope');
      expect((await api.request('GET', `/v1/apps/${theirs.id}`, { headers: other.auth })).body.name).toBe('Theirs');
    });
  });

  describe('DELETE /v1/apps/{appId}', () => {
    it('deletes the app with its key, schemas and events', async () => {
      await freshAccount();
      const { app, apiKey } = await createTestApp(api, account, { name: 'Doomed' });
      const kept = await createTestApp(api, account, { name: 'Kept' });
      const schema = { eventName: 'order.created', fields: [{ name: 'amount', type: 'number' }] };
      expect((await call('POST', `/v1/apps/${app.id}/schemas`, schema)).status).toBe(201);
      expect((await call('POST', `/v1/apps/${kept.app.id}/schemas`, schema)).status).toBe(201);
      const now = new Date();
      const event = (appId: string) => ({ id: uuidv7(), appId, event: 'order.created', customerId: null, level: 'info' as const, data: { amount: 1 }, metadata: {}, timestamp: now, ingestedAt: now });
      await api.container.events.insert([event(app.id), event(kept.app.id)]);
      expect(await api.container.events.query({ appId: app.id, limit: 10 })).toHaveLength(1);
      expect(await api.container.services.authenticator.authenticate(apiKey)).not.toBeNull();

      const res = await call('DELETE', `/v1/apps/${app.slug}`);
      expect(res.status).toBe(204);
      expect(res.body).toBeUndefined();
      openapi.assertResponse('DELETE', '/v1/apps/{appId}', 204, res.body);

      expectError(await call('GET', `/v1/apps/${app.id}`), 404, NOT_FOUND);
      expect(await api.container.services.authenticator.authenticate(apiKey)).toBeNull();
      expect(await api.container.metadata.schemas.listAll(app.id)).toEqual([]);
      expect(await api.container.events.query({ appId: app.id, limit: 10 })).toEqual([]);
      // The account's other app keeps everything.
      expect(await api.container.metadata.schemas.listAll(kept.app.id)).toHaveLength(1);
      expect(await api.container.events.query({ appId: kept.app.id, limit: 10 })).toHaveLength(1);
      expect(await api.container.services.authenticator.authenticate(kept.apiKey)).not.toBeNull();
      expectError(await call('DELETE', `/v1/apps/${app.id}`), 404, NOT_FOUND);
    });

    it("404 for another account's app by id and by slug, which survives; 401 and 403", async () => {
      const other = await api.newAccount();
      const theirs = (await api.request('POST', '/v1/apps', { headers: other.auth, body: { name: 'Theirs', slug: 'theirs' } })).body.app;
      await freshAccount();
      expectError(await call('DELETE', `/v1/apps/${theirs.id}`), 404, NOT_FOUND);
      expectError(await call('DELETE', '/v1/apps/theirs'), 404, NOT_FOUND);
      expect((await api.request('GET', `/v1/apps/${theirs.id}`, { headers: other.auth })).status).toBe(200);
      expectError(await api.request('DELETE', `/v1/apps/${theirs.id}`), 401, INVALID_AUTH);
      const reader = await readOnlySecretOf(api, other);
      expectError(await api.request('DELETE', `/v1/apps/${theirs.id}`, { headers: reader }), 403, 'Insufficient scope');
      expect((await api.request('GET', `/v1/apps/${theirs.id}`, { headers: other.auth })).status).toBe(200);
    });
  });

  describe.each(['keys/rotate', 'rotate-key'])('POST /v1/apps/{appId}/%s', (suffix) => {
    it('replaces the key: the new one is returned once, the old one fails at once', async () => {
      await freshAccount();
      const { app, apiKey: oldKey } = await createTestApp(api, account, { name: 'Rotating', slug: 'rotating' });
      const auth = api.container.services.authenticator;
      // Authenticated (and so cached) before the rotation, as on a busy ingest path.
      expect(await auth.authenticate(oldKey)).toMatchObject({ appId: app.id });

      const rotated = await ok('POST', `/v1/apps/rotating/${suffix}`, `/v1/apps/{appId}/${suffix}`, 200);
      expect(rotated.apiKey).toMatch(API_KEY_FORM);
      expect(rotated.apiKey).not.toBe(oldKey);
      expect(rotated.app).toEqual({
        ...app,
        apiKeyPrefix: rotated.apiKey.slice(0, 12),
        apiKeyHint: `${rotated.apiKey.slice(0, 12)}…`,
        updatedAt: expect.stringMatching(ISO),
      });
      expect(await auth.authenticate(oldKey)).toBeNull();
      expect(await auth.authenticate(rotated.apiKey)).toEqual({ kind: 'api_key', accountId: account.accountId, appId: app.id });
      expect((await call('GET', `/v1/apps/${app.id}`)).body.apiKeyHint).toBe(`${rotated.apiKey.slice(0, 12)}…`);

      // Rotating again (by id) revokes the second key too: one active key per app.
      const again = await ok('POST', `/v1/apps/${app.id}/${suffix}`, `/v1/apps/{appId}/${suffix}`, 200);
      expect(await auth.authenticate(rotated.apiKey)).toBeNull();
      expect(await auth.authenticate(again.apiKey)).not.toBeNull();
    });

    it("404 for another account's app by id and by slug, whose key keeps working; 401 and 403", async () => {
      const other = await api.newAccount();
      const theirs = (await api.request('POST', '/v1/apps', { headers: other.auth, body: { name: 'Theirs', slug: 'theirs' } })).body;
      await freshAccount();
      expectError(await call('POST', `/v1/apps/${theirs.app.id}/${suffix}`), 404, NOT_FOUND);
      expectError(await call('POST', `/v1/apps/theirs/${suffix}`), 404, NOT_FOUND);
      expect(await api.container.services.authenticator.authenticate(theirs.apiKey)).not.toBeNull();
      expectError(await api.request('POST', `/v1/apps/${theirs.app.id}/${suffix}`), 401, INVALID_AUTH);
      expectError(await api.request('POST', `/v1/apps/${theirs.app.id}/${suffix}`, { headers: { 'x-api-key': theirs.apiKey } }), 401, INVALID_AUTH);
      const reader = await readOnlySecretOf(api, other);
      expectError(await api.request('POST', `/v1/apps/${theirs.app.id}/${suffix}`, { headers: reader }), 403, 'Insufficient scope');
      expect(await api.container.services.authenticator.authenticate(theirs.apiKey)).not.toBeNull();
    });
  });
});
