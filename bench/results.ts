import type { ClickHouseActivity } from './clickhouse-counters.js';
import type { CodeVersion } from './code-version.js';
import type { CpuUsage } from './cpu.js';
import type { RequestShape } from './events.js';
import type { BatchStats } from './kafka-batches.js';
import type { LoadOutcome } from './load.js';

/**
 * The shape of bench/results/latest.json: every figure of a run, as measured. bench/REPORT.md is
 * rendered from this and nothing else, so a figure in the report can always be traced to the raw
 * result it came from.
 */

export interface LatencySummary {
  readonly samples: number;
  /** Milliseconds; null when there were no samples. */
  readonly p50: number | null;
  readonly p99: number | null;
  readonly max: number | null;
}

/** Latency samples, and the waits that ended without one (the worst samples of all). */
export interface LatencySamples extends LatencySummary {
  /** Probe events answered 202 but not seen (readable, delivered) within the probe timeout. */
  readonly timedOut: number;
  /** Every sample, milliseconds, so that steps can be merged and re-analysed later. */
  readonly samplesMs: readonly number[];
}

export interface ProbeResult extends LatencySamples {
  /** Probe ingest requests that did not get a 202 (not a visibility sample at all). */
  readonly notAccepted: number;
}

export interface LoadStep {
  readonly shape: RequestShape;
  readonly connections: number;
  /** Seconds autocannon actually ran. */
  readonly durationSeconds: number;
  readonly accepted: number;
  readonly eventsPerSecond: number;
  readonly requestsPerSecond: number;
  /** Request latency over every response of the step, milliseconds. */
  readonly latency: { readonly p50: number; readonly p99: number; readonly max: number };
  /** Everything that was not a 202: status codes by count, plus socket errors and timeouts. */
  readonly non202: Readonly<Record<string, number>>;
  readonly non202Total: number;
  readonly probe: ProbeResult | null;
  /**
   * Distributed mode only: seconds after the load stopped until every accepted event of the step
   * was in ClickHouse, and the resulting end-to-end rate (accepted events / (load + drain time)).
   * Null in embedded mode, where a 202 already means stored. `drainSeconds` is null if the worker
   * had not caught up within the drain timeout.
   */
  readonly endToEnd: { readonly drainSeconds: number | null; readonly eventsPerSecond: number | null } | null;
  /**
   * Distributed mode only: the record batches the edge wrote to Kafka during the step (one per
   * produce call, since the benchmark's one app uses one partition). Null where not measured.
   */
  readonly produceBatches: BatchStats | null;
  /** Distributed mode only: ClickHouse's work from the start of the load until the step drained. */
  readonly clickhouse: ClickHouseActivity | null;
  readonly cpu: CpuUsage;
}

export type TargetKind = 'bare-http' | 'embedded' | 'distributed';

export interface TargetResult {
  readonly kind: TargetKind;
  /** Human label, e.g. "distributed (api + worker)". */
  readonly label: string;
  /** Distributed mode: 'split' = one api and one worker process; 'all' = one process with both roles. */
  readonly layout: 'split' | 'all' | null;
  readonly steps: readonly LoadStep[];
  /** Probe samples of every step together. */
  readonly probeOverall: ProbeResult | null;
  /**
   * Distributed mode: the best single-event step and the best batch step (end to end) measured once
   * more after all steps, the measure of how much two runs of the same step differ. Not counted in
   * any figure of the steps. Absent in results written before repeats were measured.
   */
  readonly repeats?: readonly LoadStep[];
}

export interface KafkaPerfResult {
  readonly command: string;
  readonly topicPartitions: number;
  readonly recordSize: number;
  readonly records: number;
  readonly recordsPerSecond: number;
  readonly mbPerSecond: number;
  readonly latencyMs: { readonly avg: number; readonly max: number; readonly p50: number; readonly p95: number; readonly p99: number; readonly p999: number };
  readonly cpu: CpuUsage;
}

/** One background load of the alerts benchmark: as asked of autocannon, and as measured. */
export interface AlertLoad extends LoadOutcome {
  readonly shape: RequestShape;
  readonly connections: number;
  /** Requests per second asked of autocannon over all connections (its overallRate); null: as fast as answered. */
  readonly requestsPerSecondLimit: number | null;
}

/** Every event of the load matches a rule: how fast the pipeline turns events into delivered alerts. */
export interface AlertThroughput {
  readonly load: AlertLoad;
  /** What the rule matches and when it triggers, in words. */
  readonly rule: string;
  readonly ruleId: string;
  /** Accepted events of the load, every one a match. */
  readonly matchingEvents: number;
  /**
   * The alerts they should make: one per match for an `every` rule, one per N matches for a
   * threshold of N. Absent in results written before threshold rules: then `matchingEvents`.
   */
  readonly expectedAlerts?: number;
  /** Their alerts that reached the receiver, until all had or the drain timeout. */
  readonly delivered: number;
  /** Of those, the ones that arrived while the load ran. */
  readonly deliveredDuringLoad: number;
  /** Alerts still to come when the load's last request was answered: the backlog the drain works off. Absent in older results. */
  readonly backlog?: number;
  /** Seconds from the start of the load until the first alert arrived: how long the pipeline takes to get going. */
  readonly firstAlertSeconds: number | null;
  /** Seconds after the load until the last alert arrived; null if not all arrived within the drain timeout. */
  readonly drainSeconds: number | null;
  readonly drainTimeoutSeconds: number;
  /**
   * The delivery rate: delivered alerts ÷ seconds from the first to the last of them, the load's time
   * included (so it is limited by the rate the load offered, when that was lower); null with fewer
   * than two alerts.
   */
  readonly alertsPerSecond: number | null;
  /**
   * The capacity: alerts delivered after the load ÷ seconds from the load's end to the last alert, a
   * backlog worked off with nothing more offered; null if not drained. Absent in older results.
   */
  readonly drainAlertsPerSecond?: number | null;
  /** Expected alerts ÷ seconds from the start of the load until the last alert; null if not drained. */
  readonly endToEndAlertsPerSecond: number | null;
  /** From the start of the load until every alert arrived (or the drain timeout). */
  readonly cpu: CpuUsage;
}

/** Ingest→alert delivered under the background load, measured by probes. */
export interface AlertLatency {
  /** What the probes' rule matches, in words. */
  readonly rule: string;
  readonly probeIntervalMs: number;
  readonly probeTimeoutMs: number;
  /** The background loads that ran side by side during the measurement. */
  readonly load: readonly AlertLoad[];
  /** From each probe's 202 to its webhook reaching the receiver. */
  readonly probe: ProbeResult;
  /** During the background load. */
  readonly cpu: CpuUsage;
}

/** The same with threshold rules: each probe request carries the N events of a group, the last one triggering. */
export interface ThresholdLatency extends AlertLatency {
  /** Enabled threshold rules on the load's app, all of them probed in turn. */
  readonly rules: number;
  readonly trigger: { readonly count: number; readonly windowSeconds: number; readonly groupBy: string };
}

/** Absence rules on an app that gets none of their events: from each rule's deadline to its alert's arrival. */
export interface AbsenceLatency {
  /** Human label of the service target: "distributed (api + worker)", "embedded". */
  readonly label: string;
  readonly rules: number;
  readonly windowSeconds: number;
  /** Seconds from the earliest deadline to the latest (the rules are created together). */
  readonly deadlineSpreadSeconds: number | null;
  /** How long after the latest possible deadline the benchmark waited for missing alerts. */
  readonly timeoutMs: number;
  /** One sample per rule: its alert's arrival minus its deadline; timedOut = rules with no alert. */
  readonly lateness: LatencySamples;
  /** Absence alerts beyond the first of a rule (there is one silence per rule, so there should be none). */
  readonly extraAlerts: number;
}

/** Ingest→alert delivered in distributed mode (api + worker), through a webhook to the benchmark. */
export interface AlertsResult {
  /** Human label of the service target, e.g. "distributed (api + worker)". */
  readonly label: string;
  readonly latency: AlertLatency & { readonly probeRuleId: string };
  /** Null when not measured (the rule never went live); the reason is under problems. */
  readonly throughput: AlertThroughput | null;
  /** These three are absent in results written before threshold and absence rules; null when not measured. */
  readonly thresholdLatency?: ThresholdLatency | null;
  /** Every event matches a threshold rule of the smallest N: the counterpart of `throughput`. */
  readonly thresholdThroughput?: AlertThroughput | null;
  /** Per mode measured (distributed first). */
  readonly absence?: readonly AbsenceLatency[];
  /** Requests to the receiver whose body was not an alert. */
  readonly unreadableWebhooks: number;
  /** Alerts the receiver got again for a (rule, event) it had had (counted once in every figure above). */
  readonly duplicateWebhooks: number;
}

/** One app of the reads benchmark's data set. */
export interface ReadsAppSize {
  readonly events: number;
  readonly customers: number;
}

/** How the reads benchmark's events were written, and the state the store was left in. */
export interface ReadsSeeding {
  /** Events in the table after seeding. */
  readonly rows: number;
  readonly insertStatements: number;
  /** The INSERTs, one after the other. */
  readonly insertSeconds: number;
  /** Rounds of the store's upkeep until it found no past day left to compact or roll up, and their time. */
  readonly upkeepRounds: number;
  readonly compactedDays: number;
  /** Absent in runs before rollups existed. */
  readonly rolledUpDays?: number;
  readonly compactSeconds: number;
  /** Then until the engine ran no merge in the database (absent in runs before it was awaited). */
  readonly settleSeconds?: number;
  /** Day partitions and active parts of today's, after compaction (the engine may merge today's later). */
  readonly partitions: number;
  readonly partsToday: number;
  /** The table's bytes on disk, compressed. */
  readonly bytes: number;
  /** The customer index's (absent in runs before it existed). */
  readonly customerIndexBytes?: number;
  /** The events' time range (ISO 8601): the 30 days up to when seeding started. */
  readonly from: string;
  readonly to: string;
  /** Events of the large app that the filtered reads match, over the whole range. */
  readonly largeAppMatches: { readonly levelError: number; readonly type: number; readonly customer: number };
}

/** ClickHouse's server-wide counters over one read case's measured requests, per request. */
export interface ReadCost {
  readonly selects: number;
  /** Granules the SELECTs chose to read (SelectedMarks): what the primary keys did not rule out (1,024 rows each in the events table and the customer index, 8,192 in the rollups). */
  readonly marks: number;
  /** Compressed bytes read from the columns' files (ReadCompressedBytes), page cache included. */
  readonly compressedBytes: number;
}

export type ReadKind = 'list' | 'event' | 'stats' | 'top';

/** One read request, timed over and over with the same parameters. */
export interface ReadCase {
  /** `large` (10 M events) or `small` (one of the 1 M-event apps). */
  readonly app: 'large' | 'small';
  readonly kind: ReadKind;
  /** What it asks, in words: "first page, level=error", "24 h by minute, groupBy=level". */
  readonly label: string;
  /** The path and query as sent, the app id as {appId} and a cursor as {cursor}. */
  readonly request: string;
  /** Unmeasured requests before the samples (fewer than five for reads of seconds). */
  readonly warmup: number;
  readonly latency: LatencySummary & { readonly samplesMs: readonly number[] };
  /** What the last measured answer held, to show the read did its work: "25 events", "total 9,974,210". */
  readonly answer: string;
  /** Distributed mode only; null in embedded mode (chDB runs inside the service). */
  readonly cost: ReadCost | null;
  /** CPU during the measured requests, by process group as in the load steps; null when the case failed. */
  readonly cpu: CpuUsage | null;
  /** Why the case stopped early (a status other than 200, too few pages); null when it ran through. */
  readonly error: string | null;
}

export interface ReadsTarget {
  /** "distributed (api + worker)" or "embedded". */
  readonly label: string;
  readonly kind: 'distributed' | 'embedded';
  /** The engine that held the events: "ClickHouse 18.16.1", "chDB 3.4.0 (engine 26.7.2.1)". */
  readonly engine: string;
  readonly seeding: ReadsSeeding;
  readonly cases: readonly ReadCase[];
}

/**
 * The reads benchmark (bench/reads.ts). It carries its own run's time, command and code: a run of
 * `--only reads` keeps the other parts of the results file it replaces (see bench/run.ts).
 */
export interface ReadsResult extends RunInfo {
  /** The data set: events and customers per app (the first is the large one), days, event names. */
  readonly dataset: {
    readonly apps: readonly ReadsAppSize[];
    readonly days: number;
    readonly eventNames: number;
    readonly type: string;
    readonly customer: string;
  };
  readonly targets: readonly ReadsTarget[];
  readonly problems: readonly string[];
}

export interface MachineInfo {
  readonly cpuModel: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
  readonly versions: Readonly<Record<string, string>>;
}

/** When, how, on what and on which code a run measured. */
export interface RunInfo {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly command: string;
  readonly machine: MachineInfo;
  /** The code measured, read at the start and at the end: they differ if someone edited src/ meanwhile. */
  readonly code: { readonly start: CodeVersion; readonly end: CodeVersion };
  readonly loadAverage: { readonly start: readonly number[]; readonly end: readonly number[] };
}

export interface BenchResults extends RunInfo {
  readonly settings: {
    readonly durationSeconds: number;
    readonly connections: readonly number[];
    readonly shapes: readonly RequestShape[];
    readonly warmupSeconds: number;
    readonly probeIntervalMs: number;
    readonly probePollMs: number;
    readonly probeTimeoutMs: number;
    readonly eventBytes: number;
    readonly batchSize: number;
    readonly messageBytes: number;
    /**
     * How the service processes ran: `built` (dist/main.js, as npm start runs it) since 2026-11-26;
     * absent in earlier results, whose services ran from source through tsx.
     */
    readonly serviceEntry?: 'built';
  };
  readonly targets: readonly TargetResult[];
  readonly kafkaPerf: KafkaPerfResult | null;
  /** Absent in results written before the alerts benchmark existed; null when not measured. */
  readonly alerts?: AlertsResult | null;
  /** Absent in results written before the reads benchmark existed; null when not measured. */
  readonly reads?: ReadsResult | null;
  /** Things that went wrong but did not stop the run (a failed clean-up, a ceiling that could not run). */
  readonly problems: readonly string[];
}
