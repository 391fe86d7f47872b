import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedDistributedEnv, type IsolatedDistributedEnv } from '../helpers/distributed-env.js';
import { PrivateClickHouse } from '../helpers/private-clickhouse.js';
import { PrivatePostgres } from '../helpers/private-postgres.js';
import { PrivateRedis } from '../helpers/private-redis.js';
import type { PrivateServer } from '../helpers/private-server.js';
import { stackControl } from '../helpers/stack-control.js';
import { isAlive, startService, waitFor, type ServiceProcess } from '../helpers/service-process.js';

/**
 * Distributed mode against the real local stack. This suite stops and restarts the shared Kafka broker,
 * so it relies on the integration project running files one at a time (vitest.config.ts). ClickHouse,
 * Redis and PostgreSQL are never stopped on the shared stack (other suites use them, and the machine's
 * own Redis and PostgreSQL are not the stack's to stop): each of those cases gives the service a
 * private server of that kind, which only it uses, and stops that one.
 */

interface Readiness {
  status: string;
  failing?: string[];
  checks: Record<string, { ok: boolean; error?: string }>;
}

async function readiness(service: ServiceProcess): Promise<{ status: number; body: Readiness }> {
  const res = await fetch(`${service.url}/readyz`);
  return { status: res.status, body: (await res.json()) as Readiness };
}

/** The check's public verdict: which way it failed, never the driver's words (hosts, ports). */
const PUBLIC_FAILURE = /^(unreachable|no answer within \d+ ms)$/;

/** The `causes` of each "not ready" line the service logged so far, oldest first. */
function notReadyCauses(service: ServiceProcess): Array<Record<string, unknown>> {
  return service
    .output()
    .split('\n')
    .filter((line) => line.includes('"msg":"not ready"'))
    .map((line) => (JSON.parse(line) as { causes: Record<string, unknown> }).causes);
}

const ALL_CHECKS = ['clickhouse', 'kafka', 'postgres', 'redis'];

/**
 * Stops one dependency of a ready service and starts it again: while it is down, /readyz answers 503
 * naming that check alone, in public words, with the driver's own in the log; once it is back, 200.
 */
async function expectOutageReported(service: ServiceProcess, check: string, dependency: { stop(): Promise<void>; restart(): Promise<void> }): Promise<void> {
  const up = await readiness(service);
  expect(up.status).toBe(200);
  expect(Object.keys(up.body.checks).sort()).toEqual(ALL_CHECKS);

  await dependency.stop();
  await waitFor(async () => (await readiness(service)).status === 503, 30_000, '/readyz to turn 503');
  const down = await readiness(service);
  expect(down.status).toBe(503);
  expect(down.body.failing).toEqual([check]);
  // The driver's own words (hosts, ports) go to the log only: anyone who reaches the port reads the probe.
  expect(down.body.checks[check]?.error).toMatch(PUBLIC_FAILURE);
  for (const other of ALL_CHECKS.filter((name) => name !== check)) expect(down.body.checks[other]).toEqual({ ok: true });
  expect(notReadyCauses(service).at(-1)).toEqual({ [check]: expect.stringMatching(/\S/) });

  await dependency.restart();
  await waitFor(async () => (await readiness(service)).status === 200, 60_000, '/readyz to recover');
  const back = await readiness(service);
  expect(Object.values(back.body.checks).every((result) => result.ok)).toBe(true);
}

describe.each(['api', 'worker'])('distributed mode, %s role', (role) => {
  let service: ServiceProcess;
  let isolated: IsolatedDistributedEnv;

  beforeAll(async () => {
    isolated = await isolatedDistributedEnv('ready');
    service = await startService({ ...isolated.env }, [role]);
  });
  afterAll(async () => {
    // Leave the shared broker running whatever happened above.
    await stackControl('up', 'kafka');
    // A failed stop shows the service's last lines: why it exited as it did (an error, or the budget).
    expect(await service.stop('SIGTERM'), service.output().slice(-6000)).toBe(0);
    await isolated.cleanup();
  });

  it('reports ready when Kafka, ClickHouse, Redis and PostgreSQL answer', async () => {
    const { status, body } = await readiness(service);
    expect(status).toBe(200);
    expect(Object.keys(body.checks).sort()).toEqual(ALL_CHECKS);
  });

  it('reports 503 naming Kafka while it is stopped, and recovers when it returns', async () => {
    // Stopping and starting a broker takes tens of seconds on a loaded machine, on top of both waits.
    await expectOutageReported(service, 'kafka', { stop: () => stackControl('down', 'kafka'), restart: () => stackControl('up', 'kafka') });
  }, 180_000);
});

const PRIVATE_DEPENDENCIES = [
  { check: 'clickhouse', product: 'ClickHouse', variable: 'CLICKHOUSE_URL', start: (): Promise<PrivateServer> => PrivateClickHouse.start() },
  { check: 'redis', product: 'Redis', variable: 'REDIS_URL', start: (): Promise<PrivateServer> => PrivateRedis.start() },
  { check: 'postgres', product: 'PostgreSQL', variable: 'DATABASE_URL', start: (): Promise<PrivateServer> => PrivatePostgres.start() },
] as const;

describe.each(['api', 'worker'].flatMap((role) => PRIVATE_DEPENDENCIES.map((dependency) => [role, dependency.product, dependency] as const)))(
  'distributed mode, %s role, with a private %s',
  (role, product, { check, variable, start }) => {
    let isolated: IsolatedDistributedEnv | undefined;
    let server: PrivateServer | undefined;
    let service: ServiceProcess | undefined;
    let serverStopped = false;

    beforeAll(async () => {
      isolated = await isolatedDistributedEnv('ready');
      server = await start();
      // Every other dependency stays the shared stack's; the service migrates the private server at start.
      service = await startService({ ...isolated.env, [variable]: server.url }, [role]);
    });
    afterAll(async () => {
      try {
        // The server comes back first whatever happened above, so that the service can stop cleanly.
        if (serverStopped) await server?.restart();
        if (service) expect(await service.stop('SIGTERM')).toBe(0);
      } finally {
        // Neither process outlives the suite, nor its data, even when a step above failed.
        if (service && isAlive(service)) await service.stop('SIGKILL');
        await Promise.all([server?.dispose(), isolated?.cleanup()]);
      }
    });

    it(`reports 503 naming ${check} while the private ${product} is stopped, and recovers when it returns`, async () => {
      await expectOutageReported(service!, check, {
        stop: async () => {
          await server!.stop();
          serverStopped = true;
        },
        restart: async () => {
          await server!.restart();
          serverStopped = false;
        },
      });
    }, 180_000);
  },
);
