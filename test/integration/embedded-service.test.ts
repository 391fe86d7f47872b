import { mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnService, startService } from '../helpers/service-process.js';

/** The service as a new user runs it: one process, no external service, files in DATA_DIR. */
describe('embedded mode process', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'eas-embedded-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('serves /healthz and /readyz with no external service, then exits 0 on SIGTERM', async () => {
    const started = Date.now();
    const service = await startService({ DATA_DIR: dataDir });
    try {
      const health = await fetch(`${service.url}/healthz`);
      expect(health.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(60_000);

      const ready = await fetch(`${service.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: 'ready', checks: { sqlite: { ok: true }, chdb: { ok: true } } });

      const metrics = await fetch(`${service.url}/metrics`);
      expect(await metrics.text()).toMatch(/^process_resident_memory_bytes /m);
    } finally {
      expect(await service.stop('SIGTERM')).toBe(0);
    }
    expect(service.output()).toMatch(/"msg":"stopped"/);
  });

  it('starts again on the same data directory (migrations are idempotent)', async () => {
    const service = await startService({ DATA_DIR: dataDir });
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
    expect(await service.stop('SIGTERM')).toBe(0);
  });

  it('exits 0 promptly on SIGTERM although a client holds an idle keep-alive connection', async () => {
    const service = await startService({ DATA_DIR: dataDir });
    const agent = new http.Agent({ keepAlive: true });
    const status = await new Promise<number>((resolve, reject) => {
      http.get(`${service.url}/healthz`, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      }).on('error', reject);
    });
    expect(status).toBe(200);
    const stopping = Date.now();
    expect(await service.stop('SIGTERM')).toBe(0);
    // An idle socket must not hold the server open until the keep-alive timeout.
    expect(Date.now() - stopping).toBeLessThan(5_000);
    agent.destroy();
  });
});

describe('configuration errors', () => {
  it.each([
    [{ PORT: 'eighty' }, 'PORT: expected a TCP port number from 0 to 65535'],
    [{ KAFKA_BROKERS: '127.0.0.1:9092' }, 'CLICKHOUSE_URL: required when KAFKA_BROKERS is set'],
    [{ BOOTSTRAP_CLIENT_SECRET: 'svc_cs_tooshort' }, 'BOOTSTRAP_CLIENT_SECRET: expected svc_cs_ followed by at least 32'],
  ])('stops the process at once on %o', async (env, message) => {
    const { child, output } = spawnService(env);
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(1);
    expect(output()).toContain(message);
    // Nothing was started: no listening line.
    expect(output()).not.toContain('service started');
  });

  it('refuses an unknown role on the command line', async () => {
    const { child, output } = spawnService({}, ['scheduler']);
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(1);
    expect(output()).toContain('the role (all, api or worker)');
  });
});
