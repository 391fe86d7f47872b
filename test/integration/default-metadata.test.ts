import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVALID_AUTH, NOT_FOUND, createTestApp, expectError, expectValidationError, readOnlySecretOf } from '../helpers/api-assertions.js';
import { MODES, startApi, type ApiHarness, type TestAccount } from '../helpers/api-harness.js';
import { openApiCheck, type OpenApiCheck } from '../helpers/openapi-check.js';

const PATH = '/v1/apps/{appId}/default-metadata';

describe.each(MODES)('default metadata (%s)', (mode) => {
  let api: ApiHarness;
  let openapi: OpenApiCheck;
  let account: TestAccount;
  let app: { id: string; slug: string; updatedAt: string };

  beforeAll(async () => {
    api = await startApi(mode);
    openapi = await openApiCheck(api);
  });
  afterAll(async () => {
    await api?.stop();
  });

  async function freshApp(): Promise<void> {
    account = await api.newAccount();
    app = (await createTestApp(api, account, { name: 'Metadata' })).app;
  }

  function call(method: string, appRef: string, body?: unknown, auth: Record<string, string> = account.auth) {
    return api.request(method, `/v1/apps/${appRef}/default-metadata`, { headers: auth, ...(body !== undefined ? { body } : {}) });
  }

  async function ok(method: string, appRef: string, body?: unknown): Promise<any> {
    const res = await call(method, appRef, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    openapi.assertResponse(method, PATH, 200, res.body);
    return res.body;
  }

  it('is {} for a new app', async () => {
    await freshApp();
    expect(await ok('GET', app.id)).toEqual({});
  });

  it('PUT stores the object as the whole default metadata, by id or slug; {} clears it', async () => {
    await freshApp();
    const values = { env: 'production', version: 3, ratio: 0.25, beta: true, empty: '', _internal: false, 'team-name': 'core' };
    expect(await ok('PUT', app.id, values)).toEqual(values);
    expect(await ok('GET', app.slug)).toEqual(values);
    // Replaced, not merged.
    expect(await ok('PUT', app.slug, { region: 'eu' })).toEqual({ region: 'eu' });
    expect(await ok('GET', app.id)).toEqual({ region: 'eu' });
    expect(await ok('PUT', app.id, {})).toEqual({});
    expect(await ok('GET', app.id)).toEqual({});
  });

  it('accepts 50 keys and long-enough values at the limits', async () => {
    await freshApp();
    const values = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i % 2 === 0 ? 'v'.repeat(1000) : i]));
    expect(await ok('PUT', app.id, values)).toEqual(values);
    expect(await ok('PUT', app.id, { ['k'.repeat(100)]: 1 })).toEqual({ ['k'.repeat(100)]: 1 });
  });

  it('leaves the app alone: its key, name and slug do not change', async () => {
    await freshApp();
    await ok('PUT', app.id, { a: 1 });
    const read = (await api.request('GET', `/v1/apps/${app.id}`, { headers: account.auth })).body;
    expect(read).toMatchObject({ id: app.id, slug: app.slug, name: 'Metadata' });
  });

  it.each([
    [Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])), 'body', /at most 50 keys/],
    [{ nested: { a: 1 } }, 'nested', /string .* number or a boolean/],
    [{ list: ['a'] }, 'list', /string .* number or a boolean/],
    [{ nothing: null }, 'nothing', /string .* number or a boolean/],
    [{ long: 'v'.repeat(1001) }, 'long', /at most 1000 characters/],
    [{ nul: 'a\u0000b' }, 'nul', /NUL characters/],
    [{ lone: '\uD83D' }, 'lone', /unpaired surrogate/],
    [{ '.a': 1 }, '.a', /keys must be/],
    [{ 'a b': 1 }, 'a b', /keys must be/],
    [{ $level: 'x' }, '$level', /keys must be/],
    [{ '-x': 'x' }, '-x', /keys must be/],
    // An empty key is a real key: its path is the empty string.
    [{ '': 'x' }, '', /keys must be/],
    [{ ['k'.repeat(101)]: 1 }, 'k'.repeat(101), /keys must be/],
    [['a'], 'body', /must be an object/],
    ['text', 'body', /must be an object/],
  ])('400 for %j', async (body, path, message) => {
    await freshApp();
    await ok('PUT', app.id, { kept: true });
    const res = await call('PUT', app.id, body);
    expectValidationError(res, path, message);
    expect(await ok('GET', app.id)).toEqual({ kept: true });
  });

  it("404 for an unknown app and for another account's app by id and by slug", async () => {
    const other = await api.newAccount();
    const theirs = (await api.request('POST', '/v1/apps', { headers: other.auth, body: { name: 'Theirs', slug: 'theirs' } })).body.app;
    await api.request('PUT', `/v1/apps/${theirs.id}/default-metadata`, { headers: other.auth, body: { secret: 'theirs' } });
    await freshApp();
    for (const ref of [theirs.id, 'theirs', uuidv7(), 'no-such-app']) {
      expectError(await call('GET', ref), 404, NOT_FOUND);
      expectError(await call('PUT', ref, { mine: true }), 404, NOT_FOUND);
    }
    expect((await api.request('GET', `/v1/apps/${theirs.id}/default-metadata`, { headers: other.auth })).body).toEqual({ secret: 'theirs' });
  });

  it('401 without credentials; a read-only secret may read but not write (403)', async () => {
    await freshApp();
    await ok('PUT', app.id, { a: 'b' });
    expectError(await api.request('GET', `/v1/apps/${app.id}/default-metadata`), 401, INVALID_AUTH);
    expectError(await api.request('PUT', `/v1/apps/${app.id}/default-metadata`, { body: { a: 'c' } }), 401, INVALID_AUTH);
    const reader = await readOnlySecretOf(api, account);
    expect((await call('GET', app.id, undefined, reader)).body).toEqual({ a: 'b' });
    expectError(await call('PUT', app.id, { a: 'c' }, reader), 403, 'Insufficient scope');
    expect(await ok('GET', app.id)).toEqual({ a: 'b' });
  });
});
