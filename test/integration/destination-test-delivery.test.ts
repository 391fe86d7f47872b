import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError } from '../helpers/api-assertions.js';
import { MODES, startApi, type ApiHarness } from '../helpers/api-harness.js';
import { appSession, type AppSession } from '../helpers/app-session.js';
import { openApiCheck, type OpenApiCheck } from '../helpers/openapi-check.js';
import { startHttpReceiver, startSmtpReceiver, type ReceivedRequest } from '../helpers/receivers.js';
import { waitFor } from '../helpers/service-process.js';

const LIST = '/v1/apps/{appId}/destinations';
const ONE = '/v1/apps/{appId}/destinations/{destinationId}';
const TEST = '/v1/apps/{appId}/destinations/{destinationId}/test';
/** The secret part of every receiver URL here; it must never come back in a response or a log line. */
const SECRET_PATH = 'T0SECRET/B0SECRET/s3cr3tT0k3nXYZ';

/**
 * `POST …/destinations/{id}/test` (200 and verified on success, 502 with the reason and still
 * unverified on failure) against real receivers on loopback: an HTTP server that answers 200 on
 * `/ok/…` and 500 on `/fail/…`, and an SMTP server.
 */
describe.each(MODES)('destination test delivery (%s)', (mode) => {
  let api: ApiHarness;
  let openapi: OpenApiCheck;
  let receiver: Awaited<ReturnType<typeof startHttpReceiver>>;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let s: AppSession;
  /** Every response body of the suite, for the masking check. */
  const seen: string[] = [];

  beforeAll(async () => {
    receiver = await startHttpReceiver((request) => (request.path.startsWith('/fail/') ? { status: 500, body: `boom at ${request.path}` } : { status: 200, body: 'ok' }));
    smtp = await startSmtpReceiver();
    api = await startApi(mode, { OUTBOUND_ALLOW_PRIVATE: 'true', SMTP_URL: smtp.url, SMTP_FROM: 'alerts@example.com' });
    openapi = await openApiCheck(api);
  });
  afterAll(async () => {
    await api?.stop();
    await receiver?.close();
    await smtp?.close();
  });

  const fresh = async () => {
    s = await appSession(api, openapi, 'Test deliveries');
  };
  const base = () => `/v1/apps/${s.app.id}/destinations`;
  const create = async (body: unknown) => record(await s.ok('POST', base(), LIST, 201, body));
  const record = <T>(body: T): T => {
    seen.push(JSON.stringify(body));
    return body;
  };
  const received = (path: string): ReceivedRequest[] => receiver.requests.filter((r) => r.path === path);

  it('verifies a chat destination after a successful test; the receiver got one message', async () => {
    await fresh();
    const path = `/ok/slack/${SECRET_PATH}`;
    const created = await create({ type: 'slack', label: 'Ops', url: `${receiver.baseUrl}${path}` });
    const before = Date.now();
    const tested = record(await s.ok('POST', `${base()}/${created.id}/test`, TEST, 200));
    expect(tested).toMatchObject({ id: created.id, verified: true, verifiedAt: expect.any(String) });
    expect(Date.parse(tested.verifiedAt)).toBeGreaterThanOrEqual(before - 5);
    expect(record(await s.ok('GET', `${base()}/${created.id}`, ONE, 200))).toEqual(tested);
    const [message, ...more] = received(path);
    expect(more).toEqual([]);
    expect(message!.method).toBe('POST');
    expect(message!.body).toContain('Test alert');
  });

  it('signs a webhook test with the secret shown at creation (Standard Webhooks)', async () => {
    await fresh();
    const path = `/ok/hook/${SECRET_PATH}`;
    const created = await create({ type: 'webhook', label: 'Signed', url: `${receiver.baseUrl}${path}?token=${SECRET_PATH}` });
    record(await s.ok('POST', `${base()}/${created.id}/test`, TEST, 200));
    const request = receiver.requests.find((r) => r.path.startsWith(path))!;
    const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)]));
    const payload = new Webhook(created.signingSecret.slice('whsec_'.length)).verify(request.body, headers) as { type: string };
    expect(payload.type).toBe('alert.test');
  });

  it('502 with the reason when the receiver answers 500; the destination stays unverified', async () => {
    await fresh();
    const created = await create({ type: 'discord', label: 'Broken', url: `${receiver.baseUrl}/fail/${SECRET_PATH}` });
    const res = await s.call('POST', `${base()}/${created.id}/test`);
    seen.push(JSON.stringify(res.body));
    expectError(res, 502, /^Test delivery failed: .*500/);
    expect(record(await s.ok('GET', `${base()}/${created.id}`, ONE, 200))).toMatchObject({ verified: false, verifiedAt: null });
    // The customer's receiver failed, not this service: the request's line is no error (level 50).
    const requestId = res.headers.get('x-request-id');
    const lineOf = () => api.logLines().map((line) => JSON.parse(line) as { requestId?: string; msg: string; level: number; status?: number }).find((line) => line.requestId === requestId && line.status === 502);
    await waitFor(() => Promise.resolve(lineOf() !== undefined), 5_000, 'the request log line');
    expect(lineOf()).toMatchObject({ level: 30, msg: 'request completed' });
  });

  it('a verified destination is unverified again after its url changes, until tested again', async () => {
    await fresh();
    const created = await create({ type: 'slack', label: 'Moves', url: `${receiver.baseUrl}/ok/first/${SECRET_PATH}` });
    record(await s.ok('POST', `${base()}/${created.id}/test`, TEST, 200));
    const moved = record(await s.ok('PATCH', `${base()}/${created.id}`, ONE, 200, { url: `${receiver.baseUrl}/ok/second/${SECRET_PATH}` }));
    expect(moved).toMatchObject({ verified: false, verifiedAt: null });
    expect(record(await s.ok('POST', `${base()}/${created.id}/test`, TEST, 200)).verified).toBe(true);
    expect(received(`/ok/second/${SECRET_PATH}`)).toHaveLength(1);
  });

  it('verifies an e-mail destination after the mail server accepted the test mail', async () => {
    await fresh();
    const created = await create({ type: 'email', label: 'On-call', email: 'oncall@example.com' });
    expect(record(await s.ok('POST', `${base()}/${created.id}/test`, TEST, 200)).verified).toBe(true);
    const mails = smtp.received.filter((m) => !Array.isArray(m.to) && m.to?.text === 'oncall@example.com');
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toMatch(/test/i);
  });

  it('never shows or logs the full url of a destination', () => {
    expect(seen.length).toBeGreaterThan(10);
    for (const body of seen) expect(body).not.toContain(SECRET_PATH);
    const log = api.logLines().join('\n');
    expect(log).toContain('alert delivery attempt failed');
    expect(log).not.toContain(SECRET_PATH);
  });

  describe('with the defaults: private addresses blocked, no mail server', () => {
    let strict: ApiHarness;
    beforeAll(async () => {
      strict = await startApi(mode);
    });
    afterAll(async () => {
      await strict?.stop();
    });

    it('502 for a destination whose address is blocked at delivery, and for e-mail without SMTP', async () => {
      const account = await strict.newAccount();
      const app = (await strict.request('POST', '/v1/apps', { headers: account.auth, body: { name: 'Strict' } })).body.app;
      // Stored directly: creation would refuse this URL, but a name may resolve elsewhere later, and
      // delivery checks the address again on every attempt.
      const { destinations } = strict.container.metadata;
      const common = { appId: app.id, signingSecret: null };
      const blocked = await destinations.create({ ...common, type: 'slack', label: 'Loopback', url: `${receiver.baseUrl}/ok/${SECRET_PATH}`, email: null });
      const mail = await destinations.create({ ...common, type: 'email', label: 'Mail', url: null, email: 'a@example.com' });
      const path = (id: string) => `/v1/apps/${app.id}/destinations/${id}`;
      expectError(await strict.request('POST', `${path(blocked.id)}/test`, { headers: account.auth }), 502, /^Test delivery failed: .*is a loopback address, refused$/);
      expectError(await strict.request('POST', `${path(mail.id)}/test`, { headers: account.auth }), 502, /e-mail is not configured/);
      for (const id of [blocked.id, mail.id]) expect((await strict.request('GET', path(id), { headers: account.auth })).body.verified).toBe(false);
      expect(received(`/ok/${SECRET_PATH}`)).toEqual([]);
      expect(strict.logLines().join('\n')).not.toContain(SECRET_PATH);
    });
  });
});
