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
 *
 * The services and receivers are shared by the block; everything a test looks at is its own: its
 * account and app, receiver paths and mail address that carry its app's id, the response bodies it
 * recorded and the log lines written while it ran (the tests of a file run one at a time). So each
 * test passes alone and in any order.
 */
describe.each(MODES)('destination test delivery (%s)', (mode) => {
  let api: ApiHarness;
  let openapi: OpenApiCheck;
  let receiver: Awaited<ReturnType<typeof startHttpReceiver>>;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;

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

  /** One test's app, and what the test saw: the masking check reads only these. */
  interface Fixture {
    readonly s: AppSession;
    /** Destinations of the test's app. */
    readonly base: string;
    /** A receiver path under `/ok/` or `/fail/` that no other test uses, ending in the secret. */
    path(outcome: 'ok' | 'fail', name: string): string;
    create(body: unknown): Promise<any>;
    /** Keeps a response body for the masking check, and returns it. */
    record<T>(body: T): T;
    /** No body the test recorded and no log line written since it began holds the secret part. */
    expectUrlNeverShown(): void;
    /** Log lines written since the test began. */
    logLines(): string[];
  }

  const fresh = async (): Promise<Fixture> => {
    const firstLine = api.logLines().length;
    const s = await appSession(api, openapi, 'Test deliveries');
    const base = `/v1/apps/${s.app.id}/destinations`;
    const seen: string[] = [];
    const record = <T>(body: T): T => {
      seen.push(JSON.stringify(body));
      return body;
    };
    const logLines = () => api.logLines().slice(firstLine);
    return {
      s,
      base,
      path: (outcome, name) => `/${outcome}/${s.app.id}/${name}/${SECRET_PATH}`,
      create: async (body) => record(await s.ok('POST', base, LIST, 201, body)),
      record,
      logLines,
      expectUrlNeverShown() {
        expect(seen.length).toBeGreaterThan(0);
        for (const body of seen) expect(body).not.toContain(SECRET_PATH);
        expect(logLines().join('\n')).not.toContain(SECRET_PATH);
      },
    };
  };
  const received = (path: string): ReceivedRequest[] => receiver.requests.filter((r) => r.path === path);

  it('verifies a chat destination after a successful test; the receiver got one message', async () => {
    const t = await fresh();
    const path = t.path('ok', 'slack');
    const created = await t.create({ type: 'slack', label: 'Ops', url: `${receiver.baseUrl}${path}` });
    const before = Date.now();
    const tested = t.record(await t.s.ok('POST', `${t.base}/${created.id}/test`, TEST, 200));
    expect(tested).toMatchObject({ id: created.id, verified: true, verifiedAt: expect.any(String) });
    expect(Date.parse(tested.verifiedAt)).toBeGreaterThanOrEqual(before - 5);
    expect(t.record(await t.s.ok('GET', `${t.base}/${created.id}`, ONE, 200))).toEqual(tested);
    const [message, ...more] = received(path);
    expect(more).toEqual([]);
    expect(message!.method).toBe('POST');
    expect(message!.body).toContain('Test alert');
    t.expectUrlNeverShown();
  });

  it('signs a webhook test with the secret shown at creation (Standard Webhooks)', async () => {
    const t = await fresh();
    const path = t.path('ok', 'hook');
    const created = await t.create({ type: 'webhook', label: 'Signed', url: `${receiver.baseUrl}${path}?token=${SECRET_PATH}` });
    t.record(await t.s.ok('POST', `${t.base}/${created.id}/test`, TEST, 200));
    const requests = receiver.requests.filter((r) => r.path.startsWith(path));
    expect(requests).toHaveLength(1);
    const headers = Object.fromEntries(Object.entries(requests[0]!.headers).map(([k, v]) => [k, String(v)]));
    const payload = new Webhook(created.signingSecret.slice('whsec_'.length)).verify(requests[0]!.body, headers) as { type: string };
    expect(payload.type).toBe('alert.test');
    t.expectUrlNeverShown();
  });

  it('502 with the reason when the receiver answers 500; the destination stays unverified', async () => {
    const t = await fresh();
    const created = await t.create({ type: 'discord', label: 'Broken', url: `${receiver.baseUrl}${t.path('fail', 'discord')}` });
    const res = await t.s.call('POST', `${t.base}/${created.id}/test`);
    t.record(res.body);
    expectError(res, 502, /^Test delivery failed: .*500/);
    expect(t.record(await t.s.ok('GET', `${t.base}/${created.id}`, ONE, 200))).toMatchObject({ verified: false, verifiedAt: null });
    // The customer's receiver failed, not this service: the request's line is no error (level 50).
    const requestId = res.headers.get('x-request-id');
    const lineOf = () => t.logLines().map((line) => JSON.parse(line) as { requestId?: string; msg: string; level: number; status?: number }).find((line) => line.requestId === requestId && line.status === 502);
    await waitFor(() => Promise.resolve(lineOf() !== undefined), 5_000, 'the request log line');
    expect(lineOf()).toMatchObject({ level: 30, msg: 'request completed' });
    t.expectUrlNeverShown();
  });

  it('a verified destination is unverified again after its url changes, until tested again', async () => {
    const t = await fresh();
    const created = await t.create({ type: 'slack', label: 'Moves', url: `${receiver.baseUrl}${t.path('ok', 'first')}` });
    t.record(await t.s.ok('POST', `${t.base}/${created.id}/test`, TEST, 200));
    const second = t.path('ok', 'second');
    const moved = t.record(await t.s.ok('PATCH', `${t.base}/${created.id}`, ONE, 200, { url: `${receiver.baseUrl}${second}` }));
    expect(moved).toMatchObject({ verified: false, verifiedAt: null });
    expect(t.record(await t.s.ok('POST', `${t.base}/${created.id}/test`, TEST, 200)).verified).toBe(true);
    expect(received(second)).toHaveLength(1);
    t.expectUrlNeverShown();
  });

  it('verifies an e-mail destination after the mail server accepted the test mail', async () => {
    const t = await fresh();
    const address = `oncall-${t.s.app.id}@example.com`;
    const created = await t.create({ type: 'email', label: 'On-call', email: address });
    expect(t.record(await t.s.ok('POST', `${t.base}/${created.id}/test`, TEST, 200)).verified).toBe(true);
    const mails = smtp.received.filter((m) => !Array.isArray(m.to) && m.to?.text === address);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toMatch(/test/i);
  });

  it('never shows or logs the full url of a destination', async () => {
    const t = await fresh();
    const working = await t.create({ type: 'slack', label: 'Works', url: `${receiver.baseUrl}${t.path('ok', 'slack')}` });
    const failing = await t.create({ type: 'webhook', label: 'Fails', url: `${receiver.baseUrl}${t.path('fail', 'hook')}?token=${SECRET_PATH}` });
    t.record(await t.s.ok('POST', `${t.base}/${working.id}/test`, TEST, 200));
    const res = await t.s.call('POST', `${t.base}/${failing.id}/test`);
    t.record(res.body);
    expectError(res, 502, /^Test delivery failed: .*500/);
    t.record(await t.s.ok('PATCH', `${t.base}/${failing.id}`, ONE, 200, { url: `${receiver.baseUrl}${t.path('fail', 'moved')}` }));
    for (const id of [working.id, failing.id]) t.record(await t.s.ok('GET', `${t.base}/${id}`, ONE, 200));
    t.record(await t.s.ok('GET', t.base, LIST, 200));
    // The failed attempt is logged with the destination's (masked) url: the check below read a line
    // about this destination, not merely a log that never mentioned one.
    const attemptLogged = () => t.logLines().some((line) => line.includes('alert delivery attempt failed') && line.includes(failing.id));
    await waitFor(() => Promise.resolve(attemptLogged()), 5_000, 'the failed attempt log line');
    t.expectUrlNeverShown();
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
      const receiverPath = `/ok/${app.id}/${SECRET_PATH}`;
      const blocked = await destinations.create({ ...common, type: 'slack', label: 'Loopback', url: `${receiver.baseUrl}${receiverPath}`, email: null });
      const mail = await destinations.create({ ...common, type: 'email', label: 'Mail', url: null, email: 'a@example.com' });
      const path = (id: string) => `/v1/apps/${app.id}/destinations/${id}`;
      expectError(await strict.request('POST', `${path(blocked.id)}/test`, { headers: account.auth }), 502, /^Test delivery failed: .*is a loopback address, refused$/);
      expectError(await strict.request('POST', `${path(mail.id)}/test`, { headers: account.auth }), 502, /e-mail is not configured/);
      for (const id of [blocked.id, mail.id]) expect((await strict.request('GET', path(id), { headers: account.auth })).body.verified).toBe(false);
      expect(received(receiverPath)).toEqual([]);
      expect(strict.logLines().join('\n')).not.toContain(SECRET_PATH);
    });
  });
});
