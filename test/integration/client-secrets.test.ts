import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODES, startApi, type ApiHarness, type TestAccount } from '../helpers/api-harness.js';
import { expectErrorBody, INSUFFICIENT_SCOPE } from '../helpers/api-assertions.js';
import { openApiCheck, type OpenApiCheck } from '../helpers/openapi-check.js';
import { waitFor } from '../helpers/service-process.js';

/** POST/GET/DELETE /v1/client-secrets, through the real service in both modes. */
describe.each(MODES)('client secrets (%s mode)', (mode) => {
  let api: ApiHarness;
  let openapi: OpenApiCheck;
  /** Every secret value seen in this suite: none may ever appear in the service's log. */
  const seenSecrets: string[] = [];

  beforeAll(async () => {
    // The write-only test creates a webhook destination; loopback stands in for a receiver.
    api = await startApi(mode, { OUTBOUND_ALLOW_PRIVATE: 'true' });
    openapi = await openApiCheck(api);
  });
  afterAll(async () => {
    await api?.stop();
  });

  async function account(scopes?: ('read' | 'write')[]): Promise<TestAccount> {
    const created = await api.newAccount(scopes ? { scopes } : {});
    seenSecrets.push(created.secret);
    return created;
  }

  async function createSecret(owner: { auth: Record<string, string> }, body: unknown): Promise<{ status: number; body: any }> {
    const res = await api.request('POST', '/v1/client-secrets', { headers: owner.auth, body });
    if (res.status === 201) seenSecrets.push(res.body.clientSecret);
    return res;
  }

  const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });
  const list = (secret: string, query = '') => api.request('GET', `/v1/client-secrets${query}`, { headers: bearer(secret) });
  const revoke = (secret: string, id: string) => api.request('DELETE', `/v1/client-secrets/${id}`, { headers: bearer(secret) });

  describe('POST /v1/client-secrets', () => {
    it('creates a read-write secret by default and shows its value only in this response', async () => {
      const owner = await account();
      const before = Date.now();
      const res = await createSecret(owner, { label: '  ci deploy  ' });

      expect(res.status).toBe(201);
      openapi.assertResponse('POST', '/v1/client-secrets', 201, res.body);
      expect(Object.keys(res.body).sort()).toEqual(['clientSecret', 'secret']);
      const { clientSecret, secret } = res.body;
      // Prefix plus 32 random bytes in base64url: 256 bits.
      expect(clientSecret).toMatch(/^svc_cs_[A-Za-z0-9_-]{43}$/);
      expect(Object.keys(secret).sort()).toEqual(['createdAt', 'hint', 'id', 'label', 'lastUsedAt', 'revokedAt', 'scopes']);
      expect(secret).toMatchObject({ label: 'ci deploy', scopes: ['read', 'write'], hint: `${clientSecret.slice(0, 12)}…`, lastUsedAt: null, revokedAt: null });
      expect(secret.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(Date.parse(secret.createdAt)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(secret.createdAt)).toBeLessThanOrEqual(Date.now() + 1000);

      // The new secret is a working credential of the same account …
      const listed = await list(clientSecret);
      expect(listed.status).toBe(200);
      expect(listed.body.map((s: any) => s.id)).toContain(secret.id);
      // … and no later response carries its value.
      expect(JSON.stringify(listed.body)).not.toContain(clientSecret);
    });

    it('creates a read-only secret that can read but not change anything', async () => {
      const owner = await account();
      const res = await createSecret(owner, { label: 'dashboard viewer', scopes: ['read'] });
      expect(res.status).toBe(201);
      expect(res.body.secret.scopes).toEqual(['read']);
      const readOnly = res.body.clientSecret as string;

      expect((await list(readOnly)).status).toBe(200);
      const path = '/v1/client-secrets';
      expectErrorBody(await api.request('POST', path, { headers: bearer(readOnly), body: { label: 'x' } }), { status: 403, path, message: INSUFFICIENT_SCOPE });
      const deletePath = `/v1/client-secrets/${res.body.secret.id}`;
      expectErrorBody(await api.request('DELETE', deletePath, { headers: bearer(readOnly) }), { status: 403, path: deletePath, message: INSUFFICIENT_SCOPE });
    });

    it('stores scopes in canonical order and accepts a 200-character label', async () => {
      const owner = await account();
      const res = await createSecret(owner, { label: 'l'.repeat(200), scopes: ['write', 'read'] });
      expect(res.status).toBe(201);
      expect(res.body.secret.scopes).toEqual(['read', 'write']);
      expect(res.body.secret.label).toHaveLength(200);
    });

    it('does not let a secret grant a scope it lacks itself', async () => {
      const writeOnly = await account(['write']);
      const path = '/v1/client-secrets';
      expectErrorBody(await createSecret(writeOnly, { label: 'escalate', scopes: ['read', 'write'] }), { status: 403, path, message: INSUFFICIENT_SCOPE });
      // The default is both scopes, so it is refused too.
      expectErrorBody(await createSecret(writeOnly, { label: 'escalate' }), { status: 403, path, message: INSUFFICIENT_SCOPE });
      const allowed = await createSecret(writeOnly, { label: 'same scopes', scopes: ['write'] });
      expect(allowed.status).toBe(201);
      // Write-only itself, so it can create but not list.
      const created = allowed.body.clientSecret as string;
      expect((await api.request('POST', '/v1/apps', { headers: bearer(created), body: { name: 'Made' } })).status).toBe(201);
      expectErrorBody(await list(created), { status: 403, path, message: INSUFFICIENT_SCOPE });
    });

    it('answers a write-only secret with what its writes made (ids, credentials shown once), never the objects', async () => {
      const writer = bearer((await account(['write'])).secret);
      const write = async (method: string, path: string, status: number, body?: unknown) => {
        const res = await api.request(method, path, { headers: writer, ...(body === undefined ? {} : { body }) });
        expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
        return res.body as Record<string, any>;
      };
      const id = expect.stringMatching(/^[0-9a-f-]{36}$/);

      const created = await write('POST', '/v1/apps', 201, { name: 'Write only' });
      expect(created).toEqual({ app: { id }, apiKey: expect.stringMatching(/^svc_live_/) });
      const app = `/v1/apps/${created.app.id}`;
      // A change of nothing would otherwise be a free read of the whole object.
      expect(await write('PATCH', app, 200, {})).toEqual({ id: created.app.id });
      expect(await write('POST', `${app}/keys/rotate`, 200)).toEqual({ app: { id: created.app.id }, apiKey: expect.stringMatching(/^svc_live_/) });
      const schema = await write('POST', `${app}/schemas`, 201, { eventName: 'order.created', fields: [{ name: 'amount', type: 'number', required: true }] });
      expect(schema).toEqual({ id });
      expect(await write('PATCH', `${app}/schemas/${schema.id}`, 200, {})).toEqual({ id: schema.id });
      expect(await write('PUT', `${app}/default-metadata`, 200, { region: 'eu' })).toEqual({ region: 'eu' });
      const hook = await write('POST', `${app}/destinations`, 201, { type: 'webhook', label: 'Hook', url: 'https://127.0.0.1:9/in/abc' });
      expect(hook).toEqual({ id, signingSecret: expect.stringMatching(/^whsec_/) });
      expect(await write('PATCH', `${app}/destinations/${hook.id}`, 200, {})).toEqual({ id: hook.id });
      const rule = await write('POST', `${app}/notification-rules`, 201, { name: 'Big', eventName: 'order.created', actions: [{ destinationId: hook.id }] });
      expect(rule).toEqual({ id });
      expect(await write('PATCH', `${app}/notification-rules/${rule.id}`, 200, {})).toEqual({ id: rule.id });
      expect(await write('POST', `${app}/events/test`, 202, { event: 'order.created', data: { amount: 1 } })).toEqual({ accepted: 1, events: [{ id }] });
      expect(await write('POST', '/v1/client-secrets', 201, { label: 'another', scopes: ['write'] })).toEqual({ clientSecret: expect.stringMatching(/^svc_cs_/), secret: { id } });
      for (const read of [app, `${app}/schemas`, `${app}/notification-rules`, `${app}/events`, `${app}/default-metadata`]) {
        expectErrorBody(await api.request('GET', read, { headers: writer }), { status: 403, path: read, message: INSUFFICIENT_SCOPE });
      }
    });

    it.each([
      ['no label', {}, 'label'],
      ['an empty label', { label: '' }, 'label'],
      ['a blank label', { label: '   ' }, 'label'],
      ['a 201-character label', { label: 'l'.repeat(201) }, 'label'],
      ['a label that is not a string', { label: 42 }, 'label'],
      ['no scopes', { label: 'x', scopes: [] }, 'scopes'],
      ['a repeated scope', { label: 'x', scopes: ['read', 'read'] }, 'scopes'],
      ['an unknown scope', { label: 'x', scopes: ['admin'] }, 'scopes.0'],
      ['scopes as a string', { label: 'x', scopes: 'read' }, 'scopes'],
      ['an unknown field', { label: 'x', owner: 'me' }, 'body'],
      ['an array body', [{ label: 'x' }], 'body'],
      ['a null body', null, 'body'],
    ])('rejects %s with 400 and details', async (_case, body, detailPath) => {
      const owner = await account();
      const res = await createSecret(owner, body);
      expectErrorBody(res, { status: 400, path: '/v1/client-secrets' });
      expect(res.body.details.map((d: any) => d.path)).toContain(detailPath);
      // Nothing was created.
      expect((await list(owner.secret)).body).toHaveLength(1);
    });
  });

  describe('GET /v1/client-secrets', () => {
    it("lists only the caller's secrets, revoked ones included, oldest first, without values or digests", async () => {
      const owner = await account();
      const other = await account();
      const created: any[] = [];
      for (const label of ['one', 'two', 'three']) created.push((await createSecret(owner, { label })).body);
      await createSecret(other, { label: 'not yours' });
      expect((await revoke(owner.secret, created[0].secret.id)).status).toBe(204);

      const res = await list(owner.secret);
      expect(res.status).toBe(200);
      openapi.assertResponse('GET', '/v1/client-secrets', 200, res.body);
      expect(res.body).toHaveLength(4);
      expect(res.body.slice(1).map((s: any) => s.id)).toEqual(created.map((c) => c.secret.id));
      expect(res.body.map((s: any) => s.label)).toEqual(['initial', 'one', 'two', 'three']);
      // Stable order: createdAt, then id.
      const keys = res.body.map((s: any) => `${s.createdAt}|${s.id}`);
      expect([...keys].sort()).toEqual(keys);
      expect(res.body[1].revokedAt).not.toBeNull();
      for (const s of res.body) expect(Object.keys(s).sort()).toEqual(['createdAt', 'hint', 'id', 'label', 'lastUsedAt', 'revokedAt', 'scopes']);
      const text = JSON.stringify(res.body);
      for (const c of created) expect(text).not.toContain(c.clientSecret);
      expect(text).not.toContain(owner.secret);
      expect(text).not.toMatch(/[0-9a-f]{64}/);
    });

    it('pages with limit and offset', async () => {
      const owner = await account();
      for (const label of ['b', 'c', 'd', 'e']) await createSecret(owner, { label });
      const labels = async (query: string) => ((await list(owner.secret, query)).body as any[]).map((s) => s.label);

      expect(await labels('')).toEqual(['initial', 'b', 'c', 'd', 'e']);
      expect(await labels('?limit=2')).toEqual(['initial', 'b']);
      expect(await labels('?limit=2&offset=2')).toEqual(['c', 'd']);
      expect(await labels('?limit=2&offset=4')).toEqual(['e']);
      expect(await labels('?offset=5')).toEqual([]);
      expect(await labels('?limit=1000&offset=0')).toEqual(['initial', 'b', 'c', 'd', 'e']);
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=1001', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=ten', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=x', 'offset'],
      ['page=2', 'query'],
    ])('rejects ?%s with 400 and details', async (query, detailPath) => {
      const owner = await account();
      const res = await list(owner.secret, `?${query}`);
      expectErrorBody(res, { status: 400, path: '/v1/client-secrets' });
      expect(res.body.details.map((d: any) => d.path)).toContain(detailPath);
    });

    it('records when a secret was last used', async () => {
      const owner = await account();
      const { clientSecret, secret } = (await createSecret(owner, { label: 'used' })).body;
      expect((await list(clientSecret)).status).toBe(200);
      // Written off the request path, so it shows up shortly after.
      await waitFor(
        async () => ((await list(owner.secret)).body as any[]).find((s) => s.id === secret.id)?.lastUsedAt !== null,
        10_000,
        'lastUsedAt to be recorded',
      );
      const used = ((await list(owner.secret)).body as any[]).find((s) => s.id === secret.id);
      expect(Date.parse(used.lastUsedAt)).toBeGreaterThanOrEqual(Date.parse(used.createdAt));
    });
  });

  describe('DELETE /v1/client-secrets/{id}', () => {
    it('revokes at once: 204, listed with revokedAt, 401 on the very next request', async () => {
      const owner = await account();
      const { clientSecret, secret } = (await createSecret(owner, { label: 'to revoke' })).body;
      // Used first, so any cache of this process knows it as valid.
      expect((await list(clientSecret)).status).toBe(200);

      const res = await revoke(owner.secret, secret.id);
      expect(res.status).toBe(204);
      expect(res.body).toBeUndefined();
      openapi.assertResponse('DELETE', '/v1/client-secrets/{id}', 204, res.body);

      expectErrorBody(await list(clientSecret), { status: 401, path: '/v1/client-secrets', message: 'Invalid or missing authentication' });
      const listed = ((await list(owner.secret)).body as any[]).find((s) => s.id === secret.id);
      expect(Date.parse(listed.revokedAt)).toBeGreaterThanOrEqual(Date.parse(listed.createdAt));
    });

    it('answers 204 again for an already revoked secret and keeps the first revokedAt', async () => {
      const owner = await account();
      const { secret } = (await createSecret(owner, { label: 'twice' })).body;
      expect((await revoke(owner.secret, secret.id)).status).toBe(204);
      const first = ((await list(owner.secret)).body as any[]).find((s) => s.id === secret.id).revokedAt;
      expect((await revoke(owner.secret, secret.id)).status).toBe(204);
      expect(((await list(owner.secret)).body as any[]).find((s) => s.id === secret.id).revokedAt).toBe(first);
    });

    it('accepts the id in upper case too', async () => {
      const owner = await account();
      const { clientSecret, secret } = (await createSecret(owner, { label: 'upper' })).body;
      expect((await revoke(owner.secret, secret.id.toUpperCase())).status).toBe(204);
      expect((await list(clientSecret)).status).toBe(401);
    });

    it('lets a secret revoke itself while another stays active', async () => {
      const owner = await account();
      const { clientSecret } = (await createSecret(owner, { label: 'stays' })).body;
      const ownId = ((await list(owner.secret)).body as any[]).find((s) => s.label === 'initial').id;
      expect((await revoke(owner.secret, ownId)).status).toBe(204);
      expect((await list(owner.secret)).status).toBe(401);
      expect((await list(clientSecret)).status).toBe(200);
    });

    it("refuses to revoke the account's last active secret with 409", async () => {
      const owner = await account();
      const { secret } = (await createSecret(owner, { label: 'revoked first' })).body;
      expect((await revoke(owner.secret, secret.id)).status).toBe(204);
      const ownId = ((await list(owner.secret)).body as any[]).find((s) => s.label === 'initial').id;

      const path = `/v1/client-secrets/${ownId}`;
      expectErrorBody(await revoke(owner.secret, ownId), { status: 409, path, message: /last active client secret/ });
      // Nothing changed: the secret still works and is not marked revoked.
      const listed = await list(owner.secret);
      expect(listed.status).toBe(200);
      expect((listed.body as any[]).find((s) => s.id === ownId).revokedAt).toBeNull();
    });

    it('lets exactly one of two concurrent revocations of the last two active secrets succeed', async () => {
      // Each round races "A revokes B" against "B revokes A"; without serialisation per account
      // both could pass the "another one stays active" check and lock the account out.
      for (let round = 0; round < 5; round++) {
        const owner = await account();
        const a = { secret: owner.secret, id: ((await list(owner.secret)).body as any[])[0].id as string };
        const created = (await createSecret(owner, { label: 'b' })).body;
        const b = { secret: created.clientSecret as string, id: created.secret.id as string };

        const statuses = (await Promise.all([revoke(a.secret, b.id), revoke(b.secret, a.id)])).map((r) => r.status);
        // The loser gets 409 if it was authenticated before the winner committed, else 401 (its own
        // secret is revoked by then). Never two 204s.
        expect(statuses.filter((s) => s === 204)).toHaveLength(1);
        expect([409, 401]).toContain(statuses.find((s) => s !== 204));
        const [aNow, bNow] = (await Promise.all([list(a.secret), list(b.secret)])).map((r) => r.status);
        expect([aNow, bNow].sort()).toEqual([200, 401]);
        const survivor = aNow === 200 ? a : b;
        const active = ((await list(survivor.secret)).body as any[]).filter((s) => s.revokedAt === null);
        expect(active.map((s) => s.id)).toEqual([survivor.id]);
      }
    });

    it.each([
      ['a secret of another account', 'other'],
      ['an unknown id', '01890a5d-ac96-774b-bcce-b302099a8057'],
      ['a malformed id', 'not-a-uuid'],
    ])('answers 404 for %s, without touching it', async (_case, which) => {
      const owner = await account();
      const other = await account();
      const otherSecret = (await createSecret(other, { label: 'theirs' })).body;
      const id = which === 'other' ? otherSecret.secret.id : which;

      const path = `/v1/client-secrets/${id}`;
      expectErrorBody(await revoke(owner.secret, id), { status: 404, path, message: 'Resource not found' });
      expect((await list(otherSecret.clientSecret)).status).toBe(200);
    });
  });

  it('never writes a secret value to the log', async () => {
    const owner = await account();
    const { clientSecret, secret } = (await createSecret(owner, { label: 'logged?' })).body;
    await list(clientSecret);
    await revoke(owner.secret, secret.id);
    await list(clientSecret);
    const log = api.logLines().join('\n');
    expect(seenSecrets.length).toBeGreaterThanOrEqual(2);
    for (const value of seenSecrets) expect(log).not.toContain(value);
  });
});
