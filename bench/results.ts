import type { ClickHouseActivity } from './clickhouse-counters.js';
import type { CodeVersion } from './code-version.js';
import type { CpuUsage } from './cpu.js';
import type { RequestShape } from './events.js';
import type { BatchStats } from './kafka-batches.js';

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

export interface ProbeResult extends LatencySummary {
  /** Probe events answered 202 but not readable within the probe timeout. */
  readonly timedOut: number;
  /** Probe ingest requests that did not get a 202 (not a visibility sample at all). */
  readonly notAccepted: number;
  /** Every sample, milliseconds, so that steps can be merged and re-analysed later. */
  readonly samplesMs: readonly number[];
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

export interface MachineInfo {
  readonly cpuModel: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
  readonly versions: Readonly<Record<string, string>>;
}

export interface BenchResults {
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly command: string;
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
  };
  readonly machine: MachineInfo;
  /** The code measured, read at the start and at the end: they differ if someone edited src/ meanwhile. */
  readonly code: { readonly start: CodeVersion; readonly end: CodeVersion };
  readonly loadAverage: { readonly start: readonly number[]; readonly end: readonly number[] };
  readonly targets: readonly TargetResult[];
  readonly kafkaPerf: KafkaPerfResult | null;
  /** Things that went wrong but did not stop the run (a failed clean-up, a ceiling that could not run). */
  readonly problems: readonly string[];
}
