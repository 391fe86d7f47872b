import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSUFFICIENT_SCOPE, INVALID_AUTH, NOT_FOUND, expectError, expectValidationError, readOnlySecretOf } from '../helpers/api-assertions.js';
import { MODES, UNREACHABLE_MAIL_SERVER, startApi, type ApiHarness } from '../helpers/api-harness.js';
import { appSession, foreignAppRefs, type AppSession } from '../helpers/app-session.js';
import { openApiCheck, type OpenApiCheck } from '../helpers/openapi-check.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const LIST = '/v1/apps/{appId}/destinations';
const ONE = '/v1/apps/{appId}/destinations/{destinationId}';

/**
 * Destinations CRUD: shapes, validation, masking, the one-time signing secret, 409 while a rule uses
 * one, app isolation and cascade. Test deliveries: destination-tests.test.ts. No request reaches a
 * receiver here, so the URLs need not listen.
 */
describe.each(MODES)('destinations (%s)', (mode) => {
  let api: ApiHarness;
  let openapi: OpenApiCheck;
  let s: AppSession;

  beforeAll(async () => {
    // Loopback URLs are allowed, as for local receivers; the refusal is tested with a default service.
    api = await startApi(mode, { OUTBOUND_ALLOW_PRIVATE: 'true', ...UNREACHABLE_MAIL_SERVER });
    openapi = await openApiCheck(api);
  });
  afterAll(async () => {
    await api?.stop();
  });

  const fresh = async () => {
    s = await appSession(api, openapi, 'Destinations');
  };
  const base = (appRef = s.app.id) => `/v1/apps/${appRef}/destinations`;
  const create = (body: unknown) => s.ok('POST', base(), LIST, 201, body);
  const slack = { type: 'slack', label: 'Ops channel', url: 'https://127.0.0.1:9/services/T000/B000/XXXXsecret' };

  describe('POST', () => {
    it('creates chat, webhook and e-mail destinations: masked url, unverified, signing secret for webhooks only', async () => {
      await fresh();
      const created = await create(slack);
      expect(created).toEqual({
        id: expect.stringMatching(UUID),
        appId: s.app.id,
        type: 'slack',
        label: 'Ops channel',
        url: 'https://127.0.0.1:9/…',
        email: null,
        verified: false,
        verifiedAt: null,
        createdAt: expect.any(String),
        updatedAt: created.createdAt,
      });
      // Hosts are not restricted per type (self-hosted compatible receivers); the sandbox has no DNS,
      // so provider hosts are left to url-mask's own tests.
      const discord = await create({ type: 'discord', label: 'Discord', url: 'http://127.0.0.1:9/api/webhooks/123/tok3n' });
      expect(discord.url).toBe('http://127.0.0.1:9/…');
      const hook = await create({ type: 'webhook', label: '  Signed  ', url: 'http://localhost:8080/hooks?token=abc' });
      expect(hook).toMatchObject({ label: 'Signed', url: 'http://localhost:8080/…', signingSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) });
      const mail = await create({ type: 'email', label: 'On-call', email: 'oncall@example.com' });
      expect(mail).toMatchObject({ type: 'email', url: null, email: 'oncall@example.com' });
      for (const d of [created, discord, mail]) expect(d).not.toHaveProperty('signingSecret');
    });

    it('shows the signing secret once: never in a read or a list', async () => {
      await fresh();
      const hook = await create({ type: 'webhook', label: 'Signed', url: 'https://127.0.0.1:9/in' });
      const read = await s.ok('GET', `${base()}/${hook.id}`, ONE, 200);
      const { signingSecret: _secret, ...rest } = hook;
      expect(read).toEqual(rest);
      expect(await s.ok('GET', base(s.app.slug), LIST, 200)).toEqual([rest]);
      const stored = await api.container.metadata.destinations.findById(s.app.id, hook.id);
      expect(stored?.signingSecret).toBe(hook.signingSecret);
    });

    it.each([
      ['type', /one of: slack, discord, email, webhook/, { label: 'x', url: 'https://a.example/x' }],
      ['type', /one of/, { type: 'sms', label: 'x' }],
      ['label', /non-empty string/, { type: 'slack', url: 'https://a.example/x' }],
      ['label', /non-empty string/, { type: 'slack', label: ' ', url: 'https://a.example/x' }],
      ['label', /one line/, { type: 'slack', label: 'a\nb', url: 'https://a.example/x' }],
      ['url', /required for type slack/, { type: 'slack', label: 'x' }],
      ['url', /required for type webhook/, { type: 'webhook', label: 'x', email: 'a@example.com' }],
      ['email', /only for type email/, { type: 'discord', label: 'x', url: 'https://a.example/x', email: 'a@example.com' }],
      ['email', /required for type email/, { type: 'email', label: 'x' }],
      ['url', /only for types slack, discord, webhook/, { type: 'email', label: 'x', email: 'a@example.com', url: 'https://a.example/x' }],
      ['email', /e-mail address/, { type: 'email', label: 'x', email: 'not-an-address' }],
      ['url', /http or https URL/, { type: 'slack', label: 'x', url: 'ftp://a.example/x' }],
      ['url', /http or https URL/, { type: 'slack', label: 'x', url: 'not a url' }],
      ['url', /at most 2048/, { type: 'slack', label: 'x', url: `https://a.example/${'x'.repeat(2048)}` }],
      ['body', /Unrecognized key/, { type: 'slack', label: 'x', url: 'https://a.example/x', verified: true }],
    ])('400 naming %s (%s)', async (path, message, body) => {
      await fresh();
      expectValidationError(await s.call('POST', base(), body), path, message);
      expect(await s.ok('GET', base(), LIST, 200)).toEqual([]);
    });

    it('with default settings, refuses a URL whose host is private, and e-mail while no mail server is configured', async () => {
      const strict = await startApi(mode);
      try {
        const account = await strict.newAccount();
        const app = (await strict.request('POST', '/v1/apps', { headers: account.auth, body: { name: 'Strict' } })).body.app;
        for (const url of ['http://127.0.0.1:8080/hook', 'http://10.1.2.3/hook', 'http://[::1]/hook', 'http://169.254.169.254/latest', 'http://localhost/x']) {
          const res = await strict.request('POST', `/v1/apps/${app.id}/destinations`, { headers: account.auth, body: { type: 'webhook', label: 'x', url } });
          expectValidationError(res, 'url');
        }
        // Accepted, it would fail every alert sent to it.
        const mail = await strict.request('POST', `/v1/apps/${app.id}/destinations`, { headers: account.auth, body: { type: 'email', label: 'x', email: 'oncall@example.com' } });
        expectValidationError(mail, 'type', /need a mail server: this service has no SMTP_URL and SMTP_FROM configured/);
        expect((await strict.request('GET', `/v1/apps/${app.id}/destinations`, { headers: account.auth })).body).toEqual([]);
      } finally {
        await strict.stop();
      }
    });
  });

  describe('PATCH', () => {
    it('changes label, url or email; a new url or email resets verification; an unchanged one does not', async () => {
      await fresh();
      const created = await create(slack);
      const url = `${base()}/${created.id}`;
      const verifiedAt = new Date();
      await api.container.metadata.destinations.update(created.id, { verified: true, verifiedAt });
      const relabelled = await s.ok('PATCH', url, ONE, 200, { label: 'Renamed', url: slack.url });
      expect(relabelled).toMatchObject({ label: 'Renamed', url: 'https://127.0.0.1:9/…', verified: true, verifiedAt: verifiedAt.toISOString() });
      const moved = await s.ok('PATCH', url, ONE, 200, { url: 'https://127.0.0.1:9/services/T000/B000/other' });
      expect(moved).toMatchObject({ label: 'Renamed', verified: false, verifiedAt: null });
      expect(Date.parse(moved.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.updatedAt));
      expect((await api.container.metadata.destinations.findById(s.app.id, created.id))?.url).toBe('https://127.0.0.1:9/services/T000/B000/other');

      const mail = await create({ type: 'email', label: 'Mail', email: 'a@example.com' });
      await api.container.metadata.destinations.update(mail.id, { verified: true, verifiedAt });
      expect(await s.ok('PATCH', `${base()}/${mail.id}`, ONE, 200, { email: 'b@example.com' })).toMatchObject({ email: 'b@example.com', verified: false });
      // A no-op PATCH writes nothing.
      expect(await s.ok('PATCH', `${base()}/${mail.id}`, ONE, 200, {})).toEqual(await s.ok('GET', `${base()}/${mail.id}`, ONE, 200));
    });

    it('400 for a type change, a field of the other kind, and invalid values; nothing is applied', async () => {
      await fresh();
      const chat = await create(slack);
      const mail = await create({ type: 'email', label: 'Mail', email: 'a@example.com' });
      expectError(await s.call('PATCH', `${base()}/${chat.id}`, { type: 'discord' }), 400, /type cannot be changed/);
      expectValidationError(await s.call('PATCH', `${base()}/${chat.id}`, { email: 'a@example.com' }), 'email', /not allowed for a slack destination/);
      expectValidationError(await s.call('PATCH', `${base()}/${mail.id}`, { url: 'https://a.example/x' }), 'url', /not allowed for an email destination/);
      expectValidationError(await s.call('PATCH', `${base()}/${chat.id}`, { url: 'gopher://x' }), 'url');
      expectValidationError(await s.call('PATCH', `${base()}/${chat.id}`, { label: '' }), 'label');
      expect(await s.ok('GET', `${base()}/${chat.id}`, ONE, 200)).toEqual(chat);
    });
  });

  describe('DELETE', () => {
    it('deletes; 409 while a rule action (even a disabled one) uses the destination', async () => {
      await fresh();
      const used = await create(slack);
      const rule = (await s.call('POST', `/v1/apps/${s.app.id}/notification-rules`, {
        name: 'Uses it',
        eventName: 'order.created',
        actions: [{ destinationId: used.id, enabled: false }],
      })).body;
      expectError(await s.call('DELETE', `${base()}/${used.id}`), 409, /used by the actions of rule "Uses it"/);
      expect((await s.call('DELETE', `/v1/apps/${s.app.id}/notification-rules/${rule.id}`)).status).toBe(204);
      const res = await s.call('DELETE', `${base()}/${used.id}`);
      expect(res.status).toBe(204);
      openapi.assertResponse('DELETE', ONE, 204, res.body);
      expectError(await s.call('GET', `${base()}/${used.id}`), 404, NOT_FOUND);
      expectError(await s.call('DELETE', `${base()}/${used.id}`), 404, NOT_FOUND);
    });

    it("goes with its app, and only that app's destinations go", async () => {
      await fresh();
      const doomed = await create(slack);
      const keptApp = (await s.call('POST', '/v1/apps', { name: 'Kept' })).body.app;
      const kept = await s.ok('POST', base(keptApp.id), LIST, 201, slack);
      expect((await s.call('DELETE', `/v1/apps/${s.app.id}`)).status).toBe(204);
      const { destinations } = api.container.metadata;
      expect(await destinations.findById(s.app.id, doomed.id)).toBeNull();
      expect(await destinations.findById(keptApp.id, kept.id)).not.toBeNull();
    });
  });

  describe('isolation and credentials', () => {
    it("404 for another app's destination, an unknown or malformed id, and another account's app", async () => {
      await fresh();
      const mine = await create(slack);
      const other = (await s.call('POST', '/v1/apps', { name: 'Other' })).body.app;
      for (const url of [`${base(other.id)}/${mine.id}`, `${base()}/${uuidv7()}`, `${base()}/not-a-uuid`]) {
        expectError(await s.call('GET', url), 404, NOT_FOUND);
        expectError(await s.call('PATCH', url, { label: 'x' }), 404, NOT_FOUND);
        expectError(await s.call('DELETE', url), 404, NOT_FOUND);
        expectError(await s.call('POST', `${url}/test`), 404, NOT_FOUND);
      }
      for (const ref of await foreignAppRefs(api)) {
        expectError(await s.call('GET', base(ref)), 404, NOT_FOUND);
        expectError(await s.call('POST', base(ref), slack), 404, NOT_FOUND);
        expectError(await s.call('GET', `${base(ref)}/${mine.id}`), 404, NOT_FOUND);
      }
      expect(await s.ok('GET', base(other.id), LIST, 200)).toEqual([]);
    });

    it('401 without a client secret or with an API key; 403 for writes with a read-only secret', async () => {
      await fresh();
      const mine = await create(slack);
      const apiKey = (await s.call('POST', '/v1/apps', { name: 'Keyed' })).body.apiKey as string;
      for (const auth of [{}, { 'x-api-key': apiKey }] as Array<Record<string, string>>) {
        expectError(await s.call('GET', base(), undefined, auth), 401, INVALID_AUTH);
        expectError(await s.call('POST', base(), slack, auth), 401, INVALID_AUTH);
      }
      const reader = await readOnlySecretOf(api, s.account);
      expect((await s.call('GET', `${base()}/${mine.id}`, undefined, reader)).status).toBe(200);
      expectError(await s.call('POST', base(), slack, reader), 403, INSUFFICIENT_SCOPE);
      expectError(await s.call('PATCH', `${base()}/${mine.id}`, { label: 'x' }, reader), 403, INSUFFICIENT_SCOPE);
      expectError(await s.call('DELETE', `${base()}/${mine.id}`, undefined, reader), 403, INSUFFICIENT_SCOPE);
      expectError(await s.call('POST', `${base()}/${mine.id}/test`, undefined, reader), 403, INSUFFICIENT_SCOPE);
    });

    it('pages the list in creation order with limit and offset; 400 outside the bounds', async () => {
      await fresh();
      const made = [];
      for (let i = 0; i < 3; i++) made.push(await create({ ...slack, label: `D${i}` }));
      expect((await s.ok('GET', `${base()}?limit=2`, LIST, 200)).map((d: any) => d.label)).toEqual(['D0', 'D1']);
      expect((await s.ok('GET', `${base()}?limit=2&offset=2`, LIST, 200)).map((d: any) => d.id)).toEqual([made[2].id]);
      expectValidationError(await s.call('GET', `${base()}?limit=0`), 'limit');
      expectValidationError(await s.call('GET', `${base()}?offset=-1`), 'offset');
    });
  });
});
