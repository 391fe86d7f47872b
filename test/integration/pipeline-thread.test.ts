import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateClientSecret } from '../../src/domain/credentials.js';
import { isolatedDistributedEnv, type IsolatedDistributedEnv } from '../helpers/distributed-env.js';
import { requestJson } from '../helpers/http-json.js';
import { movedSeries, parseMetrics, seriesKey, type Sample } from '../helpers/prometheus-text.js';
import { startService, waitFor, type ServiceProcess } from '../helpers/service-process.js';

/**
 * A distributed process of role `all` (the default) serves the API on its main thread and runs the
 * pipeline in a worker thread. Seen from outside it is still one service: events accepted by the
 * one are stored and evaluated by the other, `/metrics` counts both threads' work once, and the
 * process-wide series appear once.
 */
describe('a distributed all-in-one process (API and pipeline threads)', () => {
  const secret = generateClientSecret();
  let isolated: IsolatedDistributedEnv;
  let service: ServiceProcess;

  beforeAll(async () => {
    isolated = await isolatedDistributedEnv('pipeline_thread');
    service = await startService({ ...isolated.env, BOOTSTRAP_CLIENT_SECRET: secret });
  });
  afterAll(async () => {
    await service?.stop();
    await isolated?.cleanup();
  });

  const scrape = async (): Promise<string> => (await fetch(`${service.url}/metrics`)).text();
  const counted = (s: Sample): boolean => s.name.startsWith('eas_') && (s.name.endsWith('_total') || s.name.endsWith('_count'));

  it('stores and evaluates what it accepts, and /metrics counts both threads once', async () => {
    const auth = { authorization: `Bearer ${secret}` };
    const app = await requestJson(service.url, 'POST', '/v1/apps', auth, { name: 'Threads' });
    expect(app.status, JSON.stringify(app.body)).toBe(201);
    const before = parseMetrics(await scrape());

    const ingest = await requestJson(service.url, 'POST', '/v1/ingest', { 'x-api-key': app.body.apiKey }, [{ event: 'a' }, { event: 'b' }, { event: 'c' }]);
    expect(ingest.status, JSON.stringify(ingest.body)).toBe(202);
    // The worker thread's counters reach the main thread's /metrics.
    await waitFor(async () => movedSeries(before, parseMetrics(await scrape()), counted)[seriesKey('eas_clickhouse_insert_rows_total')] === 3, 30_000, 'the three events stored');
    const text = await scrape();
    const moved = movedSeries(before, parseMetrics(text), counted);
    // Accepted on the API thread, stored on the pipeline thread, each counted once.
    expect(moved[seriesKey('eas_events_accepted_total')]).toBe(3);
    expect(moved[seriesKey('eas_clickhouse_insert_rows_total')]).toBe(3);
    expect(moved[seriesKey('eas_kafka_produce_messages_total', { topic: 'events' })]).toBe(1);
    const events = await requestJson(service.url, 'GET', `/v1/apps/${app.body.app.id}/events`, auth);
    expect(events.body.items.map((e: { event: string }) => e.event).sort()).toEqual(['a', 'b', 'c']);

    // Process-wide series once (not summed over the threads), and an exposition Prometheus accepts.
    expect(text.match(/^process_cpu_seconds_total /gm)).toHaveLength(1);
    expect(text.match(/^# TYPE eas_clickhouse_insert_rows_total /gm)).toHaveLength(1);
    // The build is the same in both threads: one series of 1, not their sum.
    expect([...parseMetrics(text).values()].filter((s) => s.name === 'eas_build_info').map((s) => s.value)).toEqual([1]);
    const promtool = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect({ status: promtool.status, output: `${promtool.stdout}${promtool.stderr}` }).toEqual({ status: 0, output: '' });
    // The pipeline's log lines say which thread wrote them.
    expect(service.output()).toMatch(/"thread":"pipeline"/);
  });

  it('stops both threads on SIGTERM and exits 0', async () => {
    expect(await service.stop('SIGTERM')).toBe(0);
    expect(service.output()).toMatch(/"msg":"stopped"/);
  });
});
