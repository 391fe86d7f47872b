import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { EventAlertingClient, type ClientOptions, type Drop } from '../../clients/js/src/index.js';
import { createTestApp } from '../helpers/api-assertions.js';
import { apiWithAccount } from '../helpers/api-harness.js';
import { waitFor } from '../helpers/service-process.js';
import { stackControl } from '../helpers/stack-control.js';
import { uniqueName } from '../helpers/stack-env.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The client library (clients/js) against the real service in distributed mode: batches by size and by
 * time, gzip bodies, one Idempotency-Key per batch kept across its retries, a Kafka outage ridden out
 * without losing or doubling an event, drops reported, and what is queued sent when a process ends.
 */
describe('the client library (clients/js)', () => {
  const s = apiWithAccount('distributed');
  afterAll(() => stackControl('up', 'kafka'));

  /** Every request the client made, as the service answered it. */
  interface Sent {
    readonly key: string;
    readonly encoding: string | null;
    readonly events: number;
    readonly status: number | 'network error';
  }

  function recordingFetch(sent: Sent[]): typeof fetch {
    return async (input, init) => {
      const headers = new Headers(init?.headers);
      const body = Buffer.from(init!.body as ArrayBuffer);
      const events = (JSON.parse((headers.get('content-encoding') === 'gzip' ? gunzipSync(body) : body).toString('utf8')) as unknown[]).length;
      const record = { key: headers.get('idempotency-key') ?? '', encoding: headers.get('content-encoding'), events };
      try {
        const res = await fetch(input, init);
        sent.push({ ...record, status: res.status });
        return res;
      } catch (err) {
        sent.push({ ...record, status: 'network error' });
        throw err;
      }
    };
  }

  async function appWithClient(options: Partial<ClientOptions> = {}): Promise<{ appId: string; client: EventAlertingClient; sent: Sent[]; drops: Drop[] }> {
    const { app, apiKey } = await createTestApp(s.api, s.account, { name: uniqueName('client') });
    const sent: Sent[] = [];
    const drops: Drop[] = [];
    const client = new EventAlertingClient({ baseUrl: s.api.url, apiKey, fetch: recordingFetch(sent), onDrop: (d) => drops.push(d), flushOnExit: false, ...options });
    return { appId: app.id, client, sent, drops };
  }

  /**
   * The service's warnings and errors, the last `count` of them: what a failure to store accepted
   * events says about its pipeline (a consumer that stopped, a store that refused).
   */
  function serviceWarnings(count = 20): string {
    return s.api
      .logLines()
      .filter((line) => (JSON.parse(line) as { level: number }).level >= 40)
      .slice(-count)
      .join('\n');
  }

  async function readAll(appId: string, expected: number): Promise<Array<{ id: string; data: { n?: number } }>> {
    let items: Array<{ id: string; data: { n?: number } }> = [];
    try {
      await waitFor(
        async () => {
          items = [];
          let cursor: string | null = null;
          do {
            const page = await s.api.request('GET', `/v1/apps/${appId}/events?limit=100${cursor ? `&cursor=${cursor}` : ''}`, { headers: s.account.auth });
            items.push(...page.body.items);
            cursor = page.body.nextCursor;
          } while (cursor);
          return items.length >= expected;
        },
        60_000,
        `${expected} events readable`,
      );
    } catch (err) {
      throw new Error(`${(err as Error).message} (${items.length} readable); the service's last warnings and errors:\n${serviceWarnings()}`, { cause: err });
    }
    return items;
  }

  it('sends full batches, in order, gzip-compressed, each with a key of its own', async () => {
    const { appId, client, sent, drops } = await appWithClient({ maxBatchSize: 100, flushIntervalMs: 60_000 });
    // One at a time, and many at once.
    for (let n = 0; n < 150; n++) expect(client.track({ event: 'batch.test', data: { n } })).toBe(true);
    expect(client.track(Array.from({ length: 100 }, (_, i) => ({ event: 'batch.test', data: { n: 150 + i } })))).toBe(true);
    await client.flush();
    expect(sent.map((s) => [s.events, s.status, s.encoding])).toEqual([
      [100, 202, 'gzip'],
      [100, 202, 'gzip'],
      [50, 202, 'gzip'],
    ]);
    expect(new Set(sent.map((s) => s.key)).size).toBe(3);
    expect(drops).toEqual([]);
    const events = await readAll(appId, 250);
    expect(events.map((e) => e.data.n).sort((a, b) => a! - b!)).toEqual(Array.from({ length: 250 }, (_, n) => n));
    await client.close();
  });

  it('sends a lone event once it waited flushIntervalMs, without a flush', async () => {
    const { appId, client, sent } = await appWithClient({ flushIntervalMs: 50 });
    client.track({ event: 'lone.event' });
    await readAll(appId, 1);
    expect(sent.map((s) => s.events)).toEqual([1]);
    await client.close();
  });

  it('retries a batch through a Kafka outage under the same key, and stores every event once', { timeout: 180_000 }, async () => {
    const { appId, client, sent, drops } = await appWithClient({ maxBatchSize: 10, retryBaseMs: 100, retryMaxMs: 1000, maxRetries: 100 });
    await stackControl('down', 'kafka');
    for (let n = 0; n < 30; n++) client.track({ event: 'outage.test', data: { n } });
    const flushed = client.flush();
    await waitFor(() => Promise.resolve(sent.filter((s) => s.status === 503).length >= 3), 60_000, 'three 503s during the outage');
    await stackControl('up', 'kafka');
    await flushed;

    expect(drops).toEqual([]);
    const accepted = sent.filter((s) => s.status === 202);
    expect(accepted.map((s) => s.events)).toEqual([10, 10, 10]);
    // The first batch was retried under its own key until accepted.
    const first = sent[0]!.key;
    expect(sent.filter((s) => s.key === first).map((s) => s.status).at(-1)).toBe(202);
    expect(sent.filter((s) => s.key === first).length).toBeGreaterThan(1);
    expect(sent.every((s) => s.status === 202 || s.status === 503)).toBe(true);
    const events = await readAll(appId, 30);
    expect(events).toHaveLength(30);
    expect(new Set(events.map((e) => e.data.n)).size).toBe(30);
    await client.close();
  });

  it('reports what it drops: past a full queue, and what the service refuses', async () => {
    const { appId, client, drops } = await appWithClient({ maxQueueSize: 2, flushIntervalMs: 60_000 });
    expect(client.track({ event: 'kept.one' })).toBe(true);
    expect(client.track({ event: 'not a valid name!' })).toBe(true);
    expect(client.track({ event: 'over.the.bound' })).toBe(false);
    await client.flush();
    expect(drops.map((d) => [d.reason, d.events.map((e) => e.event)])).toEqual([
      ['queue_full', ['over.the.bound']],
      ['refused', ['kept.one', 'not a valid name!']],
    ]);
    expect(drops[1]!.message).toContain('400: 1.event: must be 1 to 200 characters');
    expect(client.dropped).toBe(3);
    expect((await s.api.request('GET', `/v1/apps/${appId}/events`, { headers: s.account.auth })).body.items).toEqual([]);
    await client.close();
    expect(client.track({ event: 'after.close' })).toBe(false);
    expect(drops.at(-1)).toEqual({ events: [{ event: 'after.close' }], reason: 'closed', message: 'the client is closed' });

    // Several at once: those that fit are queued, the rest reported.
    const small = await appWithClient({ maxQueueSize: 1, flushIntervalMs: 60_000 });
    expect(small.client.track([{ event: 'fits' }, { event: 'does.not' }])).toBe(false);
    expect(small.client.pending).toBe(1);
    expect(small.drops.map((d) => [d.reason, d.events.map((e) => e.event)])).toEqual([['queue_full', ['does.not']]]);
    await small.client.close();
    await readAll(small.appId, 1);
  });

  it('sends what is queued when a Node process ends without flushing', async () => {
    const { app, apiKey } = await createTestApp(s.api, s.account, { name: uniqueName('client-exit') });
    const dir = path.join(ROOT, 'test-artifacts', `client-exit-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    try {
      writeFileSync(
        path.join(dir, 'main.mts'),
        `import { EventAlertingClient } from ${JSON.stringify(path.join(ROOT, 'clients/js/src/index.ts'))};
const client = new EventAlertingClient({ baseUrl: process.env.BASE_URL!, apiKey: process.env.API_KEY!, flushIntervalMs: 60_000 });
for (let n = 0; n < 5; n++) client.track({ event: 'at.exit', data: { n } });
`,
      );
      await run(process.execPath, ['--import', 'tsx', path.join(dir, 'main.mts')], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', BASE_URL: s.api.url, API_KEY: apiKey } });
      expect(await readAll(app.id, 5)).toHaveLength(5);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
