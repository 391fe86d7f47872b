import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODES, startApi, type ApiHarness, type TestAccount } from '../helpers/api-harness.js';
import { readAllIds } from '../helpers/read-events.js';
import { waitFor } from '../helpers/service-process.js';

/**
 * One account's hostile traffic must not fail another account's requests. In embedded mode concurrent
 * requests share one INSERT, in distributed mode one produce call: a body that broke the shared write
 * would fail every request that happened to share it. Account A sends every kind of hostile body the
 * service knows of, without pause, while account B sends 1,000 valid requests at once; every one of
 * B's gets its 202 and is stored.
 */

const B_REQUESTS = 1_000;
/** Concurrent hostile senders of account A. */
const A_SENDERS = 4;

interface Hostile {
  readonly name: string;
  readonly body: string | Buffer;
  readonly headers?: Record<string, string>;
  /** The answers that mean "refused as it should be" (or accepted, for a value that is valid but costly). */
  readonly expected: readonly number[];
}

/** Every kind of body that once stalled, broke or altered something, and a few that never should. */
function hostileBodies(): Hostile[] {
  const deep = (levels: number) => `{"event":"deep","data":{"a":${'['.repeat(levels)}${']'.repeat(levels)}}}`;
  return [
    { name: 'nested 10,000 deep', body: deep(10_000), expected: [400] },
    { name: 'nested 4,093 deep', body: deep(4_093), expected: [400] },
    { name: 'nested 33 deep in data', body: `{"event":"deep","data":${'{"k":'.repeat(32)}{}${'}'.repeat(32)}}`, expected: [400] },
    { name: '__proto__', body: '{"event":"proto","data":{"__proto__":{"admin":true}}}', expected: [400] },
    { name: 'invalid UTF-8', body: Buffer.from('{"event":"utf","data":{"s":"\xff\xfe"}}', 'latin1'), expected: [400] },
    { name: 'unpaired surrogate', body: '{"event":"utf","data":{"s":"\\ud800"}}', expected: [400] },
    { name: '1e400', body: '{"event":"num","data":{"n":1e400}}', expected: [400] },
    // Valid, so stored: a megabyte of digits that a numeric rule of A's app evaluates.
    { name: 'a megabyte of digits', body: JSON.stringify({ event: 'payment', data: { amount: `${'9'.repeat(1_000_000)}x` } }), expected: [202] },
    { name: 'malformed JSON', body: '{"event":', expected: [400] },
    { name: '101 events', body: JSON.stringify(Array.from({ length: 101 }, () => ({ event: 'many' }))), expected: [400] },
    { name: 'over 1 MiB', body: JSON.stringify({ event: 'big', data: { s: 'x'.repeat(1_100_000) } }), expected: [413] },
    { name: 'gzip bomb', body: gzipSync(Buffer.alloc(32 * 1024 * 1024)), headers: { 'content-encoding': 'gzip' }, expected: [413] },
  ];
}

describe.each(MODES)('tenant isolation under hostile load (%s)', (mode) => {
  let api: ApiHarness;

  beforeAll(async () => {
    // The per-account budget is not what is tested here: B's burst of 1,000 must not meet it.
    api = await startApi(mode, { RATE_LIMIT_POINTS: '1000000' });
  });
  afterAll(async () => {
    await api?.stop();
  });

  async function newApp(account: TestAccount, name: string): Promise<{ id: string; apiKey: string }> {
    const res = await api.request('POST', '/v1/apps', { headers: account.auth, body: { name } });
    expect(res.status).toBe(201);
    return { id: res.body.app.id, apiKey: res.body.apiKey };
  }

  it(`stores all of account B's ${B_REQUESTS} concurrent requests while account A sends hostile bodies`, async ({ annotate }) => {
    const [a, b] = [await api.newAccount(), await api.newAccount()];
    const [appA, appB] = [await newApp(a, 'Hostile'), await newApp(b, 'Innocent')];
    const rule = await api.request('POST', `/v1/apps/${appA.id}/notification-rules`, {
      headers: a.auth,
      body: { name: 'numeric', eventName: 'payment', enabled: true, conditions: [{ field: 'amount', operator: 'greater_than', value: 10 }] },
    });
    expect(rule.status).toBe(201);

    const hostile = hostileBodies();
    const unexpected: string[] = [];
    let hostileSent = 0;
    let bDone = false;
    const sendHostile = async (sender: number): Promise<void> => {
      for (let i = sender; !bDone; i++) {
        const h = hostile[i % hostile.length]!;
        const res = await fetch(`${api.url}/v1/ingest`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': appA.apiKey, ...h.headers }, body: h.body });
        await res.arrayBuffer();
        hostileSent++;
        if (!h.expected.includes(res.status)) unexpected.push(`${h.name}: ${res.status}`);
      }
    };
    const attackers = Array.from({ length: A_SENDERS }, (_, sender) => sendHostile(sender));
    // The hostile stream is under way before B starts.
    await waitFor(() => Promise.resolve(hostileSent >= hostile.length), 30_000, 'the hostile stream to start');

    const bStarted = Date.now();
    const answers = await Promise.all(
      Array.from({ length: B_REQUESTS }, async (_, i) => {
        const res = await fetch(`${api.url}/v1/ingest`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': appB.apiKey }, body: JSON.stringify({ event: 'order.created', data: { i } }) });
        return { status: res.status, body: (await res.json()) as { events?: Array<{ id: string }> } };
      }),
    );
    bDone = true;
    await Promise.all(attackers);

    const statuses = answers.reduce<Record<number, number>>((counts, { status }) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});
    const figures = `B: ${JSON.stringify(statuses)} in ${Date.now() - bStarted} ms; A sent ${hostileSent} hostile bodies meanwhile`;
    console.log(`tenant-isolation figures (${mode})`, figures);
    await annotate(figures);
    expect(statuses).toEqual({ 202: B_REQUESTS });
    expect(unexpected).toEqual([]);
    const accepted = answers.map(({ body }) => body.events![0]!.id).sort();
    await waitFor(async () => (await readAllIds(api.url, appB.id, b.auth)).length >= B_REQUESTS, 60_000, `B's ${B_REQUESTS} events to be readable`);
    expect((await readAllIds(api.url, appB.id, b.auth)).sort()).toEqual(accepted);
  });
});
