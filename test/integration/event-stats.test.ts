import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChdbEventStore } from '../../src/adapters/event-store/chdb-event-store.js';
import { ClickHouseEventStore } from '../../src/adapters/event-store/clickhouse-event-store.js';
import type { EventGroupField, EventStore } from '../../src/ports/event-store.js';
import { EVENT_LEVELS, type EventLevel, type StoredEvent } from '../../src/domain/events.js';
import { MODES, startApi, type ApiHarness, type Mode } from '../helpers/api-harness.js';
import { createTestApp, expectValidationError, readOnlySecretOf, NOT_FOUND, expectError } from '../helpers/api-assertions.js';
import { bruteCounts, bruteTop, seededRandom } from '../helpers/event-counts.js';
import { waitFor } from '../helpers/service-process.js';
import { stackEnv } from '../helpers/stack-env.js';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

interface Sent {
  event: string;
  level: EventLevel;
  customer_id?: string;
  timestamp: string;
}

/**
 * GET …/stats/events and …/stats/top in both modes: every count against a brute-force count of what
 * was ingested (with some events stored a second time, as a redelivery does), the grid of buckets,
 * every 400; and the retention: old events neither listed nor counted, their days deleted by upkeep.
 */
describe.each(MODES)('event stats (%s)', (mode) => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi(mode);
  });
  afterAll(async () => {
    await api.stop();
  });

  async function ingest(apiKey: string, events: readonly Sent[]): Promise<StoredEvent[]> {
    const stored: StoredEvent[] = [];
    for (let i = 0; i < events.length; i += 100) {
      const batch = events.slice(i, i + 100);
      const res = await api.request('POST', '/v1/ingest', { headers: { 'x-api-key': apiKey }, body: batch });
      expect(res.status).toBe(202);
      res.body.events.forEach(({ id }: { id: string }, j: number) => {
        const sent = batch[j] as Sent;
        stored.push({ id, appId: '', event: sent.event, level: sent.level, customerId: sent.customer_id ?? null, data: {}, metadata: {}, timestamp: new Date(sent.timestamp), ingestedAt: new Date() });
      });
    }
    return stored;
  }

  const readable = (appId: string, count: number) =>
    waitFor(async () => (await api.container.events.counts({ appId, from: new Date(0), to: new Date(Date.now() + DAY), bucketMs: DAY, limit: 1 })).total >= count, 30_000, `${count} stored events`);

  /** The brute force's answer in the API's shape: every bucket of the grid, zero-filled. */
  function expectedCounts(events: readonly StoredEvent[], query: { from: Date; to: Date; level?: EventLevel; type?: string; customerId?: string }, interval: 'minute' | 'hour' | 'day', groupBy: EventGroupField | undefined, limit: number) {
    const step = { minute: MINUTE, hour: HOUR, day: DAY }[interval];
    const brute = bruteCounts(events, query, step, groupBy, limit);
    const first = Math.floor(query.from.getTime() / step) * step;
    const last = Math.floor((query.to.getTime() - 1) / step) * step;
    const starts = Array.from({ length: (last - first) / step + 1 }, (_, i) => first + i * step);
    return {
      from: query.from.toISOString(),
      to: query.to.toISOString(),
      interval,
      total: brute.total,
      uniqueCustomers: brute.uniqueCustomers,
      series: brute.series.map((s) => ({ key: s.key, total: s.total, buckets: starts.map((start) => ({ start: new Date(start).toISOString(), count: s.buckets.get(start) ?? 0 })) })),
    };
  }

  it('counts what was ingested exactly, per bucket and group, and ranks the top values; a second copy of an event counts once', async () => {
    const account = await api.newAccount();
    const { app, apiKey } = await createTestApp(api, account);
    const now = Date.now();
    const next = seededRandom(7);
    const sent: Sent[] = Array.from({ length: 400 }, () => ({
      event: `step_${Math.floor(next() * 6)}`,
      level: EVENT_LEVELS[Math.floor(next() * 4)] as EventLevel,
      ...(next() < 0.2 ? {} : { customer_id: `cust_${Math.floor(next() * 15)}` }),
      timestamp: new Date(now - 1000 - Math.floor(next() * 3 * DAY)).toISOString(),
    }));
    const events = await ingest(apiKey, sent);
    await readable(app.id, events.length);
    // A redelivery stores some events a second time.
    const stored = await api.container.events.query({ appId: app.id, limit: 60 });
    await api.container.events.insert(stored);

    const get = (query: string) => api.request('GET', `/v1/apps/${app.id}/stats/events${query}`, { headers: account.auth });
    const from = new Date(Math.floor((now - 3 * DAY) / HOUR) * HOUR + 17_000);
    const to = new Date(now);
    const range = `from=${from.toISOString()}&to=${to.toISOString()}`;
    for (const [query, interval, groupBy, limit, filter] of [
      [`${range}&interval=hour`, 'hour', undefined, 10, {}],
      [`${range}&groupBy=level`, 'hour', 'level', 10, {}],
      [`${range}&interval=hour&groupBy=event&limit=4`, 'hour', 'event', 4, {}],
      [`${range}&groupBy=customer_id&limit=5&level=error&interval=day`, 'day', 'customer_id', 5, { level: 'error' }],
      [`${range}&interval=day&type=step_2&customer_id=cust_3`, 'day', undefined, 10, { type: 'step_2', customerId: 'cust_3' }],
    ] as const) {
      const res = await get(`?${query}`);
      expect(res.status, query).toBe(200);
      expect(res.body, query).toEqual(expectedCounts(events, { from, to, ...filter }, interval, groupBy, limit));
    }

    // Without a range: the 24 h up to now, by the hour (by the minute up to 6 h).
    const recent = await get('');
    expect(recent.status).toBe(200);
    const defaultTo = new Date(recent.body.to);
    expect(Math.abs(defaultTo.getTime() - Date.now())).toBeLessThan(10_000);
    expect(recent.body).toEqual(expectedCounts(events, { from: new Date(defaultTo.getTime() - DAY), to: defaultTo }, 'hour', undefined, 10));
    const sixHours = await get(`?from=${new Date(now - 6 * HOUR).toISOString()}&to=${to.toISOString()}`);
    expect(sixHours.body.interval).toBe('minute');
    expect(sixHours.body.series[0].buckets).toHaveLength(6 * 60 + (now % MINUTE === 0 ? 0 : 1));

    for (const [by, limit, filter, extra] of [
      ['event', 10, {}, ''],
      ['customer_id', 3, {}, '&limit=3'],
      ['level', 10, { type: 'step_1' }, '&type=step_1'],
      ['event', 100, { customerId: 'cust_7', level: 'info' }, '&customer_id=cust_7&level=info&limit=100'],
    ] as const) {
      const res = await api.request('GET', `/v1/apps/${app.slug}/stats/top?by=${by}&${range}${extra}`, { headers: account.auth });
      expect(res.status).toBe(200);
      const expected = bruteTop(events, { from, to, ...filter }, by, limit).map((item) => ({ ...item, lastSeen: item.lastSeen.toISOString() }));
      expect(res.body, `top ${by}${extra}`).toEqual({ items: expected });
    }
  });

  it('refuses bad parameters with 400 naming them, and another account with 404', async () => {
    const account = await api.newAccount();
    const { app } = await createTestApp(api, account);
    const stats = (query: string) => api.request('GET', `/v1/apps/${app.id}/stats/events${query}`, { headers: account.auth });
    const top = (query: string) => api.request('GET', `/v1/apps/${app.id}/stats/top${query}`, { headers: account.auth });
    expectValidationError(await stats('?interval=week'), 'interval');
    expectValidationError(await stats('?groupBy=data'), 'groupBy');
    expectValidationError(await stats('?limit=0'), 'limit');
    expectValidationError(await stats('?limit=51'), 'limit');
    expectValidationError(await stats('?level=fatal'), 'level');
    expectValidationError(await stats('?from=yesterday'), 'from');
    expectValidationError(await stats('?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z'), 'from');
    expectValidationError(await stats('?bucket=hour'), 'query', /Unrecognized key: "bucket"/);
    // Two days by the minute are 2,880 buckets; by the hour they are 48.
    expectValidationError(await stats('?from=2026-01-01T00:00:00Z&to=2026-01-03T00:00:00Z&interval=minute'), 'interval', /2880 buckets, more than 1500/);
    expect((await stats('?from=2026-01-01T00:00:00Z&to=2026-01-03T00:00:00Z&interval=hour')).body.series[0].buckets).toHaveLength(48);
    expectValidationError(await top(''), 'by');
    expectValidationError(await top('?by=metadata'), 'by');
    expectValidationError(await top('?by=event&limit=101'), 'limit');
    expectValidationError(await top('?by=event&to=2026-01-01T00:00:00Z&from=2026-01-01T00:00:00Z'), 'from');

    const other = await api.newAccount();
    expectError(await api.request('GET', `/v1/apps/${app.id}/stats/events`, { headers: other.auth }), 404, NOT_FOUND);
    expectError(await api.request('GET', `/v1/apps/${app.id}/stats/top?by=level`, { headers: other.auth }), 404, NOT_FOUND);
    const readOnly = await readOnlySecretOf(api, account);
    const empty = await api.request('GET', `/v1/apps/${app.id}/stats/top?by=level`, { headers: readOnly });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ items: [] });
  });
});

/**
 * A service keeping 30 days: older events are neither listed, read by id nor counted from the start,
 * and upkeep (every second here) deletes their days from the store, which a view of the same database
 * keeping everything then confirms.
 */
describe.each(MODES)('event retention (%s)', (mode: Mode) => {
  let api: ApiHarness;
  let everything: EventStore;
  beforeAll(async () => {
    api = await startApi(mode, { EVENT_RETENTION_DAYS: '30', EVENT_UPKEEP_INTERVAL_S: '1' });
    const database = api.container.config.clickhouseDatabase;
    everything =
      mode === 'embedded'
        ? new ChdbEventStore({ path: path.join(api.container.config.dataDir, 'chdb'), database })
        : new ClickHouseEventStore({ urls: [stackEnv().clickhouseUrl], database });
  });
  afterAll(async () => {
    await everything?.close();
    await api?.stop();
  });

  it('hides events past the retention at once and deletes their days in the background', async () => {
    const account = await api.newAccount();
    const { app, apiKey } = await createTestApp(api, account);
    const now = Date.now();
    const ages = [45 * DAY, 31 * DAY, 29 * DAY, HOUR];
    const res = await api.request('POST', '/v1/ingest', { headers: { 'x-api-key': apiKey }, body: ages.map((age) => ({ event: 'tick', timestamp: new Date(now - age).toISOString() })) });
    expect(res.status).toBe(202);
    const [, old, kept, fresh] = res.body.events as { id: string }[];
    // One request, one write: once the recent two are stored, so were the old ones.
    await waitFor(async () => (await api.container.events.query({ appId: app.id, limit: 10 })).length === 2, 30_000, 'events stored');

    const list = await api.request('GET', `/v1/apps/${app.id}/events`, { headers: account.auth });
    expect(list.body.items.map((e: { id: string }) => e.id)).toEqual([fresh?.id, kept?.id]);
    expectError(await api.request('GET', `/v1/apps/${app.id}/events/${old?.id}`, { headers: account.auth }), 404, NOT_FOUND);
    const counts = await api.request('GET', `/v1/apps/${app.id}/stats/events?from=${new Date(now - 60 * DAY).toISOString()}&to=${new Date(now).toISOString()}`, { headers: account.auth });
    expect(counts.body.total).toBe(2);
    expect(counts.body.series[0].buckets.reduce((sum: number, b: { count: number }) => sum + b.count, 0)).toBe(2);

    await waitFor(async () => (await everything.query({ appId: app.id, limit: 10 })).length === 2, 30_000, 'the days past the retention deleted');
    expect((await everything.query({ appId: app.id, limit: 10 })).map((e) => e.id)).toEqual([fresh?.id, kept?.id]);
    // Deleted, not merely never stored: upkeep reports the two days it dropped (once its round, which
    // goes on to compact and roll up other days, is over).
    const dropped = async () => Number(/^eas_event_partitions_dropped_total (\d+)/m.exec((await api.request('GET', '/metrics')).body)?.[1]);
    await waitFor(async () => (await dropped()) >= 2, 30_000, 'upkeep to report the days it dropped');
  });
});
