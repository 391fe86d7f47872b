import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODES, startApi, type ApiHarness, type TestAccount } from '../helpers/api-harness.js';
import { expectErrorBody, INSUFFICIENT_SCOPE, INVALID_AUTH } from '../helpers/api-assertions.js';

/**
 * Authentication on the management endpoints, in both modes: every credential problem is the same
 * 401, a read-only secret writing is 403, and authentication comes before validation.
 */
describe.each(MODES)('authentication of management endpoints (%s mode)', (mode) => {
  let api: ApiHarness;

  beforeAll(async () => {
    api = await startApi(mode);
  });
  afterAll(async () => {
    await api?.stop();
  });

  /** An app of the account, created through the API, for its `svc_live_…` key. */
  async function apiKeyOf(owner: TestAccount): Promise<string> {
    const res = await api.request('POST', '/v1/apps', { headers: owner.auth, body: { name: 'Key holder' } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.apiKey).toMatch(/^svc_live_/);
    return res.body.apiKey;
  }

  /** The secret id of the account's first secret, for DELETE paths. */
  async function firstSecretId(owner: TestAccount): Promise<string> {
    const res = await api.request('GET', '/v1/client-secrets', { headers: owner.auth });
    return res.body[0].id;
  }

  const ENDPOINTS = [
    { method: 'GET', path: () => '/v1/client-secrets', body: undefined },
    { method: 'POST', path: () => '/v1/client-secrets', body: { label: 'would be created' } },
    { method: 'DELETE', path: (id: string) => `/v1/client-secrets/${id}`, body: undefined },
  ] as const;

  /** Each builds the request headers from a fresh account's secret and one of its apps' API key. */
  const CREDENTIALS: ReadonlyArray<[string, (c: { secret: string; apiKey: string }) => Record<string, string>]> = [
    ['no Authorization header', () => ({})],
    ['an empty Authorization header', () => ({ authorization: '' })],
    ['Bearer with garbage', () => ({ authorization: 'Bearer garbage' })],
    ['Bearer with nothing after it', () => ({ authorization: 'Bearer ' })],
    ['a well-formed but unknown secret', () => ({ authorization: `Bearer svc_cs_${'A'.repeat(43)}` })],
    ['the secret with one character changed', ({ secret }) => ({ authorization: `Bearer ${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}` })],
    ['the secret without the Bearer scheme', ({ secret }) => ({ authorization: secret })],
    ['the secret with trailing text', ({ secret }) => ({ authorization: `Bearer ${secret} extra` })],
    ['Basic credentials', ({ secret }) => ({ authorization: `Basic ${Buffer.from(`user:${secret}`).toString('base64')}` })],
    ['the secret under the Basic scheme', ({ secret }) => ({ authorization: `Basic ${secret}` })],
    ["an app's API key as Bearer", ({ apiKey }) => ({ authorization: `Bearer ${apiKey}` })],
    ["an app's API key in x-api-key", ({ apiKey }) => ({ 'x-api-key': apiKey })],
    ['the client secret in x-api-key', ({ secret }) => ({ 'x-api-key': secret })],
  ];

  describe.each(ENDPOINTS)('$method /v1/client-secrets…', (endpoint) => {
    it.each(CREDENTIALS)('answers 401 for %s', async (_case, headersFor) => {
      const owner = await api.newAccount();
      const apiKey = await apiKeyOf(owner);
      const path = endpoint.path(await firstSecretId(owner));
      const res = await api.request(endpoint.method, path, { headers: headersFor({ secret: owner.secret, apiKey }), body: endpoint.body });
      expectErrorBody(res, { status: 401, path, message: INVALID_AUTH });
      // Nothing happened: the account still has exactly its one active secret.
      const secrets = (await api.request('GET', '/v1/client-secrets', { headers: owner.auth })).body;
      expect(secrets.map((s: any) => s.revokedAt)).toEqual([null]);
    });
  });

  it('checks credentials before it validates input', async () => {
    expectErrorBody(await api.request('POST', '/v1/client-secrets', { body: { label: '' } }), { status: 401, path: '/v1/client-secrets', message: INVALID_AUTH });
    expectErrorBody(await api.request('GET', '/v1/client-secrets?limit=0'), { status: 401, path: '/v1/client-secrets', message: INVALID_AUTH });
    expectErrorBody(await api.request('DELETE', '/v1/client-secrets/not-a-uuid'), { status: 401, path: '/v1/client-secrets/not-a-uuid', message: INVALID_AUTH });
    const readOnly = await api.newAccount({ scopes: ['read'] });
    expectErrorBody(await api.request('POST', '/v1/client-secrets', { headers: readOnly.auth, body: { label: '' } }), {
      status: 403,
      path: '/v1/client-secrets',
      message: INSUFFICIENT_SCOPE,
    });
  });

  it('lets a read-only secret GET, and answers 403 to its POST and DELETE', async () => {
    const readOnly = await api.newAccount({ scopes: ['read'] });
    const listed = await api.request('GET', '/v1/client-secrets', { headers: readOnly.auth });
    expect(listed.status).toBe(200);
    expect(listed.body[0].scopes).toEqual(['read']);

    expectErrorBody(await api.request('POST', '/v1/client-secrets', { headers: readOnly.auth, body: { label: 'x' } }), {
      status: 403,
      path: '/v1/client-secrets',
      message: INSUFFICIENT_SCOPE,
    });
    const path = `/v1/client-secrets/${listed.body[0].id}`;
    expectErrorBody(await api.request('DELETE', path, { headers: readOnly.auth }), { status: 403, path, message: INSUFFICIENT_SCOPE });
    // Refused writes changed nothing.
    const after = (await api.request('GET', '/v1/client-secrets', { headers: readOnly.auth })).body;
    expect(after.map((s: any) => [s.id, s.revokedAt])).toEqual([[listed.body[0].id, null]]);
  });

  it('lets a write-only secret write but not read', async () => {
    const writeOnly = await api.newAccount({ scopes: ['write'] });
    expectErrorBody(await api.request('GET', '/v1/client-secrets', { headers: writeOnly.auth }), { status: 403, path: '/v1/client-secrets', message: INSUFFICIENT_SCOPE });
    const created = await api.request('POST', '/v1/client-secrets', { headers: writeOnly.auth, body: { label: 'w', scopes: ['write'] } });
    expect(created.status).toBe(201);
  });

  it('refuses a revoked secret on the very next request, though it was just used', async () => {
    const owner = await api.newAccount();
    const second = await api.request('POST', '/v1/client-secrets', { headers: owner.auth, body: { label: 'short-lived' } });
    const victim = { authorization: `Bearer ${second.body.clientSecret}` };
    // Several successful uses: whatever this process caches, it has cached by now.
    for (let i = 0; i < 3; i++) expect((await api.request('GET', '/v1/client-secrets', { headers: victim })).status).toBe(200);

    expect((await api.request('DELETE', `/v1/client-secrets/${second.body.secret.id}`, { headers: owner.auth })).status).toBe(204);

    expectErrorBody(await api.request('GET', '/v1/client-secrets', { headers: victim }), { status: 401, path: '/v1/client-secrets', message: INVALID_AUTH });
    // A revoked secret is not "valid but insufficient": a write is 401 too, not 403.
    expectErrorBody(await api.request('POST', '/v1/client-secrets', { headers: victim, body: { label: 'x' } }), { status: 401, path: '/v1/client-secrets', message: INVALID_AUTH });
    // The other secret of the account is unaffected.
    expect((await api.request('GET', '/v1/client-secrets', { headers: owner.auth })).status).toBe(200);
  });

  it("scopes every secret to its own account: another account's secret id is 404 and nothing leaks", async () => {
    const mine = await api.newAccount();
    const theirs = await api.newAccount();
    const theirId = await firstSecretId(theirs);

    const path = `/v1/client-secrets/${theirId}`;
    expectErrorBody(await api.request('DELETE', path, { headers: mine.auth }), { status: 404, path, message: 'Resource not found' });
    const listed = (await api.request('GET', '/v1/client-secrets', { headers: mine.auth })).body;
    expect(listed.map((s: any) => s.id)).not.toContain(theirId);
    expect((await api.request('GET', '/v1/client-secrets', { headers: theirs.auth })).status).toBe(200);
  });
});
