import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { positiveWhole } from './cli-options.js';
import { CpuSampler, type CpuUsage } from './cpu.js';
import { BATCH_SIZE, SAMPLE_EVENT, SHAPES, type RequestShape } from './events.js';
import { runLoad } from './load.js';
import { median } from './statistics.js';
import { ingest } from './management-api.js';
import { findStackProcesses } from './processes.js';
import { stackUp } from './stack.js';
import type { ServiceEntry } from '../test/helpers/service-process.js';
import { startDistributed, startEmbedded, waitForStored, type ServiceSettings, type Target } from './targets.js';

/**
 * `npm run bench:ab -- --against REF`: this checkout's service (its working tree, edits included)
 * against the service of commit REF, both built and running at once, driven in short bursts taken
 * turn about, in two sessions that start the two in either order. On a shared two-core machine whose speed moves by half between runs minutes apart
 * (bench/NOTES.md), two whole benchmark runs cannot show a difference of a few per cent; bursts
 * alternating between two services that are up together meet the same machine within seconds of each
 * other, so their pairs can. What it reports per round and as medians: requests/s, and the CPU time
 * the edge process (the api, or the embedded process) spent per request, read from /proc.
 *
 * With --measure pipeline (distributed mode), a round is a burst of 100-event batches at the edge
 * followed by the wait until ClickHouse holds every accepted event; it reports events/s end to end
 * and the CPU time every process of the pipeline spent per accepted event from the burst's start to
 * the last event stored: the api, the worker, Kafka, ClickHouse and Redis (the figure the benchmark's
 * CPU-per-event goal counts, through the drain rather than over the load only). Both services share
 * the stack, so the idle one's consumers polling Kafka are counted on both sides alike.
 *
 * With --measure drain (distributed mode), a round is the worker's catch-up instead: the worker
 * process is stopped (SIGSTOP), --events events are ingested in requests of 100, the worker is let go
 * (SIGCONT), and the round measures how fast the backlog is stored in ClickHouse (events/s from the
 * SIGCONT until the last one is counted) and the CPU time the worker and ClickHouse spent per event
 * meanwhile (ClickHouse's merges after that are not counted); each worker's peak RSS is printed at the
 * end of a session. A worker stopped for longer than its group's session timeout (10 s) loses its
 * partitions and rejoins when let go, which the drain then includes: keep the ingest shorter than that.
 *
 * REF is checked out into a temporary git worktree that uses this checkout's node_modules (so a
 * commit whose dependencies differ is measured with these) and removed at the end. Prints its
 * figures; writes them as JSON with --json. Options (after `npm run bench:ab --`):
 *   --against REF       the commit to compare with (HEAD)
 *   --mode M            distributed (api + worker, on the local stack) or embedded (distributed)
 *   --measure M         edge (bursts of load at the edge), pipeline (bursts of batches, every
 *                       process through the drain) or drain (the worker's catch-up) (edge)
 *   --events N          drain: the backlog of each round (300000)
 *   --shape S           edge: single or batch (single)
 *   --key K             edge: app (the benchmark app's key, every answer a 202) or unknown (a
 *                       well-formed key no app has, every answer a 401: what a client still
 *                       sending a rotated key costs) (app)
 *   --connections N     edge, pipeline: requests in flight (64)
 *   --rounds N          bursts (or drains) for each service in each of the two sessions (10)
 *   --seconds S         edge, pipeline: length of each burst (2)
 *   --base-entry E      built, or source: the base runs src/main.ts through tsx, as the benchmark ran
 *                       the service before it measured the build (built)
 *   --change-env K=V    an environment variable for the change's service processes only, to measure
 *                       a setting of the runtime against the same code (--against HEAD); repeatable
 *   --json PATH         also write the figures there
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

const { values: options } = parseArgs({
  options: {
    against: { type: 'string', default: 'HEAD' },
    mode: { type: 'string', default: 'distributed' },
    measure: { type: 'string', default: 'edge' },
    events: { type: 'string', default: '300000' },
    shape: { type: 'string', default: 'single' },
    key: { type: 'string', default: 'app' },
    connections: { type: 'string', default: '64' },
    rounds: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '2' },
    'base-entry': { type: 'string', default: 'built' },
    'change-env': { type: 'string', multiple: true, default: [] },
    json: { type: 'string' },
  },
  strict: true,
});

if (options.mode !== 'distributed' && options.mode !== 'embedded') throw new Error(`--mode: expected distributed or embedded, got ${JSON.stringify(options.mode)}`);
if (!(SHAPES as readonly string[]).includes(options.shape)) throw new Error(`--shape: expected ${SHAPES.join(' or ')}, got ${JSON.stringify(options.shape)}`);
if (options.measure !== 'edge' && options.measure !== 'pipeline' && options.measure !== 'drain') throw new Error(`--measure: expected edge, pipeline or drain, got ${JSON.stringify(options.measure)}`);
if (options.measure !== 'edge' && options.mode !== 'distributed') throw new Error(`--measure ${options.measure}: only in distributed mode (the worker is its own process there)`);
const MODE = options.mode;
const MEASURE = options.measure;
const DRAIN_EVENTS = positiveWhole('events', options.events);
const SHAPE = options.shape as RequestShape;
if (options.key !== 'app' && options.key !== 'unknown') throw new Error(`--key: expected app or unknown, got ${JSON.stringify(options.key)}`);
if (options.key === 'unknown' && MEASURE !== 'edge') throw new Error('--key unknown: only with --measure edge');
/** Well-formed (svc_live_ and 43 URL-safe characters) but no app's. */
const UNKNOWN_KEY = `svc_live_${'0'.repeat(43)}`;
const KEY = options.key;
/** The one status every answer of a burst must have. */
const EXPECTED_STATUS = KEY === 'app' ? '202' : '401';
const CONNECTIONS = positiveWhole('connections', options.connections);
const ROUNDS = positiveWhole('rounds', options.rounds);
const SECONDS = positiveWhole('seconds', options.seconds);
const CHANGE_ENV = Object.fromEntries(
  options['change-env'].map((pair) => {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`--change-env: expected NAME=VALUE, got ${JSON.stringify(pair)}`);
    return [pair.slice(0, at), pair.slice(at + 1)];
  }),
);
if (options['base-entry'] !== 'built' && options['base-entry'] !== 'source') throw new Error(`--base-entry: expected built or source, got ${JSON.stringify(options['base-entry'])}`);
const BASE_ENTRY: ServiceEntry = options['base-entry'];
const WARMUP_SECONDS = 3;

/** One round of one side. */
interface Sample {
  /** Requests/s at the edge; (pipeline) events/s end to end, the burst and its drain; (drain) events/s stored. */
  readonly rate: number;
  /**
   * CPU time per request of the edge process; (pipeline) per event of every process of the pipeline
   * together; (drain) per event of the worker and ClickHouse together. In microseconds.
   */
  readonly cpuMicros: number;
  /** Pipeline and drain: each process's share of cpuMicros. */
  readonly parts?: Readonly<Record<string, number>>;
}

const UNITS = MEASURE === 'edge' ? { rate: 'req/s', cpu: 'µs per request' } : { rate: 'events/s', cpu: 'µs per event' };
/** A drain that has not finished after this long failed. */
const DRAIN_TIMEOUT_MS = 120_000;
/** Requests in flight while a drain's backlog is ingested. */
const BACKLOG_CONNECTIONS = 32;

const SIDES = ['base', 'change'] as const;
type Side = (typeof SIDES)[number];

function log(message: string): void {
  process.stdout.write(`[ab] ${message}\n`);
}

function mediansOf(samples: readonly Sample[]): Sample {
  return {
    rate: Math.round(median(samples.map((b) => b.rate))),
    cpuMicros: Number(median(samples.map((b) => b.cpuMicros)).toFixed(1)),
  };
}

function describe(sample: Sample): string {
  const parts = sample.parts ? ` (${Object.entries(sample.parts).map(([name, micros]) => `${name} ${micros.toFixed(1)}`).join(', ')})` : '';
  return `${Math.round(sample.rate)} ${UNITS.rate} ${sample.cpuMicros.toFixed(1)} µs${parts}`;
}

/** The process whose CPU a request costs: the api of the split layout, or the one embedded process. */
function edgePid(target: Target): number {
  const pid = target.pids.api ?? target.pids.service;
  if (pid === undefined) throw new Error(`no edge process among ${Object.keys(target.pids).join(', ')}`);
  return pid;
}

async function burst(target: Target, seconds: number): Promise<Sample> {
  const pid = edgePid(target);
  const sampler = new CpuSampler({ edge: () => [pid] });
  sampler.start();
  const apiKey = KEY === 'app' ? target.apiKey : UNKNOWN_KEY;
  const outcome = await runLoad({ url: target.url, apiKey, shape: SHAPE, connections: CONNECTIONS, durationSeconds: seconds });
  const cpu = sampler.stop();
  const answered = EXPECTED_STATUS === '202' ? outcome.accepted : (outcome.non202[EXPECTED_STATUS] ?? 0);
  const others = Object.entries(outcome.non202).filter(([status]) => status !== EXPECTED_STATUS);
  if (others.length > 0) throw new Error(`answers other than ${EXPECTED_STATUS}: ${JSON.stringify(Object.fromEntries(others))}`);
  if (answered === 0) throw new Error(`no ${EXPECTED_STATUS} in a ${seconds} s burst`);
  const rate = answered / outcome.durationSeconds;
  return { rate, cpuMicros: ((cpu.cores.edge ?? 0) * 1e6) / rate };
}

function workerPid(target: Target): number {
  const pid = target.pids.worker;
  if (pid === undefined) throw new Error(`no worker process among ${Object.keys(target.pids).join(', ')}`);
  return pid;
}

/** Ingests `events` (a multiple of 100 is sent: whole requests) with BACKLOG_CONNECTIONS requests in flight. */
async function ingestBacklog(target: Target, events: number): Promise<number> {
  const requests = Math.ceil(events / BATCH_SIZE);
  const batch = Array.from({ length: BATCH_SIZE }, () => SAMPLE_EVENT);
  let sent = 0;
  await Promise.all(
    Array.from({ length: BACKLOG_CONNECTIONS }, async () => {
      while (sent < requests) {
        sent += 1;
        await ingest(target, batch);
      }
    }),
  );
  return requests * BATCH_SIZE;
}

async function drain(target: Target, events: number): Promise<Sample> {
  const worker = workerPid(target);
  const clickhouse = findStackProcesses().clickhouse;
  const stored = await target.storedEvents!();
  const sampler = new CpuSampler({ worker: () => [worker], clickhouse: () => clickhouse });
  let backlog = 0;
  let started = 0;
  process.kill(worker, 'SIGSTOP');
  try {
    backlog = await ingestBacklog(target, events);
  } finally {
    sampler.start();
    started = performance.now();
    process.kill(worker, 'SIGCONT');
  }
  const seconds = await waitForStored(target, stored + backlog, started, DRAIN_TIMEOUT_MS);
  const cpu = sampler.stop();
  if (seconds === null) throw new Error(`the worker did not store a backlog of ${backlog} events within ${DRAIN_TIMEOUT_MS} ms`);
  return perEvent(cpu, backlog, seconds);
}

/** `events` stored in `seconds`, and each sampled group's CPU time per event (summed as cpuMicros). */
function perEvent(cpu: CpuUsage, events: number, seconds: number): Sample {
  const parts = Object.fromEntries(Object.entries(cpu.cores).map(([group, cores]) => [group, (cores * cpu.wallSeconds * 1e6) / events]));
  return { rate: events / seconds, cpuMicros: Object.values(parts).reduce((a, b) => a + b, 0), parts };
}

/**
 * A burst of 100-event batches, then the wait until the store holds every event it got accepted; the
 * CPU of each process of the pipeline from the burst's start to then, per accepted event.
 */
async function pipeline(target: Target, seconds: number): Promise<Sample> {
  const stack = findStackProcesses();
  const api = edgePid(target);
  const worker = workerPid(target);
  const sampler = new CpuSampler({ api: () => [api], worker: () => [worker], kafka: () => stack.kafka, clickhouse: () => stack.clickhouse, redis: () => stack.redis });
  const stored = await target.storedEvents!();
  sampler.start();
  const started = performance.now();
  const outcome = await runLoad({ url: target.url, apiKey: target.apiKey, shape: 'batch', connections: CONNECTIONS, durationSeconds: seconds });
  const events = outcome.accepted * BATCH_SIZE;
  if (Object.keys(outcome.non202).length > 0) throw new Error(`answers other than 202: ${JSON.stringify(outcome.non202)}`);
  const drained = await waitForStored(target, stored + events, started, DRAIN_TIMEOUT_MS);
  const cpu = sampler.stop();
  if (drained === null) throw new Error(`the worker did not store a burst's ${events} events within ${DRAIN_TIMEOUT_MS} ms`);
  return perEvent(cpu, events, drained);
}

/** The process's peak resident set so far (VmHWM), in MiB. */
function peakRssMiB(pid: number): number {
  const kib = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  if (kib === undefined) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Math.round(Number(kib) / 1024);
}

function measure(target: Target, warmUp: boolean): Promise<Sample> {
  if (MEASURE === 'drain') return drain(target, warmUp ? Math.ceil(DRAIN_EVENTS / 5) : DRAIN_EVENTS);
  const seconds = warmUp ? WARMUP_SECONDS : SECONDS;
  return MEASURE === 'edge' ? burst(target, seconds) : pipeline(target, seconds);
}

async function main(): Promise<void> {
  const commit = (await run('git', ['rev-parse', '--short=12', options.against], { cwd: ROOT })).stdout.trim();
  const tree = mkdtempSync(path.join(tmpdir(), 'eas-ab-'));
  let checkedOut = false;
  try {
    log(`checking out ${commit} into ${tree}`);
    await run('git', ['worktree', 'add', '--detach', tree, commit], { cwd: ROOT });
    checkedOut = true;
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(tree, 'node_modules'));
    const stack = MODE === 'distributed' ? await stackUp() : null;
    const roots: Record<Side, string> = { base: tree, change: ROOT };
    const samples: Record<Side, Sample[]> = { base: [], change: [] };
    const peakRss: Record<Side, number[]> = { base: [], change: [] };
    // Two sessions, the second starting the services in the other order: the process started second
    // measured 15-20 % less CPU per request than the first with the same code on both sides (an A/A
    // run, bench/NOTES.md), so each side is started first once and the pairs of both are pooled.
    for (const startOrder of [SIDES, [...SIDES].reverse()]) {
      const targets = {} as Record<Side, Target>;
      const stops: Array<() => Promise<void>> = [];
      try {
        for (const side of startOrder) {
          const changeEnv = Object.keys(CHANGE_ENV).length === 0 ? '' : `, with ${Object.entries(CHANGE_ENV).map(([name, value]) => `${name}=${value}`).join(' ')}`;
          log(`building and starting the ${side} (${side === 'base' ? commit : `this working tree${changeEnv}`})`);
          const settings: ServiceSettings = side === 'base' ? { root: roots.base, entry: BASE_ENTRY } : { root: roots.change, entry: 'built', extraEnv: CHANGE_ENV };
          const target = stack ? await startDistributed(stack, 'split', settings) : await startEmbedded(settings);
          targets[side] = target;
          stops.push(() => target.stop());
        }
        for (const side of SIDES) await measure(targets[side], true);
        for (let round = 0; round < ROUNDS; round++) {
          const order = round % 2 === 0 ? SIDES : [...SIDES].reverse();
          for (const side of order) samples[side].push(await measure(targets[side], false));
          log(`round ${round + 1}: base ${describe(samples.base.at(-1)!)} · change ${describe(samples.change.at(-1)!)}`);
        }
        if (MEASURE === 'drain') {
          for (const side of SIDES) peakRss[side].push(peakRssMiB(workerPid(targets[side])));
          log(`the workers' peak RSS: base ${peakRss.base.at(-1)} MiB, change ${peakRss.change.at(-1)} MiB`);
        }
      } finally {
        for (const stop of stops.reverse()) await stop();
      }
    }

    const cheaperRounds = samples.change.filter((c, i) => c.cpuMicros < samples.base[i]!.cpuMicros).length;
    const fasterRounds = samples.change.filter((c, i) => c.rate > samples.base[i]!.rate).length;
    const ratios = samples.change.map((c, i) => c.cpuMicros / samples.base[i]!.cpuMicros);
    const rateRatios = samples.change.map((c, i) => c.rate / samples.base[i]!.rate);
    const summary = {
      against: commit,
      baseEntry: BASE_ENTRY,
      mode: MODE,
      measure: MEASURE,
      ...(MEASURE === 'edge'
        ? { shape: SHAPE, key: KEY, connections: CONNECTIONS, seconds: SECONDS }
        : MEASURE === 'pipeline'
          ? { shape: 'batch', connections: CONNECTIONS, seconds: SECONDS }
          : { events: DRAIN_EVENTS, workerPeakRssMiB: peakRss }),
      rounds: samples.change.length,
      medians: { base: mediansOf(samples.base), change: mediansOf(samples.change) },
      changeCheaperInRounds: cheaperRounds,
      medianCpuRatio: Number(median(ratios).toFixed(3)),
      changeFasterInRounds: fasterRounds,
      medianRateRatio: Number(median(rateRatios).toFixed(3)),
      samples,
    };
    log(
      `medians: base ${summary.medians.base.rate} ${UNITS.rate} ${summary.medians.base.cpuMicros} ${UNITS.cpu}; ` +
        `change ${summary.medians.change.rate} ${UNITS.rate} ${summary.medians.change.cpuMicros} ${UNITS.cpu}`,
    );
    log(`the change spent less CPU in ${cheaperRounds} of ${samples.change.length} rounds (median ratio of the pairs ${summary.medianCpuRatio}), and was faster in ${fasterRounds} (median ratio ${summary.medianRateRatio})`);
    if (options.json) writeFileSync(options.json, `${JSON.stringify(summary, null, 2)}\n`);
  } finally {
    if (checkedOut) await run('git', ['worktree', 'remove', '--force', tree], { cwd: ROOT }).catch((err: unknown) => log(`removing the worktree failed: ${String(err)}`));
    rmSync(tree, { recursive: true, force: true });
  }
}

await main();
