import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedDistributedEnv, type IsolatedDistributedEnv } from '../helpers/distributed-env.js';
import { stackControl } from '../helpers/stack-control.js';
import { startService, waitFor, type ServiceProcess } from '../helpers/service-process.js';

/**
 * Distributed mode against the real local stack. This suite stops and restarts the shared Kafka broker,
 * so it relies on the integration project running files one at a time (vitest.config.ts).
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
    expect(await service.stop('SIGTERM')).toBe(0);
    await isolated.cleanup();
  });

  it('reports ready when Kafka, ClickHouse, Redis and PostgreSQL answer', async () => {
    const { status, body } = await readiness(service);
    expect(status).toBe(200);
    expect(Object.keys(body.checks).sort()).toEqual(['clickhouse', 'kafka', 'postgres', 'redis']);
  });

  it('reports 503 naming Kafka while it is stopped, and recovers when it returns', async () => {
    await stackControl('down', 'kafka');
    await waitFor(async () => (await readiness(service)).status === 503, 30_000, '/readyz to turn 503');
    const down = await readiness(service);
    expect(down.body.failing).toEqual(['kafka']);
    // The driver's own words (hosts, ports) go to the log only: anyone who reaches the port reads the probe.
    expect(down.body.checks.kafka?.error).toMatch(/^(unreachable|no answer within \d+ ms)$/);
    const notReady = service
      .output()
      .split('\n')
      .filter((line) => line.includes('"msg":"not ready"'))
      .map((line) => JSON.parse(line) as { causes: Record<string, string> });
    expect(notReady.at(-1)?.causes.kafka).toEqual(expect.any(String));
    expect(down.body.checks.clickhouse?.ok).toBe(true);

    await stackControl('up', 'kafka');
    await waitFor(async () => (await readiness(service)).status === 200, 60_000, '/readyz to recover');
    // Stopping and starting a broker takes tens of seconds on a loaded machine, on top of both waits.
  }, 180_000);
});
