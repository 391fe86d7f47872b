import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/api-assertions.js';
import { MODES, apiWithReceiver } from '../helpers/api-harness.js';
import { movedSeries, parseMetrics, seriesKey, type Sample } from '../helpers/prometheus-text.js';
import { waitFor } from '../helpers/service-process.js';
import { uniqueName } from '../helpers/stack-env.js';

/**
 * The metrics of docs/metrics.md, read the way Prometheus reads them: GET /metrics is scraped before
 * and after a known workload, and every eas_ counter and histogram count must have moved by exactly
 * what that workload implies, no more and no other series. The workload goes through the public API
 * and the real pipeline (stored, evaluated, delivered to a receiver started here).
 */
describe.each(MODES)('metrics (%s)', (mode) => {
  const s = apiWithReceiver(mode);

  async function scrape(): Promise<string> {
    const res = await fetch(`${s.api.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    return res.text();
  }

  /** The registry as it is now, read in process: waiting on it adds no HTTP request to the counts. */
  async function current(): Promise<Map<string, Sample>> {
    return parseMetrics(await s.api.container.metrics.metrics());
  }

  const counted = (sample: Sample) => sample.name.startsWith('eas_') && (sample.name.endsWith('_total') || sample.name.endsWith('_count'));

  it('moves each counter by exactly the workload, with bounded labels, and passes promtool', async () => {
    const { app, apiKey } = await createTestApp(s.api, s.account, { name: uniqueName('metrics') });
    const destination = await s.api.request('POST', `/v1/apps/${app.id}/destinations`, {
      headers: s.account.auth,
      body: { type: 'webhook', label: 'receiver', url: `${s.receiver.baseUrl}/hook` },
    });
    expect(destination.status, JSON.stringify(destination.body)).toBe(201);
    const rule = await s.api.request('POST', `/v1/apps/${app.id}/notification-rules`, {
      headers: s.account.auth,
      body: {
        name: 'Big order',
        eventName: 'order.created',
        enabled: true,
        conditions: [{ field: 'amount', operator: 'greater_than', value: 100 }],
        actions: [{ destinationId: destination.body.id }],
      },
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(201);
    const schema = await s.api.request('POST', `/v1/apps/${app.id}/schemas`, {
      headers: s.account.auth,
      body: { eventName: 'signup', fields: [{ name: 'plan', type: 'string', required: true }] },
    });
    expect(schema.status, JSON.stringify(schema.body)).toBe(201);

    const before = parseMetrics(await scrape());

    const ingest = (body: unknown, key = apiKey) => s.api.request('POST', '/v1/ingest', { headers: { 'x-api-key': key }, body });
    // Accepted: 3 requests, 5 events, 3 of them order.created (the rule's event), 1 matching.
    expect((await ingest({ event: 'order.created', data: { amount: 150 } })).status).toBe(202);
    expect((await ingest([{ event: 'order.created', data: { amount: 50 } }, { event: 'page.view' }])).status).toBe(202);
    expect((await ingest([{ event: 'order.created', data: { amount: 20 } }, { event: 'page.view' }])).status).toBe(202);
    // Rejected: by form (1 event, then 2), by the app's schema (1), for a wrong key (1), for size (1).
    expect((await ingest({ event: 'not a valid name!' })).status).toBe(400);
    expect((await ingest([{ event: 'page.view' }, { event: 42 }])).status).toBe(400);
    expect((await ingest({ event: 'signup', data: {} })).status).toBe(400);
    expect((await ingest({ event: 'page.view' }, 'eas_not_a_key')).status).toBe(401);
    // Refused by the body parser, before any route ran: still counted under its route.
    expect((await ingest({ event: 'page.view', data: { blob: 'x'.repeat(1024 * 1024) } })).status).toBe(413);
    expect((await s.api.request('GET', '/no-such-path')).status).toBe(404);
    expect((await s.api.request('GET', `/v1/apps/${app.id}/events`, { headers: s.account.auth })).status).toBe(200);

    // The worker's share: stored, evaluated, delivered.
    const movedNow = async () => movedSeries(before, await current(), counted);
    await waitFor(
      async () => {
        const moved = await movedNow();
        return (
          moved[seriesKey('eas_clickhouse_insert_rows_total')] === 5 &&
          moved[seriesKey('eas_rule_evaluations_total')] === 3 &&
          moved[seriesKey('eas_deliveries_total', { channel: 'webhook', outcome: 'succeeded' })] === 1
        );
      },
      30_000,
      'the events stored, the rule evaluated and the alert delivered',
    );
    expect(s.receiver.requests).toHaveLength(1);

    const text = await scrape();
    const after = parseMetrics(text);
    const moved = movedSeries(before, after, counted);

    // The worker stores what each fetch brought in one INSERT: 1 to 3 of them for 3 messages.
    const batches = moved[seriesKey('eas_clickhouse_insert_batches_total')];
    expect(batches).toBeGreaterThanOrEqual(1);
    expect(batches).toBeLessThanOrEqual(3);
    const expected: Record<string, number> = {
      // The scrape before the workload is itself a request.
      [seriesKey('eas_http_requests_total', { method: 'GET', route: '/metrics', status: '200' })]: 1,
      [seriesKey('eas_http_requests_total', { method: 'POST', route: '/v1/ingest', status: '202' })]: 3,
      [seriesKey('eas_http_requests_total', { method: 'POST', route: '/v1/ingest', status: '400' })]: 3,
      [seriesKey('eas_http_requests_total', { method: 'POST', route: '/v1/ingest', status: '401' })]: 1,
      [seriesKey('eas_http_requests_total', { method: 'POST', route: '/v1/ingest', status: '413' })]: 1,
      [seriesKey('eas_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })]: 1,
      [seriesKey('eas_http_requests_total', { method: 'GET', route: '/v1/apps/{appId}/events', status: '200' })]: 1,
      [seriesKey('eas_http_request_duration_seconds_count', { method: 'GET', route: '/metrics' })]: 1,
      [seriesKey('eas_http_request_duration_seconds_count', { method: 'POST', route: '/v1/ingest' })]: 8,
      [seriesKey('eas_http_request_duration_seconds_count', { method: 'GET', route: 'unmatched' })]: 1,
      [seriesKey('eas_http_request_duration_seconds_count', { method: 'GET', route: '/v1/apps/{appId}/events' })]: 1,
      [seriesKey('eas_events_accepted_total')]: 5,
      [seriesKey('eas_events_rejected_total', { reason: 'validation' })]: 3,
      [seriesKey('eas_events_rejected_total', { reason: 'schema' })]: 1,
      [seriesKey('eas_events_rejected_total', { reason: 'unauthenticated' })]: 1,
      [seriesKey('eas_events_rejected_total', { reason: 'payload_too_large' })]: 1,
      [seriesKey('eas_clickhouse_insert_rows_total')]: 5,
      [seriesKey('eas_clickhouse_insert_batches_total')]: batches!,
      [seriesKey('eas_clickhouse_insert_duration_seconds_count')]: batches!,
      // Each stored event's age, each delivered alert's.
      [seriesKey('eas_event_stored_latency_seconds_count')]: 5,
      [seriesKey('eas_alert_delivered_latency_seconds_count', { channel: 'webhook' })]: 1,
      [seriesKey('eas_rule_evaluations_total')]: 3,
      [seriesKey('eas_rule_triggers_total', { outcome: 'fired' })]: 1,
      [seriesKey('eas_deliveries_total', { channel: 'webhook', outcome: 'succeeded' })]: 1,
      [seriesKey('eas_delivery_duration_seconds_count', { channel: 'webhook' })]: 1,
      // Kafka only in distributed mode: one produce call per accepted request (one message each:
      // a request's events travel as one record), and one for the delivery job.
      ...(mode === 'distributed'
        ? {
            [seriesKey('eas_kafka_produce_messages_total', { topic: 'events' })]: 3,
            [seriesKey('eas_kafka_produce_duration_seconds_count', { topic: 'events' })]: 3,
            [seriesKey('eas_kafka_produce_messages_total', { topic: 'deliveries' })]: 1,
            [seriesKey('eas_kafka_produce_duration_seconds_count', { topic: 'deliveries' })]: 1,
          }
        : {}),
    };
    // Credential lookups depend on what the cache held: the key's first use, the secret's if its entry
    // had expired, and, in embedded mode, again after the worker's own metadata writes (each moves
    // the cache versions). A malformed key is refused before any lookup.
    const found = seriesKey('eas_credential_lookups_total', { result: 'found' });
    expect(moved[found]).toBeGreaterThanOrEqual(1);
    expect(moved[found]).toBeLessThanOrEqual(8);
    delete moved[found];
    expect(moved[seriesKey('eas_credential_lookups_total', { result: 'unknown' })]).toBeUndefined();
    expect(moved).toEqual(expected);

    // The ages are those of this test's events, seconds at most; the build is this checkout's.
    const grew = (name: string, labels: Record<string, string> = {}) => (after.get(seriesKey(name, labels))?.value ?? 0) - (before.get(seriesKey(name, labels))?.value ?? 0);
    expect(grew('eas_event_stored_latency_seconds_sum')).toBeGreaterThan(0);
    expect(grew('eas_event_stored_latency_seconds_sum')).toBeLessThan(5 * 30);
    expect(grew('eas_alert_delivered_latency_seconds_sum', { channel: 'webhook' })).toBeGreaterThan(0);
    expect(grew('eas_alert_delivered_latency_seconds_sum', { channel: 'webhook' })).toBeLessThan(30);
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    const build = [...after.values()].filter((sample) => sample.name === 'eas_build_info');
    expect(build.map(({ labels, value }) => ({ labels, value }))).toEqual([{ labels: { version, node_version: process.version, mode }, value: 1 }]);

    const kafkaSeries = [...after.values()].filter((s) => s.name.startsWith('eas_kafka_'));
    if (mode === 'embedded') {
      expect(kafkaSeries).toEqual([]);
    } else {
      // The events were all consumed: the partition holding this app's events reports no lag.
      const lag = kafkaSeries.filter((s) => s.name === 'eas_kafka_consumer_lag' && s.labels.topic === 'events');
      expect(lag.length).toBeGreaterThan(0);
      for (const s of lag) {
        expect(s.labels.partition).toMatch(/^\d+$/);
        expect(s.value).toBe(0);
      }
    }

    // No label holds an app, s.account, customer, event or rule: label values come from fixed sets.
    const identifying = [app.id, app.slug, s.account.accountId, apiKey, destination.body.id, rule.body.id, 'order.created', 'page.view', 'signup'];
    const values = [...after.values()].flatMap((s) => Object.values(s.labels));
    for (const word of identifying) expect(values.filter((v) => v.includes(word)), word).toEqual([]);
    const routes = new Set([...after.values()].filter((s) => s.name.startsWith('eas_http_')).map((s) => s.labels.route));
    for (const route of routes) expect(route).toMatch(/^(unmatched|dashboard|\/[a-z0-9/{}._-]*)$/i);

    // Prometheus's own linter on the live scrape: names, types, units, help text.
    const promtool = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(promtool.error, 'promtool must be installed (test/run-all.sh installs it)').toBeUndefined();
    expect({ status: promtool.status, output: `${promtool.stdout}${promtool.stderr}` }).toEqual({ status: 0, output: '' });
  });

  it('reports each dependency up after a readiness check', async () => {
    expect((await s.api.request('GET', '/readyz')).status).toBe(200);
    const up = [...(await current()).values()].filter((s) => s.name === 'eas_dependency_up');
    const expected = mode === 'embedded' ? ['chdb', 'sqlite'] : ['clickhouse', 'kafka', 'postgres', 'redis'];
    expect(up.map((s) => s.labels.dependency).sort()).toEqual(expected);
    expect(up.map((s) => s.value)).toEqual(expected.map(() => 1));
  });
});
