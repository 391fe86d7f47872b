import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { startApi, type ApiHarness } from '../helpers/api-harness.js';
import { generateClientSecret } from '../../src/domain/credentials.js';
import { isolatedDistributedEnv } from '../helpers/distributed-env.js';
import { stackControl } from '../helpers/stack-control.js';
import { PrivateRedis } from '../helpers/private-redis.js';
import { readAllIds } from '../helpers/read-events.js';
import { startHttpReceiver } from '../helpers/receivers.js';
import { isAlive, startService, waitFor, type ServiceProcess } from '../helpers/service-process.js';

/**
 * "202 means durable", against the real stack and real failures: Kafka stopped, ClickHouse stopped,
 * the worker killed. This suite stops and starts shared services, so it relies on the integration
 * project running files one at a time (vitest.config.ts), and always restarts what it stopped.
 */

interface Sent {
  accepted: string[];
  statuses: number[];
  /** Milliseconds each 503 took to arrive. */
  unavailableMs: number[];
  retryAfter: Array<string | null>;
}

const newRecord = (): Sent => ({ accepted: [], statuses: [], unavailableMs: [], retryAfter: [] });

/** Sends batches back to back until `until(sent)` says stop, recording into `sent` as it goes. */
/**
 * Sends batches one after another until `until` says stop, at most one request per `intervalMs`
 * (0: as fast as answers come). A pace keeps the number of events, and so the time to read them all
 * back, the same on a fast machine as on a slow one.
 */
async function ingestLoop(url: string, apiKey: string, sent: Sent, until: (sent: Sent) => boolean, batchSize = 20, intervalMs = 0): Promise<Sent> {
  let n = 0;
  let next = Date.now();
  while (!until(sent)) {
    const wait = next - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    next = Date.now() + intervalMs;
    const body = Array.from({ length: batchSize }, () => ({ event: 'tick', data: { n: n++ } }));
    const started = Date.now();
    const res = await fetch(`${url}/v1/ingest`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const json = (await res.json()) as { events?: Array<{ id: string }> };
    sent.statuses.push(res.status);
    if (res.status === 202) sent.accepted.push(...json.events!.map((e) => e.id));
    if (res.status === 503) {
      sent.unavailableMs.push(Date.now() - started);
      sent.retryAfter.push(res.headers.get('retry-after'));
    }
  }
  return sent;
}

function expectExactlyOnce(read: string[], accepted: string[]): void {
  expect(new Set(read).size).toBe(read.length);
  const readSet = new Set(read);
  expect(accepted.filter((id) => !readSet.has(id))).toEqual([]);
}

describe('ingest durability (distributed)', () => {
  const harnesses: ApiHarness[] = [];
  afterAll(async () => {
    await stackControl('up', 'kafka', 'clickhouse');
    for (const h of harnesses) await h.stop();
  });

  async function appOn(api: ApiHarness) {
    const account = await api.newAccount();
    const res = await api.request('POST', '/v1/apps', { headers: account.auth, body: { name: 'Durable' } });
    expect(res.status).toBe(201);
    return { account, appId: res.body.app.id as string, apiKey: res.body.apiKey as string };
  }

  /** An app whose rule sends every `alarm` event to a webhook receiver of the test's own. */
  async function alarmedAppOn(api: ApiHarness) {
    const app = await appOn(api);
    const receiver = await startHttpReceiver();
    onTestFinished(() => receiver.close());
    const { auth } = app.account;
    const destination = await api.request('POST', `/v1/apps/${app.appId}/destinations`, { headers: auth, body: { type: 'webhook', label: 'on call', url: `${receiver.baseUrl}/hook` } });
    expect(destination.status).toBe(201);
    const rule = await api.request('POST', `/v1/apps/${app.appId}/notification-rules`, { headers: auth, body: { name: 'Alarm', eventName: 'alarm', actions: [{ destinationId: destination.body.id }] } });
    expect(rule.status).toBe(201);
    return { ...app, receiver };
  }

  it('answers 503 fast with Retry-After while Kafka is down, and loses nothing that got a 202', async () => {
    const api = await startApi('distributed');
    harnesses.push(api);
    const { account, appId, apiKey } = await appOn(api);

    const sent = newRecord();
    let statusesBeforeRecovery = Number.POSITIVE_INFINITY;
    // Runs until five requests were accepted after Kafka came back. Paced: a 503 comes back in about
    // a millisecond, and a loop unpaced would pass the account's budget (1,000 requests a second)
    // and get 429s on a fast machine.
    const loop = ingestLoop(api.url, apiKey, sent, (s) => s.statuses.slice(statusesBeforeRecovery).filter((x) => x === 202).length >= 5, 20, 2);
    await waitFor(() => Promise.resolve(sent.accepted.length > 0), 10_000, 'events accepted before the outage');
    await stackControl('down', 'kafka');
    await waitFor(() => Promise.resolve(sent.unavailableMs.length >= 10), 30_000, 'ten 503s during the outage');
    await stackControl('up', 'kafka');
    statusesBeforeRecovery = sent.statuses.length;
    await loop;

    expect(sent.statuses.filter((s) => s !== 202 && s !== 503)).toEqual([]);
    expect(sent.unavailableMs.length).toBeGreaterThan(2);
    // After the first failure the breaker answers at once; only probes wait for the broker.
    const fast = sent.unavailableMs.filter((ms) => ms < 250).length;
    expect(fast / sent.unavailableMs.length).toBeGreaterThan(0.5);
    expect(sent.retryAfter.every((r) => r !== null && Number(r) > 0)).toBe(true);
    expect(sent.statuses.at(-1)).toBe(202);

    await waitFor(async () => (await readAllIds(api.url, appId, account.auth)).length >= sent.accepted.length, 60_000, 'every accepted event');
    expectExactlyOnce(await readAllIds(api.url, appId, account.auth), sent.accepted);
  }, 120_000);

  it('keeps answering 202 and alerting while ClickHouse is down for 30 s, and every event appears after it returns', async () => {
    const api = await startApi('distributed', { OUTBOUND_ALLOW_PRIVATE: 'true' });
    harnesses.push(api);
    const { account, appId, apiKey, receiver } = await alarmedAppOn(api);

    await stackControl('down', 'clickhouse');
    const stoppedAt = Date.now();
    // About 40 requests a second for 30 s: some 24,000 events to read back, whatever the machine's speed.
    const loop = ingestLoop(api.url, apiKey, newRecord(), () => Date.now() - stoppedAt > 30_000, 20, 25);
    // Alerting does not wait for the event store: an alarm sent during the outage is delivered during it.
    const alarm = await api.request('POST', '/v1/ingest', { headers: { 'x-api-key': apiKey }, body: { event: 'alarm' } });
    expect(alarm.status).toBe(202);
    await waitFor(() => Promise.resolve(receiver.requests.length > 0), 20_000, 'the alarm alert while ClickHouse is down');
    const alertedAfterMs = Date.now() - stoppedAt;
    const sent = await loop;
    await stackControl('up', 'clickhouse');
    expect(alertedAfterMs).toBeLessThan(30_000);
    expect(JSON.parse(receiver.requests[0]!.body).data.event.id).toBe(alarm.body.events[0].id);

    expect(sent.statuses.every((s) => s === 202)).toBe(true);
    expect(sent.accepted.length).toBeGreaterThan(100);
    await waitFor(async () => (await readAllIds(api.url, appId, account.auth)).length >= sent.accepted.length + 1, 90_000, 'every event after ClickHouse returned');
    expectExactlyOnce(await readAllIds(api.url, appId, account.auth), [...sent.accepted, alarm.body.events[0].id]);
    // Retries of the batches that failed while ClickHouse was down found the alert delivered: one alert.
    expect(receiver.requests).toHaveLength(1);
    // 30 s of outage, then the worker's retry backoff and the catch-up: well past the default timeout.
  }, 180_000);

  it('stores events while Redis is down, and alerts on them once it is back', async () => {
    // A Redis of the test's own: the shared one is not the stack's to stop.
    const redis = await PrivateRedis.start();
    let redisDown = false;
    const api = await startApi('distributed', { REDIS_URL: redis.url, OUTBOUND_ALLOW_PRIVATE: 'true' }).catch(async (error: unknown) => {
      await redis.dispose();
      throw error;
    });
    // Redis comes back before the service stops, whatever happened, so that it can stop cleanly.
    onTestFinished(async () => {
      if (redisDown) await redis.restart();
      await api.stop();
      await redis.dispose();
    });
    const { account, appId, apiKey, receiver } = await alarmedAppOn(api);

    await redis.stop();
    redisDown = true;
    const ingestStarted = Date.now();
    const sent = await ingestLoop(api.url, apiKey, newRecord(), (s) => s.statuses.length >= 20, 20, 25);
    const alarm = await api.request('POST', '/v1/ingest', { headers: { 'x-api-key': apiKey }, body: { event: 'alarm' } });
    expect(sent.statuses.every((status) => status === 202)).toBe(true);
    // Answered without waiting on Redis: the cache versions it would give are read from the database
    // instead. (Each request used to wait for Redis's next reconnect attempt to fail, 3 to 4 s.)
    expect(Date.now() - ingestStarted).toBeLessThan(21 * 1000);
    expect(alarm.status).toBe(202);
    const accepted = [...sent.accepted, alarm.body.events[0].id as string];
    // Storing does not use Redis: every event is readable while it is down; rule state lives there,
    // so the alarm's alert waits for it.
    await waitFor(async () => (await readAllIds(api.url, appId, account.auth)).length >= accepted.length, 60_000, 'every event stored while Redis is down');
    expectExactlyOnce(await readAllIds(api.url, appId, account.auth), accepted);
    expect(receiver.requests).toEqual([]);

    await redis.restart();
    redisDown = false;
    await waitFor(() => Promise.resolve(receiver.requests.length > 0), 60_000, 'the alarm alert once Redis is back');
    expect(JSON.parse(receiver.requests[0]!.body).data.event.id).toBe(alarm.body.events[0].id);
  }, 180_000);

  it('shows every event exactly once after the worker is killed mid-stream and restarted', async () => {
    const isolated = await isolatedDistributedEnv('kill');
    const secret = generateClientSecret();
    const serviceEnv = { ...isolated.env, BOOTSTRAP_CLIENT_SECRET: secret };
    const processes: ServiceProcess[] = [];
    try {
      const apiProcess = await startService(serviceEnv, ['api']);
      processes.push(apiProcess);
      let worker = await startService(serviceEnv, ['worker']);
      processes.push(worker);
      const auth = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
      const created = await fetch(`${apiProcess.url}/v1/apps`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Killed' }) });
      const { app, apiKey } = (await created.json()) as { app: { id: string }; apiKey: string };

      const accepted: string[] = [];
      const total = 20_000;
      let killed = false;
      for (let i = 0; i < total / 100; i++) {
        const body = Array.from({ length: 100 }, (_, n) => ({ event: 'stream', data: { n: i * 100 + n } }));
        const res = await fetch(`${apiProcess.url}/v1/ingest`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        expect(res.status).toBe(202);
        accepted.push(...((await res.json()) as { events: Array<{ id: string }> }).events.map((e) => e.id));
        if (!killed && i === 80) {
          // Mid-stream, with batches in flight: no chance to commit or say goodbye.
          expect(await worker.stop('SIGKILL')).toBe('SIGKILL');
          killed = true;
        }
        if (killed && i === 120) {
          worker = await startService(serviceEnv, ['worker']);
          processes.push(worker);
        }
      }
      expect(accepted).toHaveLength(total);
      await waitFor(async () => (await readAllIds(apiProcess.url, app.id, auth)).length >= total, 120_000, 'all 20,000 events', 1_000);
      const read = await readAllIds(apiProcess.url, app.id, auth);
      expect(read).toHaveLength(total);
      expectExactlyOnce(read, accepted);
      // 20,000 events, a session timeout and a rebalance: past the default timeout on a loaded machine.
    } finally {
      for (const p of processes) await p.stop('SIGTERM');
      await isolated.cleanup();
    }
  }, 240_000);
});

describe('ingest durability (embedded)', () => {
  it('finds every event that got a 202 after the process is killed right after answering, and restarted', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'eas-killed-'));
    const secret = generateClientSecret();
    const env = { DATA_DIR: dataDir, BOOTSTRAP_CLIENT_SECRET: secret };
    const auth = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
    let service = await startService(env);
    onTestFinished(async () => {
      await service.stop('SIGTERM');
      rmSync(dataDir, { recursive: true, force: true });
    });
    const created = await fetch(`${service.url}/v1/apps`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'Killed' }) });
    const { app, apiKey } = (await created.json()) as { app: { id: string }; apiKey: string };

    // 64 clients send 20-event batches; the 300th 202 kills the process on the spot, with requests
    // in flight and the accepted events still on their way to chDB.
    const accepted: string[] = [];
    let answered = 0;
    const killAfter = 300;
    const victim = service;
    const client = async (c: number): Promise<void> => {
      for (let i = 0; isAlive(victim); i++) {
        const body = Array.from({ length: 20 }, (_, n) => ({ event: 'stream', data: { c, i, n } }));
        let res: Response;
        try {
          res = await fetch(`${victim.url}/v1/ingest`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        } catch {
          return; // the process is gone
        }
        if (res.status !== 202) continue;
        accepted.push(...((await res.json()) as { events: Array<{ id: string }> }).events.map((e) => e.id));
        if (++answered === killAfter) victim.child.kill('SIGKILL');
      }
    };
    await Promise.all(Array.from({ length: 64 }, (_, c) => client(c)));
    expect(await victim.stop()).toBe('SIGKILL');
    expect(answered).toBeGreaterThanOrEqual(killAfter);

    service = await startService(env);
    await waitFor(async () => (await readAllIds(service.url, app.id, auth)).length >= accepted.length, 60_000, `all ${accepted.length} accepted events`, 500);
    expectExactlyOnce(await readAllIds(service.url, app.id, auth), accepted);
  }, 120_000);
});
