import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BenchResults, LoadStep, TargetResult } from './results.js';
import { batchEndToEndRate, best, bestBatch, bestBatchEndToEnd, bestSingle, batches, singleRate } from './best-steps.js';
import { eventsPerRequest } from './events.js';
import { alertTargetRows, alertsSection } from './report-alerts.js';
import { readTargetRows, readsSection } from './report-reads.js';
import { TARGETS, cores, effectiveP99, int, ms, one, ratio, table, verdict } from './report-format.js';

/**
 * Renders bench/REPORT.md from one run's results, and from nothing else: every figure in it is
 * computed here from bench/results/latest.json, so the report cannot drift from what was measured.
 * The one hand-written part, bench/NOTES.md (the analysis of where the time goes), is appended under
 * its own heading and says which run it was written from.
 */

const NOTES_FILE = fileURLToPath(new URL('./NOTES.md', import.meta.url));

const at = (step: LoadStep | null): string => (step ? `${step.shape}, ${step.connections} connection${step.connections === 1 ? '' : 's'}` : 'no step');

function targetsSection(r: BenchResults): string {
  const distributed = r.targets.filter((t) => t.kind === 'distributed');
  const rows: string[][] = [];
  for (const t of distributed) {
    const e2e = bestBatchEndToEnd(t);
    rows.push([
      `≥ ${int(TARGETS.batchEventsPerSecond)} events/s sustained in 100-event batches, end to end (accepted and stored in ClickHouse)`,
      t.label,
      `${int(e2e.value)} events/s (${at(e2e.step)})`,
      verdict(e2e.value === null ? null : e2e.value >= TARGETS.batchEventsPerSecond),
    ]);
  }
  for (const t of distributed) {
    const single = bestSingle(t);
    rows.push([
      `≥ ${int(TARGETS.singleRequestsPerSecond)} single-event requests/s at the edge (202s)`,
      t.label,
      `${int(single.value)} req/s (${at(single.step)})`,
      verdict(single.value === null ? null : single.value >= TARGETS.singleRequestsPerSecond),
    ]);
  }
  for (const t of distributed) {
    const p99 = effectiveP99(t.probeOverall);
    rows.push([
      `ingest→readable p99 ≤ ${int(TARGETS.readableP99Ms)} ms, over every probe of every step`,
      t.label,
      `${p99.text} ms (${t.probeOverall?.samples ?? 0} samples)`,
      verdict(p99.value === null ? null : p99.value <= TARGETS.readableP99Ms),
    ]);
  }
  if (r.alerts) rows.push(...alertTargetRows(r.alerts));
  if (r.reads) rows.push(...readTargetRows(r.reads));
  const embedded = r.targets.find((t) => t.kind === 'embedded');
  const ingest = r.alerts ? 'ingest throughput, ingest→readable and ingest→alert latency' : 'ingest throughput and ingest→readable latency';
  return [
    `## Targets: ${ingest}${r.reads ? '; reads at 10 million events' : ''}`,
    '',
    'The targets are for distributed mode. Each layout is judged on its own best step' +
      (r.alerts ? '; the alert targets on the measurements of the section "Alerts"' : '') +
      (r.reads ? '; the read targets on those of "Reads at scale", each request on its own' : '') +
      '.',
    '',
    table(['Target', 'Distributed layout', 'Best measured', 'Verdict'], rows),
    '',
    layoutComparison(distributed),
    '',
    embedded
      ? `For comparison, embedded mode: ${int(bestSingle(embedded).value)} single-event req/s, ` +
        `${int(bestBatch(embedded).value)} events/s in batches at the edge and ${int(bestBatchEndToEnd(embedded).value)} end to end, ingest→readable p99 ${effectiveP99(embedded.probeOverall).text} ms.`
      : '',
    '',
    "A step's end-to-end rate is its accepted events divided by (load time + the time until the event store held all of them), " +
      'so a worker that falls behind lowers it even when the edge answers fast.',
  ].join('\n');
}

/** Two runs of one step of a layout: the step as measured among the others, and its repeat. */
interface TwoRuns {
  readonly first: number | null;
  readonly again: number | null;
}

/** The step of `t.repeats` that measured `step` again. */
const repeatOf = (t: TargetResult, step: LoadStep | null): LoadStep | null =>
  step === null ? null : (t.repeats ?? []).find((r) => r.shape === step.shape && r.connections === step.connections) ?? null;

/**
 * One layout against the other on a figure measured twice each: a layout is named better only when
 * both its runs beat both of the other's, so that a gap no larger than the difference between two
 * runs of the same step is reported as what it is, no difference.
 */
function compareLayouts(what: string, unit: string, higherIsBetter: boolean, labels: readonly [string, string], runs: readonly [TwoRuns, TwoRuns]): string {
  const range = (r: TwoRuns): string => (r.again === null ? one(r.first!) : `${one(Math.min(r.first!, r.again))}–${one(Math.max(r.first!, r.again))}`);
  if (runs.some((r) => r.first === null || !Number.isFinite(r.first))) return `${what}: not comparable`;
  if (runs.some((r) => r.again === null || !Number.isFinite(r.again))) {
    return `${what}: no verdict, the step was measured once, so the difference between two runs is not known (${labels[0]} ${range(runs[0])}, ${labels[1]} ${range(runs[1])} ${unit})`;
  }
  const low = (r: TwoRuns): number => Math.min(r.first!, r.again!);
  const high = (r: TwoRuns): number => Math.max(r.first!, r.again!);
  const beats = (a: TwoRuns, b: TwoRuns): boolean => (higherIsBetter ? low(a) > high(b) : high(a) < low(b));
  const winner = beats(runs[0], runs[1]) ? 0 : beats(runs[1], runs[0]) ? 1 : null;
  if (winner === null) return `${what}: no difference beyond the noise (${labels[0]} ${range(runs[0])}, ${labels[1]} ${range(runs[1])} ${unit} over two runs each)`;
  const loser = 1 - winner;
  return `${what}: ${labels[winner]} (${range(runs[winner])} against ${range(runs[loser]!)} ${unit} over two runs each)`;
}

/** Which distributed layout measured better on each target, in words, from the figures and their repeats. */
function layoutComparison(distributed: readonly TargetResult[]): string {
  const split = distributed.find((t) => t.layout === 'split');
  const all = distributed.find((t) => t.layout === 'all');
  if (!split || !all) return distributed.length === 1 ? `Only one layout was measured: ${distributed[0]!.label}.` : '';
  const labels = [split.label, all.label] as const;
  const twoRuns = (t: TargetResult, chosen: { step: LoadStep | null; value: number | null }, pick: (s: LoadStep) => number | null): TwoRuns => {
    const again = repeatOf(t, chosen.step);
    return { first: chosen.value, again: again ? pick(again) : null };
  };
  const p99 = (s: LoadStep): number | null => effectiveP99(s.probe).value;
  const readable = (t: TargetResult): TwoRuns => {
    const step = bestBatchEndToEnd(t).step;
    const again = repeatOf(t, step);
    return { first: step ? p99(step) : null, again: again ? p99(again) : null };
  };
  return [
    'Which layout measured better on this machine. Each layout\'s best single-event step and best batch step were measured a second time ' +
      'after all its steps; a layout is named only when both its runs beat both runs of the other:',
    '',
    `- ${compareLayouts('batches end to end', 'events/s', true, labels, [twoRuns(split, bestBatchEndToEnd(split), batchEndToEndRate), twoRuns(all, bestBatchEndToEnd(all), batchEndToEndRate)])}`,
    `- ${compareLayouts('single-event requests at the edge', 'req/s', true, labels, [twoRuns(split, bestSingle(split), singleRate), twoRuns(all, bestSingle(all), singleRate)])}`,
    `- ${compareLayouts('ingest→readable p99 at the best batch step', 'ms', false, labels, [readable(split), readable(all)])}`,
  ].join('\n');
}

function ceilingsSection(r: BenchResults): string {
  const bare = r.targets.find((t) => t.kind === 'bare-http');
  const bareSingle = bare ? bestSingle(bare) : null;
  const bareBatch = bare ? bestBatch(bare) : null;
  const lines = ['## Ceilings and the service against them', ''];
  if (bareSingle && bareBatch) {
    lines.push(
      '- **bare node:http** (bench/bare-server.ts: reads the body, JSON.parse, answers 202 with an id per event; same autocannon settings): ' +
        `${int(bareSingle.value)} single-event req/s (${at(bareSingle.step)}), ${int(bareBatch.value)} events/s in batches (${at(bareBatch.step)}).`,
    );
  } else lines.push('- bare node:http: not measured in this run.');
  const k = r.kafkaPerf;
  if (k) {
    lines.push(
      `- **kafka-producer-perf-test** (${int(k.records)} records of ${k.recordSize} bytes, the size of the edge's event message, acks=-1, ` +
        `topic with ${k.topicPartitions} partitions like the events topic): ${int(k.recordsPerSecond)} records/s (${k.mbPerSecond} MB/s), ` +
        `latency p50 ${int(k.latencyMs.p50)} ms, p99 ${int(k.latencyMs.p99)} ms, max ${int(k.latencyMs.max)} ms. ` +
        `CPU meanwhile: broker ${cores(k.cpu.cores.kafka)} cores, whole machine ${cores(k.cpu.machine)} cores (the rest is mostly the perf-test JVM).`,
      '',
      '  ```',
      `  ${k.command}`,
      '  ```',
    );
  } else lines.push('- kafka-producer-perf-test: not measured in this run (see Problems).');
  lines.push('');

  const rows = r.targets
    .filter((t) => t.kind !== 'bare-http')
    .map((t) => {
      const single = bestSingle(t).value;
      const batch = bestBatch(t).value;
      const e2e = bestBatchEndToEnd(t).value;
      return [
        t.label,
        `${int(single)} / ${int(bareSingle?.value)} = ${ratio(single, bareSingle?.value ?? null)}`,
        `${int(batch)} / ${int(k?.recordsPerSecond)} = ${ratio(batch, k?.recordsPerSecond ?? null)}`,
        e2e === null ? 'n/a' : `${int(e2e)} / ${int(k?.recordsPerSecond)} = ${ratio(e2e, k?.recordsPerSecond ?? null)}`,
      ];
    });
  lines.push(
    table(['Service', 'single-event req/s ÷ bare node:http req/s', 'batch events/s at the edge ÷ perf-test records/s', 'batch events/s end to end ÷ perf-test records/s'], rows),
    '',
    'Best step of each side against the best of the other; all figures from this run.',
  );
  return lines.join('\n');
}

function resultRows(t: TargetResult): string[][] {
  return t.steps.map((s) => {
    const non202 = s.non202Total === 0 ? '0' : `${int(s.non202Total)} (${Object.entries(s.non202).map(([k, v]) => `${k}: ${int(v)}`).join(', ')})`;
    const row = [s.shape, String(s.connections), int(s.eventsPerSecond), int(s.requestsPerSecond), ms(s.latency.p50), ms(s.latency.p99), non202];
    if (t.kind !== 'bare-http') {
      const p = s.probe;
      row.push(p ? `${ms(p.p50)} / ${effectiveP99(p).text}` : 'n/a', p ? `${p.samples}${p.timedOut > 0 ? `, ${p.timedOut} timed out` : ''}` : '');
    }
    if (t.kind !== 'bare-http') {
      row.push(s.endToEnd ? (s.endToEnd.drainSeconds === null ? 'did not drain' : s.endToEnd.drainSeconds.toFixed(1)) : '', int(s.endToEnd?.eventsPerSecond));
    }
    return row;
  });
}

/** The parts of the pipeline between the edge and the store: Kafka produce calls and ClickHouse inserts. */
function pipelineTable(t: TargetResult): string {
  const rows = t.steps.map((s) => {
    const b = s.produceBatches;
    const c = s.clickhouse;
    return [
      s.shape,
      String(s.connections),
      b ? int(b.batchesPerSecond) : 'n/a',
      b ? one(b.recordsPerBatch) : 'n/a',
      b && b.batches > 0 ? one((s.accepted * eventsPerRequest(s.shape)) / b.batches) : 'n/a',
      c ? int(c.insertsPerSecond) : 'n/a',
      c ? one(c.rowsPerInsert) : 'n/a',
      c ? one(c.mergedRowsPerInsertedRow) : 'n/a',
      c ? int(c.selectsPerSecond) : 'n/a',
    ];
  });
  return [
    table(['Shape', 'Conns', 'Kafka produce calls/s', 'records per produce call', 'events per produce call', 'ClickHouse INSERTs/s', 'rows per INSERT', 'rows merged per row inserted', 'ClickHouse SELECTs/s'], rows),
    '',
    "Produce calls: the record batches the edge wrote to the events topic during the load, read back from the broker's log with " +
      'kafka.tools.DumpLogSegments (one app, so one partition and one batch per produce call); events per call (accepted events of the step ÷ calls) is what ' +
      'the micro-batching coalesced. Since commit 0e66e4e the edge writes one record per app per call (event message v2), so records per call is 1 with one app. ' +
      "ClickHouse: its server-wide counters (system.events) from the start of the load until the step's events were stored; " +
      'rows merged per row inserted is how often background merges rewrote each row (the cost of many small parts).',
  ].join('\n');
}

/**
 * CPU in cores per process group, plus what no named process accounts for (other people's work, the
 * kernel): the first thing to read when a figure looks off.
 */
function cpuTable(t: TargetResult): string {
  const groups = [...new Set(t.steps.flatMap((s) => Object.keys(s.cpu.cores)))];
  const rows = t.steps.map((s) => {
    const named = groups.reduce((sum, g) => sum + (s.cpu.cores[g] ?? 0), 0);
    return [s.shape, String(s.connections), ...groups.map((g) => cores(s.cpu.cores[g])), cores(Math.max(0, s.cpu.machine - named)), cores(s.cpu.machine)];
  });
  return [
    'CPU during each step, in cores (1.00 = one core busy for the whole step; the machine has two):',
    '',
    table(['Shape', 'Conns', ...groups, 'everything else', 'whole machine'], rows),
  ].join('\n');
}

/**
 * Each service process's main thread: on a core, and ready but waiting for one. Says whether a step
 * was bound by the process's own work or by the cores its neighbours held.
 */
function mainThreadTable(t: TargetResult): string | null {
  const roles = [...new Set(t.steps.flatMap((s) => Object.keys(s.cpu.mainThreads ?? {})))];
  if (roles.length === 0) return null;
  const rows = t.steps.map((s) => {
    const cell = (role: string): string => {
      const time = s.cpu.mainThreads?.[role];
      return time ? `${cores(time.onCore)} / ${cores(time.waiting)}` : 'n/a';
    };
    return [s.shape, String(s.connections), ...roles.map(cell)];
  });
  return [
    "Main thread of each process, seconds per second on a core / ready to run but waiting for one (the kernel's " +
      'scheduler statistics, /proc/PID/task/PID/schedstat): a thread whose two figures add up to about 1.00 is bound by ' +
      'CPU, and its wait is the time the other threads on the machine held both cores.',
    '',
    table(['Shape', 'Conns', ...roles], rows),
  ].join('\n');
}

/** The same CPU time divided by the accepted events: what one event costs each part, in microseconds. */
const isLoadGenerator = (group: string): boolean => group.startsWith('load generator');

/** Cores the step's named processes used, the load generator's left out. */
const serviceCores = (s: LoadStep): number => Object.entries(s.cpu.cores).reduce((sum, [group, c]) => (isLoadGenerator(group) ? sum : sum + c), 0);

/** Cores as CPU microseconds per accepted event of the step; null for a step that accepted none. */
const microsPerEvent = (s: LoadStep, cores: number): number | null => (s.eventsPerSecond > 0 ? (cores * 1e6) / s.eventsPerSecond : null);

function costTable(t: TargetResult): string {
  const groups = [...new Set(t.steps.flatMap((s) => Object.keys(s.cpu.cores)))].filter((g) => !isLoadGenerator(g));
  const rows = t.steps.map((s) => {
    const per = (c: number | undefined): string => {
      const micros = c === undefined ? null : microsPerEvent(s, c);
      return micros === null ? '' : one(micros);
    };
    return [s.shape, String(s.connections), ...groups.map((g) => per(s.cpu.cores[g])), per(serviceCores(s))];
  });
  return [
    'CPU time per accepted event, in microseconds (for single-event requests, per request), without the load generator:',
    '',
    table(['Shape', 'Conns', ...groups, 'total'], rows),
  ].join('\n');
}

/**
 * The figures of the run the performance goals were set against (a 2-core AMD EPYC, distributed
 * mode with an api and a worker process): what each goal is to be read next to.
 */
const PERFORMANCE_BASELINE = {
  distributedSingle: '17 % (2,110 / 12,284 req/s)',
  batchesEndToEnd: '42 % (41,007 events/s end to end)',
  embeddedSingle: '5 % (650 / 12,284 req/s)',
  embeddedReadable: '5,227 ms',
  worstStep: '5,008 ms (embedded, batches, 128 connections)',
  cpuPerEvent: 'not measured then; that code, measured again on 2026-12-06 through the drain: 27.9 µs (bench/NOTES.md)',
};

/** Goals as ratios to the ceilings of the same run, which move with the machine less than absolute figures do. */
const PERFORMANCE_GOALS = { distributedSingle: 0.35, batchesEndToEnd: 0.7, cpuPerEventMicros: 11, embeddedSingle: 0.25, embeddedBatches: 0.5, embeddedReadableP99Ms: 500, stepP99Ms: 1_000 };

/** The best step's CPU time per event over every process but the load generator, in microseconds. */
function leastCpuPerEvent(steps: readonly LoadStep[]): { step: LoadStep | null; value: number | null } {
  const costs = steps.map((s) => ({ step: s, value: microsPerEvent(s, serviceCores(s)) }));
  return costs.reduce<{ step: LoadStep | null; value: number | null }>((least, c) => (c.value !== null && (least.value === null || c.value < least.value) ? c : least), { step: null, value: null });
}

function performanceSection(r: BenchResults): string {
  const bare = r.targets.find((t) => t.kind === 'bare-http');
  const split = r.targets.find((t) => t.kind === 'distributed' && t.layout === 'split');
  const embedded = r.targets.find((t) => t.kind === 'embedded');
  const perf = r.kafkaPerf?.recordsPerSecond ?? null;
  const bareSingle = bare ? bestSingle(bare).value : null;
  const share = (a: number | null, b: number | null): number | null => (a === null || b === null || b === 0 ? null : a / b);
  const rows: string[][] = [];
  const goal = (what: string, measured: string, before: string, met: boolean | null): void => void rows.push([what, measured, before, verdict(met)]);
  if (split) {
    const single = bestSingle(split).value;
    goal(`${split.label}: single events at the edge ≥ 35 % of bare node:http`, `${int(single)} / ${int(bareSingle)} = ${ratio(single, bareSingle)}`, PERFORMANCE_BASELINE.distributedSingle, met(share(single, bareSingle), (v) => v >= PERFORMANCE_GOALS.distributedSingle));
    const e2e = bestBatchEndToEnd(split).value;
    goal(`${split.label}: batches end to end ≥ 70 % of kafka-producer-perf-test`, `${int(e2e)} / ${int(perf)} = ${ratio(e2e, perf)}`, PERFORMANCE_BASELINE.batchesEndToEnd, met(share(e2e, perf), (v) => v >= PERFORMANCE_GOALS.batchesEndToEnd));
    const cpu = leastCpuPerEvent(batches(split));
    goal(`${split.label}: CPU per event in batches, every process but the load generator, ≤ 11 µs`, cpu.value === null ? 'n/a' : `${one(cpu.value)} µs (${at(cpu.step)})`, PERFORMANCE_BASELINE.cpuPerEvent, met(cpu.value, (v) => v <= PERFORMANCE_GOALS.cpuPerEventMicros));
  }
  if (embedded) {
    const single = bestSingle(embedded).value;
    goal('embedded: single events ≥ 25 % of bare node:http', `${int(single)} / ${int(bareSingle)} = ${ratio(single, bareSingle)}`, PERFORMANCE_BASELINE.embeddedSingle, met(share(single, bareSingle), (v) => v >= PERFORMANCE_GOALS.embeddedSingle));
    const e2e = bestBatchEndToEnd(embedded).value;
    const distributedE2e = split ? bestBatchEndToEnd(split).value : null;
    goal('embedded: batches end to end ≥ 50 % of the distributed end-to-end figure', `${int(e2e)} / ${int(distributedE2e)} = ${ratio(e2e, distributedE2e)}`, 'n/a', met(share(e2e, distributedE2e), (v) => v >= PERFORMANCE_GOALS.embeddedBatches));
    const worst = best(embedded.steps, (s) => effectiveP99(s.probe).value);
    goal('embedded: ingest→readable p99 ≤ 500 ms at every step', worst.value === null ? 'n/a' : `worst ${effectiveP99(worst.step!.probe).text} ms (${at(worst.step)})`, PERFORMANCE_BASELINE.embeddedReadable, met(worst.value, (v) => v <= PERFORMANCE_GOALS.embeddedReadableP99Ms));
  }
  const services = r.targets.filter((t) => t.kind !== 'bare-http');
  const slowest = services
    .map((t) => ({ t, ...best(t.steps.filter((s) => s.connections <= 128), (s) => s.latency.p99) }))
    .reduce<{ t: TargetResult | null; step: LoadStep | null; value: number | null }>((w, c) => (c.value !== null && (w.value === null || c.value > w.value) ? c : w), { t: null, step: null, value: null });
  if (slowest.t) {
    goal('every mode: no step with a request p99 over 1 s at ≤ 128 connections', `worst ${ms(slowest.value)} ms (${slowest.t.label}, ${at(slowest.step)})`, PERFORMANCE_BASELINE.worstStep, met(slowest.value, (v) => v <= PERFORMANCE_GOALS.stepP99Ms));
  }
  return [
    '## Performance goals: ratios to the ceilings of this run',
    '',
    'Each goal against the figure of the run it was set on (2-core AMD EPYC; the ceilings there were 12,284 single-event req/s for bare node:http). ' +
      'Ratios, because the machine\'s speed moves between runs by 2–4× while the ratios to ceilings measured in the same run move far less.',
    '',
    table(['Goal', 'This run', 'Before', 'Verdict'], rows),
  ].join('\n');
}

function met(value: number | null, holds: (v: number) => boolean): boolean | null {
  return value === null ? null : holds(value);
}

function targetSection(t: TargetResult): string {
  const header = ['Shape', 'Conns', 'events/s', 'req/s', 'p50 ms', 'p99 ms', 'non-202'];
  if (t.kind !== 'bare-http') header.push('readable p50 / p99 ms', 'probes');
  if (t.kind !== 'bare-http') header.push('drain s', 'end-to-end events/s');
  const lines = [`### ${t.label}`, '', table(header, resultRows(t)), ''];
  if (t.probeOverall) {
    lines.push(
      `Ingest→readable over all steps: p50 ${ms(t.probeOverall.p50)} ms, p99 ${effectiveP99(t.probeOverall).text} ms, max ${ms(t.probeOverall.max)} ms ` +
        `(${t.probeOverall.samples} samples, ${t.probeOverall.timedOut} timed out, ${t.probeOverall.notAccepted} probe ingests not accepted).`,
      '',
    );
  }
  if (t.kind === 'distributed') lines.push(pipelineTable(t), '');
  lines.push(cpuTable(t), '');
  const mainThreads = mainThreadTable(t);
  if (mainThreads) lines.push(mainThreads, '');
  if (t.kind !== 'bare-http') lines.push(costTable(t), '');
  return lines.join('\n');
}

/** `resultsPath`: where the run's results file is, relative to the repository, as the report names it. */
export function renderReport(r: BenchResults, resultsPath: string): string {
  const m = r.machine;
  const s = r.settings;
  const load = (l: readonly number[]): string => l.map((x) => x.toFixed(2)).join(' / ');
  const notes = existsSync(NOTES_FILE) ? readFileSync(NOTES_FILE, 'utf8').trim() : '';
  const code = r.code;
  // A run of the reads alone keeps the rest of the results it replaced (bench/run.ts).
  const readsApart = r.reads && (r.reads.startedAt < r.startedAt || r.reads.finishedAt > r.finishedAt) ? r.reads : null;
  return `${[
    '# Ingest benchmark',
    '',
    `Generated by \`bench/run.ts\` from the run of ${r.startedAt} to ${r.finishedAt} (UTC); the raw results are in ` +
      `\`${resultsPath}\`. Every figure in the sections before "Notes" comes from that run and is computed by bench/report.ts; none is typed by hand.` +
      (readsApart
        ? ` Except the reads: the section "Reads at scale" and its rows of the targets table come from a run of their own, of ${readsApart.startedAt} to ${readsApart.finishedAt}, ` +
          'added to the same results file; that section names its code and machine.'
        : ''),
    '',
    '## Reproduce',
    '',
    '```sh',
    r.command,
    ...(readsApart ? [readsApart.command] : []),
    '```',
    '',
    `Code: commit \`${code.start.commit}\` with ${code.start.uncommittedSrcFiles} uncommitted file(s) under src/, src/ digest \`${code.start.srcDigest}\`` +
      (code.end.srcDigest === code.start.srcDigest
        ? ' (unchanged during the run).'
        : ` at the start and \`${code.end.srcDigest}\` at the end: **src/ changed during the run**, so targets measured later ran different code.`),
    '',
    'It starts the local stack (`deploy/local/stack.sh up`), measures the ceilings, then the service in each mode as child processes ' +
      (s.serviceEntry === 'built'
        ? '(`node dist/main.js`, as `npm start` runs it, built by `npm run build` at the start of the run)'
        : '(`node --import tsx src/main.ts`: from source, which costs the service more CPU per request than the built code that later runs measure)') +
      ', each with its own PostgreSQL database, ClickHouse database and Kafka topics, removed at the end.',
    '',
    `Each step: ${s.durationSeconds} s of autocannon (closed loop: \`connections\` requests in flight) at ${s.connections.join(', ')} connections, ` +
      `after ${s.warmupSeconds} s of unrecorded warm-up per request shape; request latencies are autocannon's, in whole milliseconds (0 means under 1 ms). Requests: one event (${s.eventBytes} bytes of JSON) or an array of ${s.batchSize}; ` +
      `the edge turns each event into a ${s.messageBytes}-byte Kafka record. ` +
      `Ingest→readable probe: one uniquely marked event every ${s.probeIntervalMs} ms during each step, into the same app as the load, read back by customer_id every ${s.probePollMs} ms ` +
      `until seen (a sample is the time from its 202 to the end of the read that saw it, so over by up to one poll) or ${s.probeTimeoutMs / 1000} s passed (timed out).`,
    '',
    '## Machine',
    '',
    table(
      ['', ''],
      [
        ['CPU', `${m.cpuModel}, ${m.cores} cores`],
        ['Memory', `${m.memoryGiB} GiB`],
        ['OS', m.os],
        ...Object.entries(m.versions).map(([k, v]) => [k, v]),
        ['Load average (1 / 5 / 15 min) at start', load(r.loadAverage.start)],
        ['Load average at end (includes the benchmark itself)', load(r.loadAverage.end)],
      ],
    ),
    '',
    'Everything (load generator, service, Kafka, ClickHouse, PostgreSQL, Redis) shares these cores. Other developers\' test ' +
      'suites may run at the same time: the load average at the start and the "everything else" CPU column of each step show how much.',
    '',
    targetsSection(r),
    '',
    ceilingsSection(r),
    '',
    performanceSection(r),
    '',
    '## Results per target',
    '',
    ...r.targets.map((t) => targetSection(t)),
    ...(r.alerts ? [alertsSection(r.alerts)] : []),
    ...(r.reads ? [readsSection(r.reads)] : []),
    ...(r.problems.length > 0 ? ['## Problems during the run', '', ...r.problems.map((p) => `- ${p}`), ''] : []),
    ...(notes ? ['## Notes (hand-written analysis, bench/NOTES.md)', '', notes, ''] : []),
  ].join('\n')}`;
}
