import { clickhouseCounters, readCost } from './clickhouse-counters.js';
import { CpuSampler, type PidSource } from './cpu.js';
import { summarise } from './probe.js';
import { MID_EVENT, midCustomer, type SeedApp } from './reads-data.js';
import type { ReadCase, ReadKind } from './results.js';

/**
 * The read requests the reads benchmark times, and the timing: each request sent on its own, one
 * after the other, through the public API with the client secret, as the dashboard would.
 *
 * List pages: the first page (the default 25 events) and the 20th, each with no filter, level=error,
 * type=<a middling event name>, customer_id=<the median customer> and a one-hour range. For the 20th
 * page the benchmark follows nextCursor through pages 1–19 once, unmeasured, then times the request of
 * page 20 with that cursor again and again. One event by id: the newest of the last minute, and one
 * from 15 days ago (found through the list, unmeasured). Counts: the last 24 h by minute (1,441 buckets) and the
 * last 30 days by day, with and without groups; top values over 30 days and 24 h. The small app (1 M
 * events) gets a few of the same, to show whether its reads pay for the large app's rows.
 */

/**
 * Unmeasured requests before the samples of each case (JIT, connection pools, the page cache): five,
 * or as many as fit in WARMUP_BUDGET_MS (at least one), so that reads of seconds do not spend the
 * run's ten minutes warming up.
 */
const READ_WARMUP = 5;
const WARMUP_BUDGET_MS = 3_000;
const READ_SAMPLES = 40;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** The list page measured besides the first: far enough back that the windows of a page have grown. */
const DEEP_PAGE = 20;

interface ReadSpec {
  readonly app: 'large' | 'small';
  readonly kind: ReadKind;
  readonly label: string;
  readonly query: Readonly<Record<string, string>>;
  /** List reads: the page timed (1 or DEEP_PAGE). */
  readonly page?: number;
}

const PATHS: Readonly<Record<ReadKind, string>> = { list: 'events', event: 'events/{eventId}', stats: 'stats/events', top: 'stats/top' };

/** The requests, their ranges ending at `now`. */
export function readSpecs(now: number, large: SeedApp): ReadSpec[] {
  const iso = (ms: number): string => new Date(ms).toISOString();
  const day = { from: iso(now - DAY_MS), to: iso(now) };
  const month = { from: iso(now - 30 * DAY_MS), to: iso(now) };
  const filters: Array<[string, Record<string, string>]> = [
    ['no filter', {}],
    ['level=error', { level: 'error' }],
    [`type=${MID_EVENT}`, { type: MID_EVENT }],
    [`customer_id=${midCustomer(large)}`, { customer_id: midCustomer(large) }],
    ['1-hour range (now−2 h to now−1 h)', { from: iso(now - 2 * HOUR_MS), to: iso(now - HOUR_MS) }],
  ];
  const pages = (app: ReadSpec['app'], [label, query]: [string, Record<string, string>]): ReadSpec[] =>
    [1, DEEP_PAGE].map((page) => ({ app, kind: 'list', label: `${page === 1 ? 'first page' : `page ${page}`}, ${label}`, query, page }));
  const stats = (app: ReadSpec['app'], label: string, query: Record<string, string>): ReadSpec => ({ app, kind: 'stats', label, query });
  const top = (app: ReadSpec['app'], label: string, query: Record<string, string>): ReadSpec => ({ app, kind: 'top', label, query });
  // The event read by id is the newest one before `to`, found through the list first.
  const byId = (label: string, to: number): ReadSpec => ({ app: 'large', kind: 'event', label, query: { to: iso(to), limit: '1' } });
  return [
    ...filters.flatMap((filter) => pages('large', filter)),
    byId('one event by id, from the last minute', now),
    byId('one event by id, from 15 days ago', now - 15 * DAY_MS),
    stats('large', '24 h by minute', { ...day, interval: 'minute' }),
    stats('large', '24 h by minute, groupBy=level', { ...day, interval: 'minute', groupBy: 'level' }),
    stats('large', '30 d by day', { ...month, interval: 'day' }),
    stats('large', '30 d by day, groupBy=level', { ...month, interval: 'day', groupBy: 'level' }),
    stats('large', '30 d by day, groupBy=customer_id', { ...month, interval: 'day', groupBy: 'customer_id' }),
    top('large', '30 d, by=event', { ...month, by: 'event' }),
    top('large', '30 d, by=customer_id', { ...month, by: 'customer_id' }),
    top('large', '24 h, by=event', { ...day, by: 'event' }),
    ...pages('small', filters[0]!),
    stats('small', '30 d by day', { ...month, interval: 'day' }),
    top('small', '30 d, by=event', { ...month, by: 'event' }),
  ];
}

export interface ReadRun {
  readonly url: string;
  readonly clientSecret: string;
  readonly appIds: { readonly large: string; readonly small: string };
  /** Distributed mode: the ClickHouse server, whose counters are read around each case's samples. */
  readonly clickhouseUrl: string | null;
  /** Whose CPU time to account during each case's samples. */
  readonly cpuGroups: Record<string, PidSource>;
  readonly log: (message: string) => void;
}

interface Answer {
  readonly status: number;
  readonly ms: number;
  readonly body: unknown;
}

async function get(run: ReadRun, path: string): Promise<Answer> {
  const started = performance.now();
  const res = await fetch(`${run.url}${path}`, { headers: { authorization: `Bearer ${run.clientSecret}` } });
  const text = await res.text();
  const ms = performance.now() - started;
  return { status: res.status, ms, body: text.length > 0 ? (JSON.parse(text) as unknown) : null };
}

const requestOf = (kind: ReadKind, query: Readonly<Record<string, string>>, cursor?: string): string => {
  const params = new URLSearchParams(query);
  if (cursor !== undefined) params.set('cursor', cursor);
  const search = params.toString();
  return `/v1/apps/{appId}/${PATHS[kind]}${search === '' ? '' : `?${search}`}`;
};

/** The answer in a few words: enough to see that the read found what it should. */
function describeAnswer(kind: ReadKind, body: unknown, now: number): string {
  if (kind === 'list') {
    const items = (body as { items: Array<{ timestamp: string }> }).items;
    const oldest = items.at(-1);
    if (!oldest) return '0 events';
    const back = now - Date.parse(oldest.timestamp);
    return `${items.length} events, the oldest from now − ${back < HOUR_MS ? `${Math.round(back / 60_000)} min` : `${(back / HOUR_MS).toFixed(1)} h`}`;
  }
  if (kind === 'event') {
    const event = body as { event: string; timestamp: string };
    return `${event.event}, from now − ${((now - Date.parse(event.timestamp)) / HOUR_MS).toFixed(1)} h`;
  }
  if (kind === 'stats') {
    const counts = body as { total: number; series: Array<{ buckets: unknown[] }> };
    return `${counts.series.length} series × ${counts.series[0]?.buckets.length ?? 0} buckets, total ${counts.total.toLocaleString('en-US')}`;
  }
  const items = (body as { items: Array<{ key: string; count: number }> }).items;
  return `${items.length} values, first ${items[0]?.key ?? 'none'} (${items[0]?.count.toLocaleString('en-US') ?? 0})`;
}

/** Times every spec in order; a case that fails is recorded with its error and the rest go on. */
export async function measureReads(run: ReadRun, specs: readonly ReadSpec[], now: number): Promise<ReadCase[]> {
  const cases: ReadCase[] = [];
  for (const spec of specs) {
    const measured = await measureCase(run, spec, now);
    const l = measured.latency;
    run.log(`${spec.app} app, ${spec.kind} ${spec.label}: p50 ${l.p50?.toFixed(1) ?? 'n/a'} ms p99 ${l.p99?.toFixed(1) ?? 'n/a'} ms (${l.samples} samples)${measured.error ? `; ${measured.error}` : ''}`);
    cases.push(measured);
  }
  return cases;
}

async function measureCase(run: ReadRun, spec: ReadSpec, now: number): Promise<ReadCase> {
  const appPath = (request: string): string => request.replace('{appId}', encodeURIComponent(run.appIds[spec.app]));
  const base = { app: spec.app, kind: spec.kind, label: spec.label };
  const failed = (request: string, error: string, warmup = 0): ReadCase => ({
    ...base,
    request,
    warmup,
    latency: { ...summarise([]), samplesMs: [] },
    answer: '',
    cost: null,
    cpu: null,
    error,
  });
  // Pages 1 to DEEP_PAGE − 1, once: the cursor of the page to time.
  let cursor: string | undefined;
  for (let page = 1; page < (spec.page ?? 1); page++) {
    const answer = await get(run, appPath(requestOf(spec.kind, spec.query, cursor)));
    const next = answer.status === 200 ? (answer.body as { nextCursor: string | null }).nextCursor : null;
    if (next === null) return failed(requestOf(spec.kind, spec.query), `page ${page} answered ${answer.status} without a next page`);
    cursor = next;
  }
  let eventId: string | undefined;
  if (spec.kind === 'event') {
    const answer = await get(run, appPath(requestOf('list', spec.query)));
    eventId = answer.status === 200 ? (answer.body as { items: Array<{ id: string }> }).items[0]?.id : undefined;
    if (eventId === undefined) return failed(requestOf('list', spec.query), `answered ${answer.status} without an event to read by id`);
  }
  const request = eventId === undefined ? requestOf(spec.kind, spec.query, cursor) : requestOf('event', {}).replace('{eventId}', eventId);
  const path = appPath(request);
  const shown = (eventId === undefined ? request : request.replace(eventId, '{eventId}')).replace(/cursor=[^&]*/, 'cursor={cursor}');
  const warmupEnds = performance.now() + WARMUP_BUDGET_MS;
  let warmup = 0;
  while (warmup < READ_WARMUP && (warmup === 0 || performance.now() < warmupEnds)) {
    const answer = await get(run, path);
    warmup += 1;
    if (answer.status !== 200) return failed(shown, `answered ${answer.status}: ${JSON.stringify(answer.body)}`, warmup);
  }
  const before = run.clickhouseUrl ? await clickhouseCounters(run.clickhouseUrl) : null;
  const sampler = new CpuSampler(run.cpuGroups);
  sampler.start();
  const samples: number[] = [];
  let last: Answer | undefined;
  for (let i = 0; i < READ_SAMPLES; i++) {
    last = await get(run, path);
    if (last.status !== 200) return failed(shown, `answered ${last.status}: ${JSON.stringify(last.body)}`, warmup);
    samples.push(last.ms);
  }
  const cpu = sampler.stop();
  const cost = run.clickhouseUrl && before ? readCost(before, await clickhouseCounters(run.clickhouseUrl), samples.length) : null;
  return {
    ...base,
    request: shown,
    warmup,
    latency: { ...summarise(samples), samplesMs: samples.map((s) => Math.round(s * 10) / 10) },
    answer: describeAnswer(spec.kind, last!.body, now),
    cost,
    cpu,
    error: null,
  };
}
