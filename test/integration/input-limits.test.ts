import { randomBytes } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectValidationError } from '../helpers/api-assertions.js';
import { MODES, startApi, type ApiHarness, type TestAccount } from '../helpers/api-harness.js';
import { waitFor } from '../helpers/service-process.js';

/**
 * The limits on input, through the real service in both modes: what cannot be stored exactly is
 * refused with a 400 that says where, what is accepted reads back exactly as sent, no input makes a
 * request or a rule evaluation take more than time linear in its size, a bad credential is refused
 * before the body is read, and the edge answers methods and content types as a browser expects.
 */

const JSON_HEADERS = { 'content-type': 'application/json' };
/** Idempotency records kept per app here: small, so that the bound is reached in a few requests. */
const IDEMPOTENCY_KEYS = 5;

/** JSON text of an event whose data nests `levels` arrays under `a` (built as text: JSON.stringify overflows). */
const deepEventText = (levels: number): string => `{"event":"deep","data":{"a":${'['.repeat(levels)}${']'.repeat(levels)}}}`;
/** An object nested `levels` deep counting itself: nested(1) is `{}`. */
const nested = (levels: number): Record<string, unknown> => (levels <= 1 ? {} : { k: nested(levels - 1) });

describe.each(MODES)('limits on input (%s)', (mode) => {
  let api: ApiHarness;
  let account: TestAccount;
  let app: { id: string };
  let apiKey: string;

  beforeAll(async () => {
    api = await startApi(mode, { IDEMPOTENCY_KEYS_PER_APP: String(IDEMPOTENCY_KEYS) });
    account = await api.newAccount();
    const created = await api.request('POST', '/v1/apps', { headers: account.auth, body: { name: 'Limits' } });
    ({ app, apiKey } = created.body as { app: { id: string }; apiKey: string });
  });
  afterAll(async () => {
    await api?.stop();
  });

  const ingestText = (text: string | Buffer, headers: Record<string, string> = {}) =>
    fetch(`${api.url}/v1/ingest`, { method: 'POST', headers: { ...JSON_HEADERS, 'x-api-key': apiKey, ...headers }, body: text });
  const ingest = (body: unknown, headers: Record<string, string> = {}) => api.request('POST', '/v1/ingest', { headers: { 'x-api-key': apiKey, ...headers }, body });

  /** The stored event with this id, read through the events list once it is there. */
  async function readBack(id: string): Promise<{ data: unknown; metadata: unknown }> {
    let found: { data: unknown; metadata: unknown } | undefined;
    await waitFor(
      async () => {
        const page = await api.request('GET', `/v1/apps/${app.id}/events?limit=100`, { headers: account.auth });
        found = (page.body as { items: Array<{ id: string; data: unknown; metadata: unknown }> }).items.find((e) => e.id === id);
        return found !== undefined;
      },
      15_000,
      `event ${id} to be readable`,
    );
    return { data: found!.data, metadata: found!.metadata };
  }

  async function expectRefused(res: Response, path: string, message: RegExp): Promise<void> {
    expectValidationError({ status: res.status, body: await res.json() }, path, message);
  }

  it('refuses data nested beyond 32 levels, naming the path, and stores 32 levels as sent', async () => {
    const refused = await ingest({ event: 'nested', data: nested(33) });
    expectValidationError(refused, `data${'.k'.repeat(32)}`, /must not nest objects and arrays more than 32 levels deep/);
    const batch = await ingest([{ event: 'ok' }, { event: 'nested', data: { list: [nested(32)] } }]);
    expectValidationError(batch, `1.data.list.0${'.k'.repeat(30)}`, /more than 32 levels/);

    const accepted = await ingest({ event: 'nested', data: nested(32) });
    expect(accepted.status).toBe(202);
    expect((await readBack(accepted.body.events[0].id)).data).toEqual(nested(32));
  });

  it('refuses a body nested 10,000 levels deep with a 400, with and without an Idempotency-Key', async () => {
    for (const headers of [{}, { 'idempotency-key': 'deep-body' }] as Array<Record<string, string>>) {
      await expectRefused(await ingestText(deepEventText(10_000), headers), `data.a${'.0'.repeat(62)}`, /more than 64 levels/);
    }
    // A management body as deep gets the same answer.
    const deepApp = await fetch(`${api.url}/v1/apps`, { method: 'POST', headers: { ...JSON_HEADERS, ...account.auth }, body: `{"name":${'['.repeat(10_000)}${']'.repeat(10_000)}}` });
    expect(deepApp.status).toBe(400);
  });

  it('refuses __proto__ keys, invalid UTF-8, unpaired surrogates and 1e400 with 400 and details, on every route', async () => {
    await expectRefused(await ingestText('{"event":"e","data":{"a":{"__proto__":{"admin":true}}}}'), 'data.a.__proto__', /__proto__ is not allowed/);
    await expectRefused(await ingestText('{"event":"e","__proto__":{"level":"error"}}'), '__proto__', /__proto__ is not allowed/);
    await expectRefused(await ingestText('{"event":"e","metadata":{"__proto__":"x"}}'), 'metadata.__proto__', /__proto__ is not allowed/);
    await expectRefused(await ingestText(Buffer.from('{"event":"e","data":{"s":"caf\xe9"}}', 'latin1')), 'body', /must be valid UTF-8/);
    await expectRefused(await ingestText(Buffer.concat([Buffer.from('{"event":"e","data":{"s":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}}')])), 'body', /UTF-8/);
    await expectRefused(await ingestText('{"event":"e","data":{"s":"a\\ud800b"}}'), 'data.s', /valid Unicode/);
    await expectRefused(await ingestText('{"event":"e","data":{"\\udfff":1}}'), 'data', /keys must be valid Unicode/);
    await expectRefused(await ingestText('[{"event":"e"},{"event":"e","data":{"n":[1,1e400]}}]'), '1.data.n.1', /fits a double/);
    await expectRefused(await ingestText('{"event":"e","metadata":{"n":-1e400}}'), 'metadata.n', /fits a double/);

    const management = (method: string, path: string, text: string) => fetch(`${api.url}${path}`, { method, headers: { ...JSON_HEADERS, ...account.auth }, body: text });
    await expectRefused(await management('POST', '/v1/apps', '{"name":"x","__proto__":{"slug":"admin"}}'), '__proto__', /__proto__/);
    await expectRefused(await management('PUT', `/v1/apps/${app.id}/default-metadata`, '{"n":1e400}'), 'n', /fits a double/);
    await expectRefused(await management('POST', `/v1/apps/${app.id}/events/test`, '{"event":"e","data":{"s":"\\udc00"}}'), 'data.s', /valid Unicode/);
    // None of it was stored.
    expect((await api.request('GET', `/v1/apps/${app.id}/default-metadata`, { headers: account.auth })).body).toEqual({});
  });

  it('reads back exactly what it accepted: any Unicode, control characters, large doubles, empty and dotted keys', async () => {
    const data = {
      text: 'é 中文 🎉 \u0000 \u001f \u2028 "quoted" \\ </script>',
      '': 'empty key',
      'dotted.key': { 'also.dotted': [1, -2.5, 1e308, -1e-308, 5e-324, 9007199254740991] },
      nothing: null,
      flags: [true, false, [], {}],
      long: 'x'.repeat(100_000),
    };
    const metadata = { source: 'sdk 🎉', retries: 2, ratio: 0.1, beta: false };
    const accepted = await ingest({ event: 'exact', data, metadata });
    expect(accepted.status).toBe(202);
    expect(await readBack(accepted.body.events[0].id)).toEqual({ data, metadata });
  });

  it('evaluates numeric rules on a megabyte of digits in linear time, and goes on evaluating', async () => {
    const rules = await Promise.all(
      [
        { field: 'amount', operator: 'greater_than', value: 10 },
        { field: 'amount', operator: 'equals', value: '11' },
      ].map(async (condition) => {
        const res = await api.request('POST', `/v1/apps/${app.id}/notification-rules`, {
          headers: account.auth,
          body: { name: `numeric ${condition.operator}`, eventName: 'payment', enabled: true, conditions: [condition] },
        });
        expect(res.status).toBe(201);
        return res.body.id as string;
      }),
    );
    // The kind of value a quadratic pattern took hours to refuse: a million digits and a letter.
    const hostile = await ingest({ event: 'payment', data: { amount: `${'1'.repeat(1_000_000)}a` } });
    expect(hostile.status).toBe(202);
    const matching = await ingest({ event: 'payment', data: { amount: 11 } });
    expect(matching.status).toBe(202);
    // Evaluated in order: the matching event triggers only once the hostile one was evaluated.
    const triggerCount = async (ruleId: string) => (await api.request('GET', `/v1/apps/${app.id}/notification-rules/${ruleId}`, { headers: account.auth })).body.triggerCount as number;
    await waitFor(async () => (await Promise.all(rules.map(triggerCount))).every((count) => count === 1), 30_000, 'both rules to trigger on the matching event');
  });

  it('answers a bad credential with 401 before the body arrives, without reading or decompressing it', async () => {
    // A gzip bomb: 1 GiB of zeros in about a megabyte. Only its first 64 KiB are ever sent.
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024));
    for (const [path, credential] of [
      ['/v1/ingest', { 'x-api-key': 'svc_live_not-a-real-key-000000000000000000000' }],
      ['/v1/apps', { authorization: 'Bearer svc_cs_not-a-real-secret-0000000000000000000' }],
    ] as const) {
      const { response, bodyFinished } = await sendWithoutFinishing(`${api.url}${path}`, { ...JSON_HEADERS, ...credential, 'content-encoding': 'gzip', 'content-length': String(1024 * 1024) }, bomb.subarray(0, 64 * 1024));
      expect(bodyFinished, 'the body was still unsent').toBe(false);
      expect(response.statusCode).toBe(401);
      expect(JSON.parse(await text(response))).toMatchObject({ statusCode: 401, message: 'Invalid or missing authentication', path });
    }
    // A client that sends its whole body before reading still gets the answer: the rest of the body is
    // read and dropped (never decoded), not cut off under it by a reset.
    const whole = gzipSync(randomBytes(1024 * 1024));
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        fetch(`${api.url}/v1/ingest`, { method: 'POST', headers: { ...JSON_HEADERS, 'content-encoding': 'gzip', 'x-api-key': 'svc_live_not-a-real-key-000000000000000000000' }, body: whole }).then((res) => res.status),
      ),
    );
    expect(answers).toEqual(Array<number>(20).fill(401));
    // With a valid key the body is read, and the decoded size is what counts.
    const tooLarge = await ingestText(bomb, { 'content-encoding': 'gzip' });
    expect(tooLarge.status).toBe(413);
  });

  it('answers what node refuses before any route (a head over 16 KiB) and a malformed path with the standard body', async () => {
    const longQuery = await fetch(`${api.url}/v1/apps/${app.id}/events?type=${'q'.repeat(17_000)}`, { headers: account.auth });
    expect(longQuery.status).toBe(431);
    expect(longQuery.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await longQuery.json()).toMatchObject({ statusCode: 431, error: 'Request Header Fields Too Large', path: `/v1/apps/${app.id}/events` });
    for (const path of [`/v1/apps/%/events`, '/v1/apps/%E0%A4%A/schemas', `/v1/apps/${app.id}/schemas/by-event-name/%FF%FE`]) {
      const res = await api.request('GET', path, { headers: account.auth });
      expectValidationError(res, 'path', /percent-encoded/);
    }
  });

  it('refuses a batch whose timestamps fall on more than 31 days, naming the first event beyond', async () => {
    const at = (day: number, hour: number) => ({ event: 'backfill', timestamp: new Date(Date.UTC(2024, 0, 1 + day, hour)).toISOString() });
    // A month and a day of backfill, one event a day: the 32nd day is one too many.
    const thirtyTwo = Array.from({ length: 32 }, (_, day) => at(day, 12));
    expectValidationError(await ingest(thirtyTwo), '31.timestamp', /must fall on at most 31 distinct days/);
    // 31 days, each at its first and last hour, are one request's worth.
    const thirtyOne = await ingest(Array.from({ length: 31 }, (_, day) => [at(day, 0), at(day, 23)]).flat());
    expect(thirtyOne.status).toBe(202);
  });

  it('answers a known path asked with another method with 405 and Allow, and says nosniff on every response', async () => {
    const cases = [
      ['GET', '/v1/ingest', 'POST'],
      ['DELETE', '/v1/apps', 'GET, HEAD, POST'],
      ['PUT', `/v1/apps/${app.id}`, 'DELETE, GET, HEAD, PATCH'],
      ['POST', '/v1/openapi.json', 'GET, HEAD'],
      ['DELETE', '/metrics', 'GET, HEAD'],
      // A concrete path is not served by the templated one beside it (`…/{ruleId}` has GET).
      ['GET', `/v1/apps/${app.id}/notification-rules/preview`, 'POST'],
    ] as const;
    for (const [method, path, allow] of cases) {
      const res = await api.request(method, path, { headers: account.auth });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get('allow')).toBe(allow);
      expect(res.body).toMatchObject({ statusCode: 405, error: 'Method Not Allowed', path });
    }
    const answers = [
      await ingest({ event: 'sniff' }),
      await ingest({ event: 'bad name!' }),
      await api.request('POST', '/v1/ingest', { body: { event: 'x' } }),
      await api.request('GET', '/v1/apps', { headers: account.auth }),
      await api.request('GET', '/v1/no-such-thing', { headers: account.auth }),
      await api.request('DELETE', '/v1/apps', { headers: account.auth }),
      await api.request('GET', '/healthz'),
      await api.request('GET', '/'),
    ];
    expect(answers.map((res) => res.status)).toEqual([202, 400, 401, 200, 404, 405, 200, expect.any(Number)]);
    for (const res of answers) expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it(`keeps ${IDEMPOTENCY_KEYS} idempotency records per app, forgetting the oldest first`, async () => {
    const other = (await api.request('POST', '/v1/apps', { headers: account.auth, body: { name: 'Other' } })).body as { apiKey: string };
    const send = (key: string, appKey = apiKey) => api.request('POST', '/v1/ingest', { headers: { 'x-api-key': appKey, 'idempotency-key': key }, body: { event: 'idem' } });
    // One after another: "oldest" is the order the records were made in.
    const first: Array<Awaited<ReturnType<typeof send>>> = [];
    for (let i = 0; i <= IDEMPOTENCY_KEYS; i++) first.push(await send(`key-${i}`));
    expect(first.map((res) => res.status)).toEqual(Array<number>(IDEMPOTENCY_KEYS + 1).fill(202));
    // Another app's records are its own: they neither count toward this bound nor replay here.
    expect((await send('key-1', other.apiKey)).headers.get('idempotent-replayed')).toBeNull();

    const newest = await send(`key-${IDEMPOTENCY_KEYS}`);
    expect(newest.headers.get('idempotent-replayed')).toBe('true');
    expect(newest.body).toEqual(first.at(-1)!.body);
    const oldest = await send('key-0');
    expect(oldest.status).toBe(202);
    expect(oldest.headers.get('idempotent-replayed')).toBeNull();
    expect(oldest.body.events[0].id).not.toBe(first[0]!.body.events[0].id);
  });
});

/**
 * Sends the headers and the first part of a body whose Content-Length promises more, and resolves with
 * the response the server gave meanwhile. `bodyFinished` says whether the body was ever completed
 * (it never is: the request is destroyed once the response has been read).
 */
function sendWithoutFinishing(url: string, headers: Record<string, string>, firstPart: Buffer): Promise<{ response: IncomingMessage; bodyFinished: boolean }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers, agent: false });
    req.on('response', (response) => resolve({ response, bodyFinished: req.writableFinished }));
    req.on('error', reject);
    req.write(firstPart);
  });
}

function text(response: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => (body += chunk));
    response.on('end', () => resolve(body));
    response.on('error', reject);
  });
}
