import { AggregatorRegistry, Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RequestTally } from './request-tally.js';

const BOUNDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The same requests recorded by prom-client's own classes, as the tally's exposition must read. */
function reference(requests: ReadonlyArray<readonly [string, string, number, number]>): Registry {
  const registry = new Registry();
  const counter = new Counter({ name: 'eas_http_requests_total', help: 'HTTP requests answered, by route template and status code', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const histogram = new Histogram({
    name: 'eas_http_request_duration_seconds',
    help: "Time from a request's arrival to the end of its response",
    labelNames: ['method', 'route'],
    buckets: BOUNDS,
    registers: [registry],
  });
  for (const [method, route, status, seconds] of requests) {
    counter.inc({ method, route, status: String(status) });
    histogram.observe({ method, route }, seconds);
  }
  return registry;
}

function tallied(requests: ReadonlyArray<readonly [string, string, number, number]>): Registry {
  const registry = new Registry();
  const tally = RequestTally.register(registry);
  for (const [method, route, status, seconds] of requests) tally.record(method, route, status, seconds);
  return registry;
}

// Durations on every bound (Prometheus's `le` includes it), between bounds, and above the last.
const REQUESTS: ReadonlyArray<readonly [string, string, number, number]> = [
  ...BOUNDS.map((seconds) => ['POST', '/v1/ingest', 202, seconds] as const),
  ['POST', '/v1/ingest', 202, 0.0004],
  ['POST', '/v1/ingest', 400, 0.003],
  ['POST', '/v1/ingest', 429, 0.07],
  ['GET', '/v1/apps/{appId}/events', 200, 0.3],
  ['GET', '/v1/apps/{appId}/events', 200, 12],
  ['GET', 'unmatched', 404, 0],
  ['POST', '/v1/ingest', 202, 0.0099],
];

describe('RequestTally', () => {
  it('exposes exactly what prom-client would for the same requests', async () => {
    expect(await tallied(REQUESTS).metrics()).toBe(await reference(REQUESTS).metrics());
  });

  it('keeps counting across scrapes', async () => {
    const registry = new Registry();
    const tally = RequestTally.register(registry);
    tally.record('POST', '/v1/ingest', 202, 0.002);
    await registry.metrics();
    tally.record('POST', '/v1/ingest', 202, 0.002);
    tally.record('POST', '/v1/ingest', 503, 5.5);
    expect(await registry.metrics()).toBe(await reference([['POST', '/v1/ingest', 202, 0.002], ['POST', '/v1/ingest', 202, 0.002], ['POST', '/v1/ingest', 503, 5.5]]).metrics());
  });

  it('is one tally per registry, and the merge of several registries adds them up', async () => {
    const first = new Registry();
    RequestTally.register(first).record('GET', '/metrics', 200, 0.001);
    RequestTally.register(first).record('GET', '/metrics', 200, 0.02);
    const second = tallied([['GET', '/metrics', 200, 0.2]]);
    const merged = AggregatorRegistry.aggregate([await first.getMetricsAsJSON(), await second.getMetricsAsJSON()]);
    const expected = AggregatorRegistry.aggregate([
      await reference([
        ['GET', '/metrics', 200, 0.001],
        ['GET', '/metrics', 200, 0.02],
      ]).getMetricsAsJSON(),
      await reference([['GET', '/metrics', 200, 0.2]]).getMetricsAsJSON(),
    ]);
    expect(await merged.metrics()).toBe(await expected.metrics());
  });
});
