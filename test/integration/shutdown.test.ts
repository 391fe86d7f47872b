import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateClientSecret } from '../../src/domain/credentials.js';
import { isolatedDistributedEnv, type IsolatedDistributedEnv } from '../helpers/distributed-env.js';
import { isAlive, startService, waitFor, type ServiceProcess } from '../helpers/service-process.js';
import { readAllIds } from '../helpers/read-events.js';

/**
 * Graceful shutdown, with real processes: SIGTERM drains HTTP (requests in flight get their real
 * answer, later ones a connection error), flushes pending produce calls, finishes and commits the
 * consumer's batch in progress, and exits 0 within 10 s, in every role, busy or not. And SIGTERM
 * during a load run loses no accepted event.
 */

/** The bound on a graceful shutdown: SIGTERM to exit 0 within 10 s. */
const EXIT_WITHIN_MS = 10_000;
/** Concurrent clients of a load run: enough that several requests are in flight at any moment. */
const CLIENTS = 12;
const EVENTS_PER_REQUEST = 20;

type Outcome = { kind: 'accepted'; at: number } | { kind: 'unavailable' } | { kind: 'connection error'; code: string } | { kind: 'unexpected'; status: number; body: string };

interface Load {
  /** Ids of every event a 202 answered for. */
  readonly accepted: string[];
  readonly outcomes: Outcome[];
  /** Ends the run; resolves once every client has its last answer. */
  stop(): Promise<void>;
  /** Resolves once every client ended (on its own after a connection error, or by stop). */
  readonly done: Promise<void>;
}

/**
 * CLIENTS clients sending ingest batches back to back until stopped. A client that gets a connection
 * error ends: the process it talked to is going or gone.
 */
function startLoad(url: string, apiKey: string): Load {
  const accepted: string[] = [];
  const outcomes: Outcome[] = [];
  let stopped = false;
  let n = 0;
  const client = async (): Promise<void> => {
    while (!stopped) {
      const body = Array.from({ length: EVENTS_PER_REQUEST }, () => ({ event: 'load', data: { n: n++ } }));
      let res: Response;
      let text: string;
      try {
        res = await fetch(`${url}/v1/ingest`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        text = await res.text();
      } catch (err) {
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        outcomes.push({ kind: 'connection error', code: cause?.code ?? cause?.message ?? String(err) });
        return;
      }
      if (res.status === 202) {
        accepted.push(...(JSON.parse(text) as { events: Array<{ id: string }> }).events.map((e) => e.id));
        outcomes.push({ kind: 'accepted', at: Date.now() });
      } else if (res.status === 503) {
        outcomes.push({ kind: 'unavailable' });
      } else {
        outcomes.push({ kind: 'unexpected', status: res.status, body: text });
      }
    }
  };
  const done = Promise.all(Array.from({ length: CLIENTS }, client)).then(() => undefined);
  return {
    accepted,
    outcomes,
    done,
    async stop() {
      stopped = true;
      await done;
    },
  };
}

const acceptedCount = (load: Load): number => load.outcomes.filter((o) => o.kind === 'accepted').length;

/** Waits until the load has had `requests` requests accepted: the service is busy. */
async function busy(load: Load, requests: number): Promise<void> {
  await waitFor(() => Promise.resolve(acceptedCount(load) >= requests), 30_000, `${requests} accepted ingest requests`, 20);
}

/** SIGTERM, then the exit code and how long the exit took. */
async function terminate(service: ServiceProcess): Promise<{ code: number | string; ms: number }> {
  const signalled = Date.now();
  const code = await service.stop('SIGTERM');
  return { code, ms: Date.now() - signalled };
}

function expectCleanExit(service: ServiceProcess, exit: { code: number | string; ms: number }): void {
  expect(exit.code, service.output().slice(-3000)).toBe(0);
  expect(exit.ms).toBeLessThan(EXIT_WITHIN_MS);
  expect(service.output()).toMatch(/"msg":"stopped"/);
  // Drained, not cut off: no connection was still open when the HTTP grace period ended.
  expect(service.output()).not.toMatch(/graceful shutdown took too long|error while stopping|after the grace period/);
}

/** Every outcome is a 202, a 503 or a connection error: nothing else, and no 202 without its ids. */
function expectOnlyKnownOutcomes(load: Load): void {
  expect(load.outcomes.filter((o) => o.kind === 'unexpected')).toEqual([]);
  expect(load.accepted).toHaveLength(acceptedCount(load) * EVENTS_PER_REQUEST);
}

/** Every accepted event is readable, and no event is there twice. */
async function expectEveryAcceptedEventOnce(url: string, appId: string, auth: Record<string, string>, accepted: readonly string[]): Promise<void> {
  await waitFor(async () => (await readAllIds(url, appId, auth)).length >= accepted.length, 60_000, `${accepted.length} accepted events`, 250);
  const read = await readAllIds(url, appId, auth);
  expect(new Set(read).size).toBe(read.length);
  const readSet = new Set(read);
  expect(accepted.filter((id) => !readSet.has(id))).toEqual([]);
}

async function createApp(url: string, auth: Record<string, string>): Promise<{ appId: string; apiKey: string }> {
  const res = await fetch(`${url}/v1/apps`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Shutdown' }) });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { app: { id: string }; apiKey: string };
  return { appId: body.app.id, apiKey: body.apiKey };
}

describe('graceful shutdown on SIGTERM', () => {
  const processes: ServiceProcess[] = [];
  const cleanups: Array<() => Promise<void> | void> = [];
  const started = async (service: Promise<ServiceProcess>): Promise<ServiceProcess> => {
    const s = await service;
    processes.push(s);
    return s;
  };
  afterAll(async () => {
    // Whatever a failed test left running: SIGKILL, the graceful path is what was under test.
    for (const p of processes) if (isAlive(p)) await p.stop('SIGKILL');
    for (const cleanup of cleanups) await cleanup();
  });

  it('distributed: the api under load, then the worker and an all-in-one process while busy, exit 0 in time and lose no accepted event', async () => {
    const isolated: IsolatedDistributedEnv = await isolatedDistributedEnv('shutdown');
    cleanups.push(() => isolated.cleanup());
    const secret = generateClientSecret();
    const env = { ...isolated.env, BOOTSTRAP_CLIENT_SECRET: secret };
    const auth = { authorization: `Bearer ${secret}` };

    const [api, worker] = await Promise.all([started(startService(env, ['api'])), started(startService(env, ['worker']))]);
    const { appId, apiKey } = await createApp(api.url, auth);

    // The API stopped in the middle of a load run: requests in flight are answered, later ones cannot
    // connect, and every 202 is an event the worker stores.
    const first = startLoad(api.url, apiKey);
    await busy(first, 30);
    const signalledAt = Date.now();
    const apiExit = await terminate(api);
    await first.done;
    expectCleanExit(api, apiExit);
    expectOnlyKnownOutcomes(first);
    expect(first.outcomes.filter((o) => o.kind === 'connection error')).toHaveLength(CLIENTS);
    // Requests in flight when the signal came were drained, not cut off.
    expect(first.outcomes.filter((o) => o.kind === 'accepted' && o.at >= signalledAt).length).toBeGreaterThan(0);

    // A new API; the worker is stopped while it consumes a second load run.
    const api2 = await started(startService(env, ['api']));
    const second = startLoad(api2.url, apiKey);
    await busy(second, 30);
    const workerExit = await terminate(worker);
    await second.stop();
    expectCleanExit(worker, workerExit);
    expectOnlyKnownOutcomes(second);
    expect(second.outcomes.filter((o) => o.kind !== 'accepted')).toEqual([]);

    // An all-in-one process takes over consuming: everything accepted so far is there exactly once
    // (what the stopped worker stored, it had committed; the rest it left to its successor).
    const all = await started(startService(env, ['all']));
    await expectEveryAcceptedEventOnce(all.url, appId, auth, [...first.accepted, ...second.accepted]);

    // The all-in-one process stopped while it ingests and consumes.
    const third = startLoad(all.url, apiKey);
    await busy(third, 30);
    const allExit = await terminate(all);
    await third.done;
    expectCleanExit(all, allExit);
    expectOnlyKnownOutcomes(third);

    // Its last accepted events too, read through the remaining API once a worker consumed them.
    const worker2 = await started(startService(env, ['worker']));
    await expectEveryAcceptedEventOnce(api2.url, appId, auth, [...first.accepted, ...second.accepted, ...third.accepted]);
    const [api2Exit, worker2Exit] = await Promise.all([terminate(api2), terminate(worker2)]);
    expectCleanExit(api2, api2Exit);
    expectCleanExit(worker2, worker2Exit);
  }, 120_000);

  it('embedded: exits 0 in time while ingesting, and every accepted event is there after a restart', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'eas-shutdown-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const secret = generateClientSecret();
    const env = { DATA_DIR: dataDir, BOOTSTRAP_CLIENT_SECRET: secret };
    const auth = { authorization: `Bearer ${secret}` };

    const service = await started(startService(env));
    const { appId, apiKey } = await createApp(service.url, auth);
    const load = startLoad(service.url, apiKey);
    await busy(load, 30);
    const exit = await terminate(service);
    await load.done;
    expectCleanExit(service, exit);
    expectOnlyKnownOutcomes(load);

    const restarted = await started(startService(env));
    await expectEveryAcceptedEventOnce(restarted.url, appId, auth, load.accepted);
    expectCleanExit(restarted, await terminate(restarted));
  }, 60_000);
});
