import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRequestListener } from '../../src/http/app.js';
import { createMetricsRegistry } from '../../src/observability/metrics.js';
import { ReadinessService, type DependencyCheck } from '../../src/services/readiness.service.js';
import { capturingLogger } from '../helpers/logger.js';

/**
 * The edge's own behaviour over a real socket: probes, metrics and the standard error body. The
 * dependency checks here are plain functions whose answers the test controls; the real adapters'
 * pings are exercised against the real stack in test/integration/readiness.test.ts.
 */
const dependency = { kafka: true, clickhouse: true };
const checks: DependencyCheck[] = [
  { name: 'kafka', ping: () => (dependency.kafka ? Promise.resolve() : Promise.reject(new Error('broker unreachable'))) },
  { name: 'clickhouse', ping: () => (dependency.clickhouse ? Promise.resolve() : new Promise<void>(() => undefined)) },
];

let server: Server;
let base: string;
const { logger } = capturingLogger('silent');

beforeAll(async () => {
  server = createServer(createRequestListener({ logger, metrics: createMetricsRegistry(), readiness: new ReadinessService(checks) }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function expectErrorBody(body: unknown, status: number, error: string, path: string): void {
  expect(body).toMatchObject({ statusCode: status, error, path });
  const b = body as { message: unknown; timestamp: string };
  expect(typeof b.message).toBe('string');
  expect(new Date(b.timestamp).toISOString()).toBe(b.timestamp);
}

describe('probes', () => {
  it('GET /healthz answers 200', async () => {
    const res = await fetch(`${base}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers 200 when every dependency answers', async () => {
    dependency.kafka = true;
    dependency.clickhouse = true;
    const res = await fetch(`${base}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ready', checks: { kafka: { ok: true }, clickhouse: { ok: true } } });
  });

  it('GET /readyz answers 503 naming a failing dependency and one that hangs', async () => {
    dependency.kafka = false;
    dependency.clickhouse = false;
    const res = await fetch(`${base}/readyz`);
    expect(res.status).toBe(503);
    const body = (await res.json()) as { failing: string[]; message: string; checks: Record<string, { ok: boolean; error?: string }> };
    expectErrorBody(body, 503, 'Service Unavailable', '/readyz');
    expect(body.failing.sort()).toEqual(['clickhouse', 'kafka']);
    expect(body.message).toContain('kafka');
    // The driver's own text stays in the log: it can name hosts, users or a URL with its password.
    expect(body.checks.kafka).toEqual({ ok: false, error: 'unreachable' });
    expect(body.checks.clickhouse).toEqual({ ok: false, error: 'no answer within 2500 ms' });
    expect(JSON.stringify(body)).not.toContain('broker unreachable');
  });
});

describe('metrics', () => {
  it('GET /metrics serves the Prometheus text format with process defaults', async () => {
    const res = await fetch(`${base}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    expect(text).toMatch(/^# TYPE process_cpu_seconds_total counter$/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
  });
});

describe('error body', () => {
  it('answers 404 with the standard body on an unknown route', async () => {
    const res = await fetch(`${base}/v1/nothing-here?x=1`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const body = await res.json();
    expectErrorBody(body, 404, 'Not Found', '/v1/nothing-here');
    expect(body).toMatchObject({ message: 'Resource not found' });
  });

  it('answers 405 with Allow on a known path asked with another method', async () => {
    const res = await fetch(`${base}/healthz`, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expectErrorBody(await res.json(), 405, 'Method Not Allowed', '/healthz');
  });

  it('says nosniff on every response: probes, metrics, errors', async () => {
    for (const [path, method] of [['/healthz', 'GET'], ['/metrics', 'GET'], ['/readyz', 'GET'], ['/v1/nothing-here', 'GET'], ['/healthz', 'DELETE']] as const) {
      const res = await fetch(`${base}${path}`, { method });
      await res.arrayBuffer();
      expect(res.headers.get('x-content-type-options'), `${method} ${path}`).toBe('nosniff');
    }
  });
});
