import type { LatencySamples } from './results.js';

/**
 * The targets the report judges, and how it writes figures: shared by bench/report.ts and the alert
 * sections (bench/report-alerts.ts).
 */

/**
 * The performance targets for distributed mode on this 2-core machine with everything local: ingest
 * throughput (batched and single-event), ingest→readable p99, ingest→alert delivered p99 (with one
 * `every` rule, and with 100 threshold rules on the load's app), absence alerts delivered within
 * 2 s of their deadline, as the API promises for each of them, and the read API's p99 at 10 million
 * events of one app.
 */
export const TARGETS = {
  batchEventsPerSecond: 50_000,
  singleRequestsPerSecond: 5_000,
  readableP99Ms: 2_000,
  alertDeliveredP99Ms: 1_000,
  thresholdAlertDeliveredP99Ms: 300,
  absenceAfterDeadlineMaxMs: 2_000,
  /** Reads at scale (10 M events in one app, ClickHouse 18.16): a page of the event list, a dashboard's count or top list. */
  readListP99Ms: 50,
  readStatsP99Ms: 300,
} as const;

export const int = (n: number | null | undefined): string => (n === null || n === undefined ? 'n/a' : Math.round(n).toLocaleString('en-US'));
export const ms = (n: number | null | undefined): string => (n === null || n === undefined ? 'n/a' : n < 10 ? n.toFixed(1) : int(n));
export const ratio = (a: number | null, b: number | null): string => (a === null || b === null || b === 0 ? 'n/a' : `${((a / b) * 100).toFixed(1)} %`);
export const cores = (n: number | undefined): string => (n === undefined ? '' : n.toFixed(2));
export const one = (n: number): string => (n < 10 ? n.toFixed(1) : int(n));

export function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

export function verdict(met: boolean | null): string {
  if (met === null) return 'not measured';
  return met ? '**met**' : '**not met**';
}

/**
 * The 99th percentile with probes that never became readable counted as slower than everything
 * else: a timed-out probe is the worst sample, not a missing one.
 */
export function effectiveP99(probe: LatencySamples | null): { value: number | null; text: string } {
  if (!probe || probe.samples + probe.timedOut === 0) return { value: null, text: 'n/a' };
  const total = probe.samples + probe.timedOut;
  const rank = Math.ceil(0.99 * total);
  if (rank > probe.samples) return { value: Number.POSITIVE_INFINITY, text: `> ${ms(probe.max)} (${probe.timedOut} of ${total} probes timed out)` };
  const sorted = [...probe.samplesMs].sort((a, b) => a - b);
  const value = sorted[rank - 1]!;
  return { value, text: ms(value) };
}
