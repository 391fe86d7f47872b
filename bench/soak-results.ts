import type { CodeVersion } from './code-version.js';
import type { CpuUsage } from './cpu.js';
import type { MachineInfo } from './results.js';
import type { PacedInterval } from './soak-pacer.js';
import type { ServiceMemory, StackServer } from './soak-readings.js';

/**
 * The shape of bench/results/soak-latest.json, and the verdicts computed from it. bench/SOAK.md is
 * rendered from this alone (bench/soak-report.ts), like bench/REPORT.md from latest.json.
 */

export type ServiceRole = 'api' | 'worker';

/** Cumulative counters of the service's own metrics (docs/metrics.md), summed over their labels. */
export interface SoakCounters {
  readonly eventsAccepted: number;
  readonly eventsRejected: number;
  readonly http5xx: number;
  readonly produceErrors: number;
  readonly rateLimiterFailOpen: number;
  readonly rowsInserted: number;
  readonly insertErrors: number;
  readonly deadLettered: number;
  readonly rulesFired: number;
  readonly deliveriesSucceeded: number;
  readonly deliveriesRetried: number;
  readonly deliveriesFailed: number;
}

/** The counters that are failures; each one should stay at 0 through a soak. */
export const ERROR_COUNTERS = ['eventsRejected', 'http5xx', 'produceErrors', 'insertErrors', 'deadLettered', 'deliveriesRetried', 'deliveriesFailed'] as const;
/**
 * Counted and shown, but not failures: a request let through unchecked because Redis took longer than
 * the limiter's deadline (250 ms) was still accepted and stored. On a saturated machine it is the
 * first thing to move, so it tells a busy machine from a broken service.
 */
export const DEGRADATION_COUNTERS = ['rateLimiterFailOpen'] as const;

export interface SoakSample {
  /** 'idle', 'before load', 'after warm-up', 'minute 2', ..., 'end of load', 'drained'. */
  readonly label: string;
  /** Seconds since the paced load started (negative before it). */
  readonly atSeconds: number;
  readonly takenAt: string;
  readonly services: Readonly<Record<ServiceRole, ServiceMemory>>;
  /** Bytes: VmRSS of Kafka, ClickHouse and Redis; PostgreSQL's Pss summed over the postmaster and backends. */
  readonly stack: Readonly<Record<StackServer, number | null>>;
  /** Messages not yet committed, by group: `worker` (events to store), `rules` (to evaluate), `delivery` (alerts to send). */
  readonly lag: Readonly<Record<'worker' | 'rules' | 'delivery', number | null>>;
  /** Null where a scrape failed (the reason is under problems). */
  readonly counters: SoakCounters | null;
  /** Failures since the paced load started: the load's (non-202, request errors, timeouts) and the service's. */
  readonly loadErrors: number;
  readonly serviceErrors: number | null;
  /** The load over the interval since the previous sample, while the paced load ran. */
  readonly load: PacedInterval | null;
  /** Events accepted per second over that interval. */
  readonly eventsPerSecond: number | null;
  /** Cores each process used over the interval since the previous sample. */
  readonly cpu: CpuUsage | null;
}

export interface RampStep {
  readonly connections: number;
  readonly seconds: number;
  /** Accepted at the edge. */
  readonly eventsPerSecond: number;
  readonly latencyMs: { readonly p50: number; readonly p99: number; readonly max: number };
  readonly non202: Readonly<Record<string, number>>;
  /** Seconds after the step until ClickHouse held every accepted event; null if not within the bound. */
  readonly drainSeconds: number | null;
  /** Accepted events ÷ (load + drain seconds): what the pair sustains end to end. */
  readonly endToEndEventsPerSecond: number | null;
  /** Why the step does not count towards the capacity; null if it does. */
  readonly disqualified: string | null;
}

export interface Growth {
  readonly name: string;
  readonly fromBytes: number | null;
  readonly toBytes: number | null;
  readonly percent: number | null;
  /** Least-squares slope over the samples from the warm-up to the end of the load, MB per hour (runs of 10 min or more). */
  readonly mbPerHour: number | null;
}

export interface SoakVerdicts {
  readonly maxRssGrowthPercent: number;
  /** RSS of the api and worker processes from after the warm-up to the end of the load. */
  readonly rss: ReadonlyArray<Growth & { readonly pass: boolean }>;
  /** The same for the heaps and the stack's servers: for reading, not judged. */
  readonly heapUsed: readonly Growth[];
  readonly stack: readonly Growth[];
  readonly errors: {
    readonly total: number;
    readonly byKind: Readonly<Record<string, number>>;
    /** DEGRADATION_COUNTERS that moved: reported with the errors, not judged. */
    readonly degradations: Readonly<Record<string, number>>;
    readonly pass: boolean;
  };
  readonly lag: { readonly drainedSeconds: number | null; readonly timeoutSeconds: number; readonly after: SoakSample['lag']; readonly pass: boolean };
  readonly pass: boolean;
}

export interface SoakResults {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly command: string;
  readonly settings: {
    readonly minutes: number;
    readonly warmupSeconds: number;
    readonly sampleEverySeconds: number;
    readonly batchSize: number;
    /** Events per request that the notification rule matches. */
    readonly matchingPerRequest: number;
    readonly rule: string;
    readonly rampStepSeconds: number;
    readonly rampConnections: readonly number[];
    readonly drainTimeoutSeconds: number;
  };
  readonly machine: MachineInfo;
  readonly code: { readonly start: CodeVersion; readonly end: CodeVersion };
  readonly loadAverage: { readonly start: readonly number[]; readonly end: readonly number[] };
  readonly stackPids: Readonly<Record<StackServer, number | null>>;
  /** Null when --rate set the load instead of a ramp. */
  readonly capacity: { readonly steps: readonly RampStep[]; readonly eventsPerSecond: number } | null;
  readonly offered: { readonly eventsPerSecond: number; readonly requestsPerSecond: number };
  /** The paced load over the whole run. */
  readonly load: PacedInterval;
  readonly achievedEventsPerSecond: number;
  readonly alerts: { readonly fired: number | null; readonly delivered: number; readonly duplicates: number; readonly unreadable: number };
  readonly samples: readonly SoakSample[];
  readonly verdicts: SoakVerdicts;
  readonly problems: readonly string[];
}

const MB = 1024 * 1024;

function growth(name: string, samples: readonly SoakSample[], read: (s: SoakSample) => number | null): Growth {
  const from = samples[0] ? read(samples[0]) : null;
  const to = samples.at(-1) ? read(samples.at(-1)!) : null;
  const points = samples.map((s) => [s.atSeconds / 3600, read(s)] as const).filter((p): p is readonly [number, number] => p[1] !== null);
  const trend = slope(points);
  return {
    name,
    fromBytes: from,
    toBytes: to,
    percent: from !== null && to !== null && from > 0 ? ((to - from) / from) * 100 : null,
    mbPerHour: trend === null ? null : trend / MB,
  };
}

/**
 * Null below three points (through two, a line says nothing the growth does not) or under ten
 * minutes (an hourly rate from a couple of minutes of settling memory is an extrapolation, not a trend).
 */
function slope(points: ReadonlyArray<readonly [number, number]>): number | null {
  if (points.length < 3 || points.at(-1)![0] - points[0]![0] < 10 / 60) return null;
  const mx = points.reduce((a, [x]) => a + x, 0) / points.length;
  const my = points.reduce((a, [, y]) => a + y, 0) / points.length;
  const sxx = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  return sxx === 0 ? null : points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0) / sxx;
}

export interface VerdictInput {
  readonly samples: readonly SoakSample[];
  /** Which samples bound the judged window: after the warm-up, and at the end of the load. */
  readonly warmLabel: string;
  readonly endLabel: string;
  readonly load: PacedInterval;
  /** The counters just before the paced load, and after the drain. */
  readonly countersBefore: SoakCounters | null;
  readonly countersAfter: SoakCounters | null;
  readonly alertsMissing: number | null;
  readonly drainedSeconds: number | null;
  readonly drainTimeoutSeconds: number;
  readonly maxRssGrowthPercent: number;
}

export function computeVerdicts(v: VerdictInput): SoakVerdicts {
  const from = v.samples.findIndex((s) => s.label === v.warmLabel);
  const to = v.samples.findIndex((s) => s.label === v.endLabel);
  const window = from >= 0 && to >= from ? v.samples.slice(from, to + 1) : [];
  const roles: ServiceRole[] = ['api', 'worker'];
  const rss = roles.map((role) => {
    const g = growth(role, window, (s) => s.services[role].rssBytes);
    return { ...g, pass: g.percent !== null && g.percent <= v.maxRssGrowthPercent };
  });
  const heapUsed = roles.map((role) => growth(role, window, (s) => s.services[role].heapUsedBytes));
  const stack = (['kafka', 'clickhouse', 'redis', 'postgresql'] as const).map((server) => growth(server, window, (s) => s.stack[server]));

  const byKind: Record<string, number> = {};
  for (const [status, n] of Object.entries(v.load.non202)) byKind[`answered ${status}`] = n;
  for (const [code, n] of Object.entries(v.load.requestErrorCodes)) byKind[`request errors ${code}`] = n;
  if (v.load.timeouts > 0) byKind['request timeouts'] = v.load.timeouts;
  const degradations: Record<string, number> = {};
  if (v.countersBefore && v.countersAfter) {
    for (const name of ERROR_COUNTERS) {
      const moved = v.countersAfter[name] - v.countersBefore[name];
      if (moved > 0) byKind[name] = moved;
    }
    for (const name of DEGRADATION_COUNTERS) {
      const moved = v.countersAfter[name] - v.countersBefore[name];
      if (moved > 0) degradations[name] = moved;
    }
  } else {
    byKind['service metrics unreadable'] = 1;
  }
  if (v.alertsMissing === null || v.alertsMissing > 0) byKind['alerts not delivered'] = v.alertsMissing ?? 1;
  const errorsTotal = Object.values(byKind).reduce((a, b) => a + b, 0);

  const last = v.samples.at(-1);
  const after = last?.lag ?? { worker: null, rules: null, delivery: null };
  const lagPass = v.drainedSeconds !== null && after.worker === 0 && after.rules === 0 && after.delivery === 0;
  const result = {
    maxRssGrowthPercent: v.maxRssGrowthPercent,
    rss,
    heapUsed,
    stack,
    errors: { total: errorsTotal, byKind, degradations, pass: errorsTotal === 0 },
    lag: { drainedSeconds: v.drainedSeconds, timeoutSeconds: v.drainTimeoutSeconds, after, pass: lagPass },
  };
  return { ...result, pass: rss.every((r) => r.pass) && result.errors.pass && lagPass };
}

/** Failures the service counted since `before`, summed (the load's own are counted by the pacer). */
export function serviceErrorsSince(before: SoakCounters | null, now: SoakCounters | null): number | null {
  if (!before || !now) return null;
  // Rejections and 5xx are the service's view of answers the pacer counts already as non-202.
  const own = ERROR_COUNTERS.filter((name) => name !== 'eventsRejected' && name !== 'http5xx');
  return own.reduce((sum, name) => sum + (now[name] - before[name]), 0);
}
