import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp } from '../helpers/api-assertions.js';
import { MODES, startApi, type ApiHarness } from '../helpers/api-harness.js';

/**
 * Every request has an id, echoed in `X-Request-Id`, that every log line written while it is handled
 * carries (the error handler's and a service's too); exactly one line per request at info (error for
 * a 5xx), probes and accepted ingest requests at debug; no credential in any line.
 */

interface LogLine {
  level: number;
  msg: string;
  requestId?: string;
  method?: string;
  route?: string;
  path?: string;
  status?: number;
  durationMs?: number;
  contentLength?: number;
  [field: string]: unknown;
}

const INFO = 30;
const DEBUG = 20;
const ERROR = 50;

describe.each(MODES)('request logs (%s)', (mode) => {
  let api: ApiHarness;

  beforeAll(async () => {
    api = await startApi(mode);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await api?.stop();
  });

  const lines = (): LogLine[] => api.logLines().map((line) => JSON.parse(line) as LogLine);
  const linesOf = (requestId: string): LogLine[] => lines().filter((line) => line.requestId === requestId);
  const requestLines = (requestId: string): LogLine[] => linesOf(requestId).filter((line) => line.msg === 'request completed' || line.msg === 'request failed');

  /**
   * The request line is written when the response closes, which can be a moment after the client
   * has read it: wait for it rather than assume it is there.
   */
  async function requestLineOf(requestId: string): Promise<LogLine> {
    await vi.waitFor(() => expect(requestLines(requestId)).toHaveLength(1), { timeout: 5_000, interval: 20 });
    return requestLines(requestId)[0]!;
  }

  it('writes one info line per request, with the request id it echoes, the route and no query string', async () => {
    const account = await api.newAccount();
    const { app, apiKey } = await createTestApp(api, account, { name: 'Logged requests' });
    const cursorish = 'c'.repeat(40);
    const res = await api.request('GET', `/v1/apps/${app.id}/events?limit=5&cursor=${cursorish}`, { headers: account.auth });
    const requestId = res.headers.get('x-request-id');
    expect(requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);

    const line = await requestLineOf(requestId!);
    expect(line).toMatchObject({
      level: INFO,
      msg: 'request completed',
      method: 'GET',
      route: '/v1/apps/:appId/events',
      path: `/v1/apps/${app.id}/events`,
      status: res.status,
      contentLength: expect.any(Number),
      durationMs: expect.any(Number),
    });
    expect(JSON.stringify(line)).not.toContain(cursorish);
    expect(JSON.stringify(line)).not.toContain('authorization');

    // Ingest: also exactly one line, and the id differs per request. Accepted events are routine
    // traffic, at debug; a refused ingest request is at info like any other.
    const ingest = await api.request('POST', '/v1/ingest', { headers: { 'x-api-key': apiKey }, body: [{ event: 'a' }, { event: 'b' }] });
    expect(ingest.status).toBe(202);
    const ingestId = ingest.headers.get('x-request-id')!;
    expect(ingestId).not.toBe(requestId);
    expect(await requestLineOf(ingestId)).toMatchObject({ level: DEBUG, method: 'POST', route: '/v1/ingest', status: 202 });
    const refused = await api.request('POST', '/v1/ingest', { headers: { 'x-api-key': apiKey }, body: { event: '' } });
    expect(refused.status).toBe(400);
    expect(await requestLineOf(refused.headers.get('x-request-id')!)).toMatchObject({ level: INFO, route: '/v1/ingest', status: 400 });
    // The same through Express (another spelling of the path reaches the route there), and OTLP's ingest route.
    const viaExpress = await api.request('POST', '/v1/ingest/', { headers: { 'x-api-key': apiKey }, body: { event: 'c' } });
    expect(viaExpress.status).toBe(202);
    expect(await requestLineOf(viaExpress.headers.get('x-request-id')!)).toMatchObject({ level: DEBUG, route: '/v1/ingest', status: 202 });
    const otlp = await api.request('POST', '/v1/otlp/v1/logs', { headers: { 'x-api-key': apiKey }, body: { resourceLogs: [] } });
    expect(otlp.status).toBe(200);
    expect(await requestLineOf(otlp.headers.get('x-request-id')!)).toMatchObject({ level: DEBUG, route: '/v1/otlp/v1/logs', status: 200 });
    const otlpRefused = await api.request('POST', '/v1/otlp/v1/logs', { headers: { 'x-api-key': 'svc_live_nope' }, body: { resourceLogs: [] } });
    expect(otlpRefused.status).toBe(401);
    expect(await requestLineOf(otlpRefused.headers.get('x-request-id')!)).toMatchObject({ level: INFO, route: '/v1/otlp/v1/logs', status: 401 });

    // Unmatched paths are requests too: one line, no route template.
    const missing = await api.request('GET', '/nowhere?secret=1');
    expect(missing.status).toBe(404);
    const missingLine = await requestLineOf(missing.headers.get('x-request-id')!);
    expect(missingLine).toMatchObject({ level: INFO, path: '/nowhere', status: 404 });
    expect(missingLine.route).toBeUndefined();
  });

  it('keeps a safe incoming X-Request-Id and replaces an unsafe one', async () => {
    const kept = await api.request('GET', '/v1/apps', { headers: { 'x-request-id': 'lb-7f3a.42_x' } });
    expect(kept.status).toBe(401);
    expect(kept.headers.get('x-request-id')).toBe('lb-7f3a.42_x');
    expect(await requestLineOf('lb-7f3a.42_x')).toMatchObject({ level: INFO, status: 401 });

    for (const unsafe of ['a'.repeat(129), 'has space', 'quote"d', '{"json":1}']) {
      const res = await api.request('GET', '/v1/apps', { headers: { 'x-request-id': unsafe } });
      const echoed = res.headers.get('x-request-id')!;
      expect(echoed).not.toBe(unsafe);
      expect(echoed).toMatch(/^[0-9a-f-]{36}$/);
      await requestLineOf(echoed);
      expect(api.logLines().join('\n')).not.toContain(unsafe.length > 100 ? unsafe : `"${unsafe}"`);
    }
  });

  it("tags the error handler's and the services' lines of a failing request with its id, in one error line", async () => {
    const account = await api.newAccount();
    const { apiKey } = await createTestApp(api, account, { name: 'Failing requests' });

    // An unexpected failure: the error handler logs it and answers 500.
    vi.spyOn(api.container.services.authenticator, 'authenticate').mockRejectedValueOnce(new Error('simulated authenticator crash'));
    const crashed = await api.request('GET', '/v1/apps', { headers: account.auth });
    expect(crashed.status).toBe(500);
    const crashId = crashed.headers.get('x-request-id')!;
    const crashLine = await requestLineOf(crashId);
    expect(crashLine).toMatchObject({ level: ERROR, msg: 'request failed', status: 500, route: '/v1/apps' });
    const unhandled = lines().filter((line) => line.msg === 'unhandled error');
    expect(unhandled.length).toBeGreaterThan(0);
    expect(unhandled.at(-1)).toMatchObject({ level: ERROR, requestId: crashId, method: 'GET', path: '/v1/apps' });
    expect(JSON.stringify(unhandled.at(-1))).toContain('simulated authenticator crash');

    // A service that logs with the logger it got at start (not the request's): its line, written
    // after the body was parsed and across awaits, still carries the request id.
    vi.spyOn(api.container.sink, 'publish').mockRejectedValueOnce(new Error('simulated bus failure'));
    const refused = await api.request('POST', '/v1/ingest', { headers: { 'x-api-key': apiKey }, body: { event: 'lost' } });
    expect(refused.status).toBe(503);
    const refusedId = refused.headers.get('x-request-id')!;
    expect(await requestLineOf(refusedId)).toMatchObject({ level: ERROR, status: 503 });
    const serviceLine = linesOf(refusedId).find((line) => line.msg === 'ingest could not be made durable');
    expect(serviceLine, JSON.stringify(linesOf(refusedId))).toMatchObject({ level: 40 });
    // Lines outside any request carry no request id; no line carries it twice.
    api.container.logger.info('outside any request');
    expect(lines().find((line) => line.msg === 'outside any request')?.requestId).toBeUndefined();
    expect(api.logLines().filter((line) => line.split('"requestId":').length > 2)).toEqual([]);
  });

  it('writes one line, marked aborted, for a request whose client went away before its answer', async () => {
    const account = await api.newAccount();
    const { apiKey } = await createTestApp(api, account, { name: 'Abandoned requests' });
    // Half a body, then the connection goes: the service never gets to answer. `Expect: 100-continue`
    // makes node say when it has the request, so that the connection is lost after that, not before.
    const { hostname, port } = new URL(api.url);
    const socket = connect(Number(port), hostname);
    await once(socket, 'connect');
    const requestId = `abandoned-${Date.now()}`;
    socket.write(
      `POST /v1/ingest HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nX-Api-Key: ${apiKey}\r\nX-Request-Id: ${requestId}\r\nExpect: 100-continue\r\nContent-Length: 100\r\n\r\n`,
    );
    const [interim] = (await once(socket, 'data')) as [Buffer];
    expect(interim.toString('latin1')).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
    socket.write('{"event":');
    socket.destroy();
    const line = await requestLineOf(requestId);
    expect(line).toMatchObject({ method: 'POST', route: '/v1/ingest', aborted: true });
  });

  it('logs probes at debug, still one line each', async () => {
    for (const probe of ['/healthz', '/readyz', '/metrics']) {
      const res = await api.request('GET', probe);
      expect(res.status).toBe(200);
      expect(await requestLineOf(res.headers.get('x-request-id')!)).toMatchObject({ level: DEBUG, path: probe, status: 200 });
    }
  });

  it('never logs an API key or a client secret, nor the headers that carry them', async () => {
    const account = await api.newAccount();
    const { app, apiKey } = await createTestApp(api, account, { name: 'Secret keeper' });
    const sent = [
      await api.request('POST', '/v1/ingest', { headers: { 'x-api-key': apiKey, cookie: 'session=cookie-value-1234' }, body: { event: 'x' } }),
      await api.request('GET', `/v1/apps/${app.id}?key=${apiKey}`, { headers: account.auth }),
      await api.request('GET', '/v1/apps', { headers: { 'x-api-key': apiKey } }),
      await api.request('POST', '/v1/ingest', { headers: { authorization: `Bearer ${account.secret}` }, body: { event: 'x' } }),
    ];
    for (const res of sent) await requestLineOf(res.headers.get('x-request-id')!);
    const log = api.logLines().join('\n');
    for (const value of [apiKey, account.secret, apiKey.replace(/^svc_live_/, ''), account.secret.replace(/^svc_cs_/, ''), 'cookie-value-1234']) {
      expect(log.includes(value), `a credential (${value.slice(0, 12)}…) was logged`).toBe(false);
    }
  });
});
