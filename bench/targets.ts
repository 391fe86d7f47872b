import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { topicsFor } from '../src/domain/messages/topics.js';
import { startService, type ServiceEntry, type ServiceProcess } from '../test/helpers/service-process.js';
import { buildService, compiledScript } from './compiled.js';
import type { StackAddresses } from './stack.js';
import { countStoredEvents, createBenchResources } from './stack.js';

/**
 * What a load step is pointed at: the real service in one of its modes, or the bare node:http
 * ceiling. Every target runs in child processes of its own (never inside the benchmark process), so
 * it competes for the cores the way a deployment would, and the benchmark can account its CPU time.
 */

export interface Target {
  readonly url: string;
  readonly apiKey: string;
  /** Null for the bare server, which has no read API: no ingest→readable probe there. */
  readonly reader: { readonly clientSecret: string; readonly appId: string } | null;
  /** Processes of the target by role, for CPU accounting: { api: [pid] }, { service: [pid] }, ... */
  readonly pids: Readonly<Record<string, number>>;
  /** Base URL of each process by role (the roles of `pids`): where a service process serves /metrics. */
  readonly urls: Readonly<Record<string, string>>;
  /** Events stored so far (ClickHouse, or chDB through the service's API). Null for the bare server. */
  readonly storedEvents: (() => Promise<number>) | null;
  /** Distributed mode: the Kafka topic the edge produces to. */
  readonly kafka: { readonly brokers: string[]; readonly eventsTopic: string } | null;
  /** Distributed mode: the ClickHouse server the worker writes to (its counters are read per step). */
  readonly clickhouseUrl: string | null;
  /** Where the service keeps its events, for a benchmark that writes them directly (bench/reads-data.ts); null for the bare server. */
  readonly eventStore: EventStoreLocation | null;
  /** Stops the processes and removes what the target created; safe to call twice. */
  stop(): Promise<void>;
}

/**
 * The events table of a service: a database on the ClickHouse server, or one in chDB's data directory
 * (embedded mode: only while the service is stopped, since chDB allows one data directory per process
 * and the service holds it).
 */
export type EventStoreLocation =
  | { readonly kind: 'clickhouse'; readonly url: string; readonly database: string }
  | { readonly kind: 'chdb'; readonly path: string; readonly database: string };

/**
 * Waits until the target's event store holds `expected` events; resolves with the seconds since
 * `since` (performance.now() milliseconds), or null if the worker did not get there within `timeoutMs`.
 * A target without a store (the bare server) is drained at once.
 */
export async function waitForStored(target: Target, expected: number, since: number, timeoutMs: number): Promise<number | null> {
  if (!target.storedEvents) return 0;
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if ((await target.storedEvents()) >= expected) return (performance.now() - since) / 1000;
    await delay(100);
  }
  return null;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * A request budget no benchmark reaches. The per-account rate limit (RATE_LIMIT_POINTS, 1,000/s by
 * default) protects a shared deployment from one account; here the one account *is* the load, and
 * measuring the limiter's 429s would say nothing about capacity.
 */
const UNLIMITED_RATE = '1000000000';

export interface ServiceSettings {
  /** Extra environment for every service process (NODE_OPTIONS=--cpu-prof ... to profile). */
  readonly extraEnv?: Readonly<Record<string, string>>;
  /**
   * Embedded mode: the DATA_DIR to run on, left in place at stop (its owner removes it), so that a
   * later start finds the same apps and events. By default a fresh temporary one, removed at stop.
   */
  readonly dataDir?: string;
  /** The checkout whose build runs (bench/ab.ts compares another one's with this one); this one by default. */
  readonly root?: string;
  /** `source`: run src/main.ts through tsx instead of the build (bench/ab.ts --base-entry). */
  readonly entry?: ServiceEntry;
}

/** The service as users run it (dist/main.js; compiled.ts says why), built once per benchmark process and checkout; from source when `settings.entry` says so. */
async function startBenchService(env: Record<string, string>, args: string[], settings: ServiceSettings): Promise<ServiceProcess> {
  const { root, entry = 'built' } = settings;
  if (entry === 'built') await buildService(root);
  return startService(env, args, { entry, ...(root === undefined ? {} : { root }) });
}

/** The bare node:http server (bench/bare-server.ts) in its own process. */
export async function startBareServer(): Promise<Target> {
  const child = spawn(process.execPath, [compiledScript('bench/bare-server.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      const match = /"url":"(http:\/\/[^"]+)"/.exec(out);
      if (match) resolve(match[1]!);
    });
    void exited.then(([code]) => reject(new Error(`bench/bare-server.ts exited with ${String(code)} before listening`)));
  });
  let stopping: Promise<void> | undefined;
  return {
    url,
    apiKey: 'bare-server-takes-any-key',
    reader: null,
    pids: { 'bare node:http': child.pid! },
    urls: { 'bare node:http': url },
    storedEvents: null,
    kafka: null,
    clickhouseUrl: null,
    eventStore: null,
    stop: () =>
      (stopping ??= (async () => {
        if (child.exitCode === null) {
          child.kill('SIGTERM');
          await exited;
        }
      })()),
  };
}

/**
 * Embedded mode: the app's events stored so far, counted by the service itself (`total` of
 * GET …/stats/events over the last 12 hours to a minute ahead, where every benchmark event falls): chDB
 * lives inside the service process, and only its API can ask it. The count is exact (an event stored
 * twice counts once), as the ClickHouse count of distributed mode is after the worker's inserts.
 */
async function countStoredThroughApi(url: string, clientSecret: string, appId: string): Promise<number> {
  const now = Date.now();
  const range = `from=${new Date(now - 12 * 3_600_000).toISOString()}&to=${new Date(now + 60_000).toISOString()}&interval=hour`;
  const res = await fetch(`${url}/v1/apps/${appId}/stats/events?${range}`, { headers: { authorization: `Bearer ${clientSecret}` } });
  if (res.status !== 200) throw new Error(`GET …/stats/events answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { total: number }).total;
}

/** A management secret of the form BOOTSTRAP_CLIENT_SECRET wants: svc_cs_ and 32 URL-safe characters. */
function newBootstrapSecret(): string {
  return `svc_cs_${randomBytes(24).toString('base64url')}`;
}

/** One app through the public API, as a user would: its id and its API key. */
export async function createApp(url: string, clientSecret: string, name = 'Benchmark'): Promise<{ appId: string; apiKey: string }> {
  const res = await fetch(`${url}/v1/apps`, {
    method: 'POST',
    headers: { authorization: `Bearer ${clientSecret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  const body = (await res.json()) as { app?: { id: string }; apiKey?: string };
  if (res.status !== 201 || !body.app || !body.apiKey) throw new Error(`POST /v1/apps answered ${res.status}: ${JSON.stringify(body)}`);
  return { appId: body.app.id, apiKey: body.apiKey };
}

/** The database embedded mode keeps its events in, named here so that a benchmark can find them. */
const EMBEDDED_DATABASE = 'event_alerting';

/**
 * Embedded mode: one process, SQLite and chDB in a DATA_DIR: settings.dataDir, or a fresh temporary
 * one removed at stop. Each start registers a new bootstrap secret of the same account, so apps made
 * by an earlier start on the same directory are readable with this one's.
 */
export async function startEmbedded(settings: ServiceSettings): Promise<Target> {
  const dataDir = settings.dataDir ?? mkdtempSync(path.join(tmpdir(), 'eas-bench-'));
  const secret = newBootstrapSecret();
  let service: ServiceProcess | undefined;
  const stop = async (): Promise<void> => {
    await service?.stop('SIGTERM');
    if (settings.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    service = await startBenchService({
      DATA_DIR: dataDir,
      CLICKHOUSE_DATABASE: EMBEDDED_DATABASE,
      BOOTSTRAP_CLIENT_SECRET: secret,
      RATE_LIMIT_POINTS: UNLIMITED_RATE,
      ...settings.extraEnv,
    }, [], settings);
    // The service still writes its line per request (that cost is measured); this process stops keeping them.
    service.stopCapturing();
    const app = await createApp(service.url, secret);
    let stopping: Promise<void> | undefined;
    return {
      url: service.url,
      apiKey: app.apiKey,
      reader: { clientSecret: secret, appId: app.appId },
      pids: { service: service.child.pid! },
      urls: { service: service.url },
      storedEvents: () => countStoredThroughApi(service!.url, secret, app.appId),
      kafka: null,
      clickhouseUrl: null,
      // Where src/container.ts puts chDB's files: DATA_DIR/chdb.
      eventStore: { kind: 'chdb', path: path.join(dataDir, 'chdb'), database: EMBEDDED_DATABASE },
      stop: () => (stopping ??= stop()),
    };
  } catch (err) {
    // The start-up error is the one to report; a clean-up failing after it (Kafka is down) is secondary.
    await stop().catch(() => undefined);
    throw err;
  }
}

/**
 * Distributed mode against the local stack, on a PostgreSQL database, a ClickHouse database, Kafka
 * topics and Redis keys of its own (dropped at stop). `split`: one api and one worker process, the deployed
 * shape; `all`: one process with both roles.
 */
export async function startDistributed(stack: StackAddresses, layout: 'split' | 'all', settings: ServiceSettings): Promise<Target> {
  const resources = await createBenchResources(stack);
  const secret = newBootstrapSecret();
  const env = {
    KAFKA_BROKERS: stack.kafkaBrokers.join(','),
    CLICKHOUSE_URL: stack.clickhouseUrl,
    CLICKHOUSE_DATABASE: resources.clickhouseDatabase,
    KAFKA_TOPIC_PREFIX: resources.topicPrefix,
    REDIS_URL: stack.redisUrl,
    REDIS_KEY_PREFIX: resources.redisKeyPrefix,
    DATABASE_URL: resources.postgres.url,
    BOOTSTRAP_CLIENT_SECRET: secret,
    RATE_LIMIT_POINTS: UNLIMITED_RATE,
    ...settings.extraEnv,
  };
  const processes: Array<{ role: string; service: ServiceProcess }> = [];
  const stop = async (): Promise<void> => {
    // The api first, so nothing new is produced while the worker finishes its batch and commits.
    for (const { service } of processes) await service.stop('SIGTERM');
    await resources.drop();
  };
  try {
    if (layout === 'split') {
      // One after the other: both run the migrations at start, which is safe but slower when racing.
      processes.push({ role: 'api', service: await startBenchService(env, ['api'], settings) });
      processes.push({ role: 'worker', service: await startBenchService(env, ['worker'], settings) });
    } else {
      processes.push({ role: 'service', service: await startBenchService(env, ['all'], settings) });
    }
    // The services still write their line per request (that cost is measured); this process stops keeping them.
    for (const { service } of processes) service.stopCapturing();
    const edge = processes[0]!.service;
    const app = await createApp(edge.url, secret);
    let stopping: Promise<void> | undefined;
    return {
      url: edge.url,
      apiKey: app.apiKey,
      reader: { clientSecret: secret, appId: app.appId },
      pids: Object.fromEntries(processes.map(({ role, service }) => [role, service.child.pid!])),
      urls: Object.fromEntries(processes.map(({ role, service }) => [role, service.url])),
      storedEvents: () => countStoredEvents(stack.clickhouseUrl, resources.clickhouseDatabase),
      kafka: { brokers: stack.kafkaBrokers, eventsTopic: topicsFor(resources.topicPrefix).events },
      clickhouseUrl: stack.clickhouseUrl,
      eventStore: { kind: 'clickhouse', url: stack.clickhouseUrl, database: resources.clickhouseDatabase },
      stop: () => (stopping ??= stop()),
    };
  } catch (err) {
    // The start-up error is the one to report; a clean-up failing after it (Kafka is down) is secondary.
    await stop().catch(() => undefined);
    throw err;
  }
}
