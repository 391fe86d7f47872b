import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT_BYTES } from '../../src/http/json-body.js';
import { MODES, startApi, type ApiHarness, type TestAccount } from '../helpers/api-harness.js';
import { waitFor } from '../helpers/service-process.js';

/** POST /v1/ingest through the real service in both modes: validation, schemas, keys, idempotency, durability. */
describe.each(MODES)('POST /v1/ingest (%s)', (mode) => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi(mode);
  });
  afterAll(async () => {
    await api.stop();
  });

  async function newApp(): Promise<{ account: TestAccount; appId: string; apiKey: string }> {
    const account = await api.newAccount();
    const res = await api.request('POST', '/v1/apps', { headers: account.auth, body: { name: 'Shop' } });
    expect(res.status).toBe(201);
    return { account, appId: res.body.app.id, apiKey: res.body.apiKey };
  }

  const ingest = (apiKey: string, body: unknown, headers: Record<string, string> = {}) =>
    api.request('POST', '/v1/ingest', { headers: { 'x-api-key': apiKey, ...headers }, body });

  async function stored(appId: string) {
    return api.container.events.query({ appId, limit: 1000 });
  }

  it('accepts a single event with 202 and makes it readable', async () => {
    const { appId, apiKey } = await newApp();
    const res = await ingest(apiKey, { event: 'order.created', data: { amount: 42 }, level: 'error', customer_id: 'c-1' });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ accepted: 1, events: [{ id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/) }] });
    await waitFor(async () => (await stored(appId)).length === 1, 10_000, 'the event to be readable');
    const [event] = await stored(appId);
    expect(event).toMatchObject({ id: res.body.events[0].id, event: 'order.created', level: 'error', customerId: 'c-1', data: { amount: 42 } });
  });

  it('answers alike on its own endpoint and through Express (another spelling of the path), gzip bodies included', async () => {
    const { appId, apiKey } = await newApp();
    const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
    const direct = await api.request('POST', '/v1/ingest?source=sdk', { headers, body: { event: 'direct' } });
    const viaExpress = await api.request('POST', '/v1/ingest/', { headers, body: { event: 'via-express' } });
    const gzipped = await fetch(`${api.url}/v1/ingest`, {
      method: 'POST',
      headers: { ...headers, 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify([{ event: 'gzipped' }])),
    });
    expect([direct.status, viaExpress.status, gzipped.status]).toEqual([202, 202, 202]);
    for (const res of [direct, viaExpress]) {
      expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.headers.get('ratelimit')).toMatch(/^"default";r=\d+;t=\d+$/);
    }
    const unauthenticated = await Promise.all(['/v1/ingest', '/v1/ingest/'].map((path) => api.request('POST', path, { body: { event: 'x' } })));
    for (const [res, path] of [[unauthenticated[0]!, '/v1/ingest'], [unauthenticated[1]!, '/v1/ingest/']] as const) {
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ statusCode: 401, error: 'Unauthorized', message: 'Invalid or missing authentication', path });
    }
    await waitFor(async () => (await stored(appId)).length === 3, 10_000, 'the three events');
    expect((await stored(appId)).map((e) => e.event).sort()).toEqual(['direct', 'gzipped', 'via-express']);
  });

  it('accepts a batch of 100 with ids in request order', async () => {
    const { appId, apiKey } = await newApp();
    const batch = Array.from({ length: 100 }, (_, n) => ({ event: 'tick', data: { n } }));
    const res = await ingest(apiKey, batch);
    expect(res.status).toBe(202);
    expect(res.body.accepted).toBe(100);
    const ids: string[] = res.body.events.map((e: { id: string }) => e.id);
    expect([...ids].sort()).toEqual(ids);
    await waitFor(async () => (await stored(appId)).length === 100, 15_000, 'all 100 events');
    const byId = new Map((await stored(appId)).map((e) => [e.id, e]));
    ids.forEach((id, n) => expect(byId.get(id)?.data).toEqual({ n }));
  });

  it('defaults level to info, data to {} and the timestamp to now; keeps a given timestamp', async () => {
    const { appId, apiKey } = await newApp();
    const before = Date.now();
    // Ten days ago, written with an offset (relative to now: one request falls on at most 31 days).
    const tenDaysAgo = new Date(Date.now() - 10 * 86_400_000);
    const given = `${new Date(tenDaysAgo.getTime() + 3_600_000).toISOString().slice(0, 23)}+01:00`;
    const res = await ingest(apiKey, [{ event: 'a' }, { event: 'b', timestamp: given }]);
    expect(res.status).toBe(202);
    await waitFor(async () => (await stored(appId)).length === 2, 10_000, 'both events');
    const events = await stored(appId);
    const a = events.find((e) => e.event === 'a')!;
    expect(a).toMatchObject({ level: 'info', data: {} });
    expect(a.timestamp.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(events.find((e) => e.event === 'b')!.timestamp.toISOString()).toBe(tenDaysAgo.toISOString());
  });

  it("takes an offset written without its colon (Python's %z) as the same instant, in a timestamp and in a read's from and to", async () => {
    const { account, appId, apiKey } = await newApp();
    const at = new Date(Date.now() - 3 * 86_400_000);
    // As Python's strftime('%Y-%m-%dT%H:%M:%S.%f%z') writes it: microseconds and +hhmm.
    const python = (date: Date, offsetHours: number) => {
      const local = new Date(date.getTime() + offsetHours * 3_600_000).toISOString().slice(0, 23);
      return `${local}000${offsetHours < 0 ? '-' : '+'}${String(Math.abs(offsetHours)).padStart(2, '0')}00`;
    };
    expect((await ingest(apiKey, { event: 'py', timestamp: python(at, 2) })).status).toBe(202);
    await waitFor(async () => (await stored(appId)).length === 1, 10_000, 'the event');
    expect((await stored(appId))[0]!.timestamp.toISOString()).toBe(at.toISOString());
    const query = new URLSearchParams({ from: python(new Date(at.getTime() - 1000), 0), to: python(new Date(at.getTime() + 1000), -5) });
    const read = await api.request('GET', `/v1/apps/${appId}/events?${query.toString()}`, { headers: account.auth });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.items.map((e: { event: string }) => e.event)).toEqual(['py']);
  });

  it('merges the app default metadata under the event metadata', async () => {
    const { account, appId, apiKey } = await newApp();
    const put = await api.request('PUT', `/v1/apps/${appId}/default-metadata`, { headers: account.auth, body: { env: 'prod', region: 'eu' } });
    expect(put.status).toBe(200);
    expect((await ingest(apiKey, { event: 'a', metadata: { region: 'us', build: 7 } })).status).toBe(202);
    await waitFor(async () => (await stored(appId)).length === 1, 10_000, 'the event');
    expect((await stored(appId))[0]!.metadata).toEqual({ env: 'prod', region: 'us', build: 7 });
  });

  it.each([
    ['an empty array', [], 'body', 'must hold 1 to 100 events'],
    ['101 events', Array.from({ length: 101 }, () => ({ event: 'a' })), 'body', 'must hold 1 to 100 events'],
    ['an unknown field', { event: 'a', extra: 1 }, 'body', 'extra'],
    ['a bad level', { event: 'a', level: 'fatal' }, 'level', 'must be one of info, warning, error, success'],
    ['a bad event name', { event: 'order created' }, 'event', 'must be 1 to 200 characters'],
    ['no event name', { data: {} }, 'event', 'must be a string'],
    ['data that is an array', { event: 'a', data: [1] }, 'data', 'must be an object'],
    ['a timestamp without zone', { event: 'a', timestamp: '2026-01-01T00:00:00' }, 'timestamp', 'ISO 8601'],
    ['a timestamp 2 days ahead', { event: 'a', timestamp: new Date(Date.now() + 2 * 86_400_000).toISOString() }, 'timestamp', '24 hours in the future'],
    ['nested metadata', { event: 'a', metadata: { a: { b: 1 } } }, 'metadata.a', 'strings, numbers or booleans'],
    ['an empty customer id', { event: 'a', customer_id: '' }, 'customer_id', 'non-empty'],
    ['a bad item in a batch', [{ event: 'a' }, { event: 'b', level: 'nope' }], '1.level', 'must be one of'],
    ['a string body', 'hello', 'body', ''],
  ])('rejects %s with 400 naming the problem', async (_what, body, path, message) => {
    const { appId, apiKey } = await newApp();
    const res = await ingest(apiKey, body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request', path: '/v1/ingest' });
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
    expect(JSON.stringify(res.body.details)).toContain(message);
    expect(await stored(appId)).toEqual([]);
  });

  it('checks events against the registered schema and rejects the whole request', async () => {
    const { account, appId, apiKey } = await newApp();
    const schema = await api.request('POST', `/v1/apps/${appId}/schemas`, {
      headers: account.auth,
      body: {
        eventName: 'order.created',
        fields: [
          { name: 'amount', type: 'number', required: true },
          { name: 'currency', type: 'enum', enumValues: ['EUR', 'USD'] },
        ],
        metadataFields: [{ name: 'env', type: 'string', required: true }],
      },
    });
    expect(schema.status).toBe(201);
    const res = await ingest(apiKey, [
      { event: 'order.created', data: { amount: 1 }, metadata: { env: 'prod' } },
      { event: 'unschematised', data: { anything: true } },
      { event: 'order.created', data: { amount: 'ten', currency: 'GBP' }, metadata: { env: 'prod' } },
      { event: 'order.created', data: { amount: 2 } },
    ]);
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([
      { path: '2.data.amount', message: expect.any(String) },
      { path: '2.data.currency', message: expect.any(String) },
      { path: '3.metadata.env', message: 'is required' },
    ]);
    // Nothing of a rejected request is stored, not even its valid items.
    expect((await ingest(apiKey, { event: 'order.created', data: { amount: 3 }, metadata: { env: 'x' } })).status).toBe(202);
    await waitFor(async () => (await stored(appId)).length === 1, 10_000, 'the one valid request');
    expect((await stored(appId))[0]!.data).toEqual({ amount: 3 });
  });

  it('checks a dotted metadata key a schema declares (`service.name`) as one key', async () => {
    const { account, appId, apiKey } = await newApp();
    const schema = await api.request('POST', `/v1/apps/${appId}/schemas`, {
      headers: account.auth,
      body: { eventName: 'log', fields: [{ name: 'body', type: 'string' }], metadataFields: [{ name: 'service.name', type: 'string', required: true }] },
    });
    expect(schema.status).toBe(201);
    const refused = await ingest(apiKey, [{ event: 'log', metadata: { service: 'checkout' } }, { event: 'log', metadata: { 'service.name': 7 } }]);
    expect(refused.status).toBe(400);
    expect(refused.body.details).toEqual([
      { path: '0.metadata.service.name', message: 'is required' },
      { path: '1.metadata.service.name', message: 'must be a string' },
    ]);
    expect((await ingest(apiKey, { event: 'log', metadata: { 'service.name': 'checkout' } })).status).toBe(202);
  });

  it('requires the app API key and nothing else', async () => {
    const { account, apiKey } = await newApp();
    expect((await api.request('POST', '/v1/ingest', { body: { event: 'a' } })).status).toBe(401);
    expect((await ingest('svc_live_not-a-real-key-but-long-enough-000000000000', { event: 'a' })).status).toBe(401);
    // A client secret is not an ingest credential, and an API key is not a management one.
    const withSecret = await ingest(account.secret, { event: 'a' });
    expect(withSecret.status).toBe(401);
    expect(withSecret.body.message).toBe('Invalid or missing authentication');
    expect((await api.request('GET', '/v1/apps', { headers: { authorization: `Bearer ${apiKey}` } })).status).toBe(401);
  });

  it('refuses the old key from the moment of rotation and accepts the new one', async () => {
    const { account, appId, apiKey } = await newApp();
    expect((await ingest(apiKey, { event: 'a' })).status).toBe(202);
    const rotated = await api.request('POST', `/v1/apps/${appId}/keys/rotate`, { headers: account.auth });
    expect(rotated.status).toBe(200);
    expect((await ingest(apiKey, { event: 'a' })).status).toBe(401);
    expect((await ingest(rotated.body.apiKey, { event: 'a' })).status).toBe(202);
  });

  it('answers a repeated Idempotency-Key with the first response and stores nothing new', async () => {
    const { appId, apiKey } = await newApp();
    const body = [{ event: 'a', data: { n: 1 } }, { event: 'b' }];
    const first = await ingest(apiKey, body, { 'idempotency-key': 'order-77' });
    expect(first.status).toBe(202);
    const again = await ingest(apiKey, body, { 'idempotency-key': 'order-77' });
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');

    const different = await ingest(apiKey, [{ event: 'c' }], { 'idempotency-key': 'order-77' });
    expect(different.status).toBe(409);
    const marker = await ingest(apiKey, { event: 'marker' });
    await waitFor(async () => (await stored(appId)).some((e) => e.id === marker.body.events[0].id), 10_000, 'the marker event');
    expect((await stored(appId)).map((e) => e.event).sort()).toEqual(['a', 'b', 'marker']);
  });

  it('runs concurrent repeats of one Idempotency-Key once', async () => {
    const { appId, apiKey } = await newApp();
    const results = await Promise.all(Array.from({ length: 10 }, () => ingest(apiKey, { event: 'once' }, { 'idempotency-key': 'burst' })));
    const accepted = results.filter((r) => r.status === 202);
    expect(accepted.length).toBeGreaterThanOrEqual(1);
    expect(results.every((r) => r.status === 202 || r.status === 409)).toBe(true);
    expect(new Set(accepted.map((r) => r.body.events[0].id)).size).toBe(1);
    const marker = await ingest(apiKey, { event: 'marker' });
    await waitFor(async () => (await stored(appId)).some((e) => e.id === marker.body.events[0].id), 10_000, 'the marker event');
    expect((await stored(appId)).filter((e) => e.event === 'once')).toHaveLength(1);
  });

  it('rejects an overlong Idempotency-Key', async () => {
    const { apiKey } = await newApp();
    const res = await ingest(apiKey, { event: 'a' }, { 'idempotency-key': 'k'.repeat(256) });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('Idempotency-Key');
  });

  it('answers malformed JSON with 400 and a body over 1 MiB with 413', async () => {
    const { apiKey } = await newApp();
    const malformed = await api.request('POST', '/v1/ingest', { headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, rawBody: '{"event": ' });
    expect(malformed.status).toBe(400);
    const big = await ingest(apiKey, { event: 'a', data: { blob: 'x'.repeat(1024 * 1024) } });
    expect(big.status).toBe(413);
    expect(big.body).toMatchObject({ statusCode: 413, error: 'Payload Too Large' });
  });

  /** An event whose JSON text is exactly `bytes` long: its `blob` pads it. */
  const eventOfSize = (event: string, bytes: number): string => {
    const shell = JSON.stringify({ event, data: { blob: '' } });
    return JSON.stringify({ event, data: { blob: 'x'.repeat(bytes - shell.length) } });
  };

  it.each([
    ['gzip', gzipSync],
    ['deflate', deflateSync],
    ['br', brotliCompressSync],
  ] as const)('reads a %s body, and holds it to the 1 MiB limit once decoded', async (encoding, compress) => {
    const { appId, apiKey } = await newApp();
    const send = (text: string) =>
      fetch(`${api.url}/v1/ingest`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'content-encoding': encoding }, body: compress(text) });

    const atLimit = eventOfSize(`${encoding}-at-limit`, BODY_LIMIT_BYTES);
    expect(Buffer.byteLength(atLimit)).toBe(BODY_LIMIT_BYTES);
    // A few kilobytes on the wire: what counts is the size once decoded.
    expect(compress(atLimit).length).toBeLessThan(BODY_LIMIT_BYTES / 100);
    const accepted = await send(atLimit);
    expect(accepted.status).toBe(202);
    const id = ((await accepted.json()) as { events: Array<{ id: string }> }).events[0]!.id;

    const overLimit = await send(eventOfSize(`${encoding}-over-limit`, BODY_LIMIT_BYTES + 1));
    expect(overLimit.status).toBe(413);
    expect(await overLimit.json()).toMatchObject({ statusCode: 413, error: 'Payload Too Large', message: 'Request body exceeds the 1 MiB limit', path: '/v1/ingest' });

    const corrupt = await fetch(`${api.url}/v1/ingest`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'content-encoding': encoding },
      body: compress(JSON.stringify({ event: 'cut-short' })).subarray(0, 8),
    });
    expect(corrupt.status).toBe(400);
    expect(await corrupt.json()).toMatchObject({ statusCode: 400, path: '/v1/ingest' });

    await waitFor(async () => (await stored(appId)).length === 1, 15_000, `the ${encoding} event to be readable`);
    const [event] = await stored(appId);
    expect(event).toMatchObject({ id, event: `${encoding}-at-limit` });
    expect((event!.data as { blob: string }).blob).toBe((JSON.parse(atLimit) as { data: { blob: string } }).data.blob);
  });
});
