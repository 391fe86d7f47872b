import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApp } from '../../src/http/app.js';
import { createMetricsRegistry } from '../../src/observability/metrics.js';
import type { DependencyCheck } from '../../src/services/readiness.js';
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
  const app = createHttpApp({ logger, metrics: createMetricsRegistry(), checks });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
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
    expect(body.checks.kafka).toEqual({ ok: false, error: 'broker unreachable' });
    expect(body.checks.clickhouse?.error).toMatch(/did not answer/);
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

  it('answers 400 with the standard body on malformed JSON', async () => {
    const res = await fetch(`${base}/v1/ingest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"event": "a",' });
    expect(res.status).toBe(400);
    const body = await res.json();
    expectErrorBody(body, 400, 'Bad Request', '/v1/ingest');
    expect(body).toMatchObject({ message: 'Malformed JSON body' });
  });

  it('answers 413 with the standard body past 1 MiB', async () => {
    const big = JSON.stringify({ data: 'x'.repeat(1024 * 1024) });
    const res = await fetch(`${base}/v1/ingest`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    expect(res.status).toBe(413);
    expectErrorBody(await res.json(), 413, 'Payload Too Large', '/v1/ingest');
  });
});
