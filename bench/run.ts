import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { EVENT_PARTITIONS } from '../src/domain/messages/topics.js';
import { uniqueName } from '../test/helpers/stack-env.js';
import { startAlertReceiver } from './alert-receiver.js';
import { benchAbsence } from './absence-alerts.js';
import { benchAlerts } from './alerts.js';
import { bestBatchEndToEnd, bestSingle } from './best-steps.js';
import { clickhouseActivity, clickhouseCounters } from './clickhouse-counters.js';
import { codeVersion } from './code-version.js';
import { CpuSampler, type PidSource } from './cpu.js';
import { BATCH_SIZE, SAMPLE_EVENT, SHAPES, eventMessageBytes, eventsPerRequest, type RequestShape } from './events.js';
import { runKafkaPerf } from './kafka-perf.js';
import { runLoad } from './load.js';
import { describeMachine } from './machine.js';
import { mergeProbeResults, readabilityProbe } from './probe.js';
import { summariseProfile } from './profile-summary.js';
import { batchStats, endOffsets, readRecordBatches, type EndOffsets } from './kafka-batches.js';
import { findStackProcesses, postgresPids, type StackProcesses } from './processes.js';
import { benchReads } from './reads.js';
import { renderReport } from './report.js';
import type { AlertsResult, BenchResults, KafkaPerfResult, LoadStep, ProbeResult, ReadsResult, TargetKind, TargetResult } from './results.js';
import { createBenchTopic, deleteBenchTopics, stackUp, waitForStack, type StackAddresses } from './stack.js';
import { buildService, compiledScript } from './compiled.js';
import { startBareServer, startDistributed, startEmbedded, waitForStored, type ServiceSettings, type Target } from './targets.js';
import { positiveWhole } from './cli-options.js';

/**
 * `npm run bench`: checks the ingest and alert performance targets (TARGETS in bench/report-format.ts).
 * Starts the local stack, then measures in one run
 *   1. the bare node:http ceiling,            3. embedded mode (one process, chDB),
 *   2. kafka-producer-perf-test's ceiling,    4. distributed mode (api + worker, and one `all` process),
 * each service target with single-event and 100-event requests at rising concurrency, with the
 * ingest→readable probe running during every step; then
 *   5. alerts: ingest→alert delivered under a steady background load, with one `every` rule and with
 *      100 threshold rules; absence alerts' delay after their deadline; alerts/s when every event
 *      matches an `every` rule and a threshold rule of N = 2; in distributed mode (api + worker) with a
 *      webhook to a receiver in this process, then the absence alerts again in embedded mode
 *      (bench/alerts.ts; under two minutes);
 *   6. reads at scale: the event list, counts and top values over 10 million events of one app and
 *      1 million of each of nine others, in distributed mode (ClickHouse 18.16) and embedded mode (chDB)
 *      (bench/reads.ts; about ten minutes);
 * then writes bench/results/latest.json and bench/REPORT.md. A run of the reads alone
 * (`--only reads`) replaces only the reads of the results file and keeps its other parts, which take
 * half an hour to measure again; the report says which run each part comes from. Options (after `npm run bench --`):
 *   --duration S        seconds per load step (10); also each latency and throughput phase of the
 *                       alerts part (the absence rules wait their fixed 10 s window)
 *   --connections LIST  concurrency steps (1,8,32,64,128)
 *   --shapes LIST       request shapes: single and/or batch (single,batch)
 *   --layout L          distributed layout: split (api + worker), all (one process) or both (both)
 *   --only LIST         subset of bare,kafka,embedded,distributed,alerts,reads (all of them)
 *   --kafka-records N   records for kafka-producer-perf-test (1000000)
 *   --profile           CPU-profile the service processes; profiles, their SUMMARY-*.txt, the report and
 *                       the results go to bench/results/profiles/ (a profiled run is slower)
 *   --render-only       measure nothing: render the report again from the results file
 *                       (after editing bench/NOTES.md or bench/report.ts)
 *   --report PATH, --json PATH   where to write the report and the raw results
 *                       (bench/REPORT.md and bench/results/latest.json)
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** What `--only` may name; a default run measures all of them. */
const PARTS = ['bare', 'kafka', 'embedded', 'distributed', 'alerts', 'reads'] as const;

const { values: options } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '1,8,32,64,128' },
    shapes: { type: 'string', default: SHAPES.join(',') },
    layout: { type: 'string', default: 'both' },
    only: { type: 'string', default: PARTS.join(',') },
    'kafka-records': { type: 'string', default: '1000000' },
    profile: { type: 'boolean', default: false },
    'render-only': { type: 'boolean', default: false },
    report: { type: 'string' },
    json: { type: 'string' },
  },
  strict: true,
});

const DURATION_S = positiveWhole('duration', options.duration);
const CONNECTIONS = options.connections.split(',').map((c) => positiveWhole('connections', c));
const ONLY = new Set(options.only.split(','));
const STEP_SHAPES = options.shapes.split(',').map((shape) => {
  if (!(SHAPES as readonly string[]).includes(shape)) throw new Error(`--shapes: expected ${SHAPES.join(' and/or ')}, got ${JSON.stringify(shape)}`);
  return shape as RequestShape;
});
const LAYOUTS: ReadonlyArray<'split' | 'all'> = options.layout === 'both' ? ['split', 'all'] : [options.layout === 'all' ? 'all' : 'split'];
const KAFKA_RECORDS = positiveWhole('kafka-records', options['kafka-records']);
// A profiled run is slowed by the profiler: it must not replace the report of a normal run.
const OUTPUT_DIR = options.profile ? 'bench/results/profiles' : null;
const REPORT_PATH = options.report ?? path.join(ROOT, OUTPUT_DIR ? `${OUTPUT_DIR}/REPORT.md` : 'bench/REPORT.md');
const JSON_PATH = options.json ?? path.join(ROOT, OUTPUT_DIR ? `${OUTPUT_DIR}/results.json` : 'bench/results/latest.json');
/** Unrecorded load before a target's first step: JIT, connection pools, first Kafka metadata. */
const WARMUP_S = 3;
/**
 * Probe cadence: one marked event every 200 ms, polled every 100 ms (the resolution of a sample),
 * failing after 10 s (five times the 2 s target: a miss is a miss, not a long tail).
 */
const PROBE = { intervalMs: 200, pollMs: 100, timeoutMs: 10_000 } as const;
/** How long the benchmark waits for a stack service that someone else stopped to come back. */
const STACK_WAIT_MS = 180_000;
/** How long a step may wait for the worker to store what the step's load got accepted. */
const DRAIN_TIMEOUT_MS = 90_000;

for (const item of ONLY) {
  if (!(PARTS as readonly string[]).includes(item)) throw new Error(`--only: unknown part ${JSON.stringify(item)}`);
}
if (!['split', 'all', 'both'].includes(options.layout)) throw new Error(`--layout: expected split, all or both`);

const log = (message: string): void => void process.stderr.write(`[bench] ${message}\n`);
const stackReady = (): Promise<void> => waitForStack(STACK_WAIT_MS, () => log('a stack service is down (another test run\'s outage test?); waiting for it'));

/** Whatever runs or exists now and must not outlive the benchmark, also on Ctrl-C. */
const cleanups = new Set<() => Promise<void>>();
process.once('SIGINT', () => {
  log('interrupted; stopping what the benchmark started');
  void Promise.allSettled([...cleanups].map((c) => c())).finally(() => process.exit(130));
});

async function withCleanup<T extends { stop(): Promise<void> }, R>(resource: T, body: (r: T) => Promise<R>): Promise<R> {
  const stop = () => resource.stop();
  cleanups.add(stop);
  try {
    return await body(resource);
  } finally {
    await stop();
    cleanups.delete(stop);
  }
}

/**
 * Processes whose CPU time each step accounts: the target's, the stack's, and this process's (the load
 * generator, plus the alert receiver in the alerts benchmark: `self` names what it does).
 */
function cpuGroups(target: Target, stackProcesses: StackProcesses, self = 'load generator (autocannon)'): Record<string, PidSource> {
  const groups: Record<string, PidSource> = {};
  for (const [role, pid] of Object.entries(target.pids)) groups[role] = () => [pid];
  groups[self] = () => [process.pid];
  groups.kafka = () => stackProcesses.kafka;
  groups.clickhouse = () => stackProcesses.clickhouse;
  groups.postgresql = postgresPids;
  groups.redis = () => stackProcesses.redis;
  return groups;
}


interface RunContext {
  readonly runId: string;
  readonly stackProcesses: StackProcesses;
  readonly problems: string[];
}

async function benchTarget(ctx: RunContext, kind: TargetKind, label: string, layout: 'split' | 'all' | null, target: Target): Promise<TargetResult> {
  const serversAtStart = findStackProcesses();
  const sampler = new CpuSampler(cpuGroups(target, serversAtStart), Object.keys(target.pids));
  const kafka = target.kafka;
  /** End offsets of the events topic before and after each step's load, to attribute record batches. */
  const windows: Array<{ from: EndOffsets; to: EndOffsets; seconds: number }> = [];
  // Every event that got a 202 so far (warm-up, load and probes): what the store must reach.
  let expected = 0;
  log(`${label}: warming up (${WARMUP_S} s per request shape)`);
  for (const shape of STEP_SHAPES) {
    const warm = await runLoad({ url: target.url, apiKey: target.apiKey, shape, connections: 8, durationSeconds: WARMUP_S });
    expected += warm.accepted * eventsPerRequest(shape);
  }
  if ((await waitForStored(target, expected, performance.now(), DRAIN_TIMEOUT_MS)) === null) log(`${label}: the worker did not store the warm-up within ${DRAIN_TIMEOUT_MS} ms`);

  /** One load step with its probes, its drain and its CPU; the Kafka offsets it spans go to `windows` when asked. */
  async function measureStep(shape: RequestShape, connections: number, name: string, recordWindow: boolean): Promise<LoadStep> {
    const probe = target.reader ? readabilityProbe({ url: target.url, apiKey: target.apiKey, ...target.reader, runId: `${ctx.runId}-${name}`, ...PROBE }) : null;
    const offsetsBefore = kafka ? await endOffsets(kafka.brokers, kafka.eventsTopic) : null;
    const countersBefore = target.clickhouseUrl ? await clickhouseCounters(target.clickhouseUrl) : null;
    sampler.start();
    probe?.start();
    const loadStarted = performance.now();
    const outcome = await runLoad({ url: target.url, apiKey: target.apiKey, shape, connections, durationSeconds: DURATION_S });
    const loadEnded = performance.now();
    const cpu = sampler.stop();
    const stepEvents = outcome.accepted * eventsPerRequest(shape);
    if (kafka && offsetsBefore && recordWindow) {
      windows.push({ from: offsetsBefore, to: await endOffsets(kafka.brokers, kafka.eventsTopic), seconds: outcome.durationSeconds });
    }
    // The probes still waiting to see their events finish first: the drain check counts through
    // the API in embedded mode (a count over hours of events, the heaviest read there is), and
    // polled beside them it slowed the worker's inserts that they wait for (bench/NOTES.md). The
    // drain is still timed from the load's end, so it may come out a poll later than it was.
    const probeResult = probe ? await probe.stop() : null;
    const drained = target.storedEvents ? waitForStored(target, expected + stepEvents + (probe?.acceptedTotal ?? 0), loadEnded, DRAIN_TIMEOUT_MS) : null;
    expected += stepEvents + (probe?.acceptedTotal ?? 0);
    let endToEnd: LoadStep['endToEnd'] = null;
    if (drained) {
      const drainSeconds = await drained;
      endToEnd = {
        drainSeconds,
        eventsPerSecond: drainSeconds === null ? null : stepEvents / ((loadEnded - loadStarted) / 1000 + drainSeconds),
      };
    }
    // Until the drain: the worker's inserts for this step's load go on after the load stops.
    const clickhouse =
      target.clickhouseUrl && countersBefore
        ? clickhouseActivity(countersBefore, await clickhouseCounters(target.clickhouseUrl), (performance.now() - loadStarted) / 1000)
        : null;
    const step: LoadStep = { shape, connections, ...outcome, probe: probeResult, endToEnd, produceBatches: null, clickhouse, cpu };
    log(describeStep(label, step));
    return step;
  }

  const steps: LoadStep[] = [];
  for (const shape of STEP_SHAPES) {
    for (const connections of CONNECTIONS) steps.push(await measureStep(shape, connections, `${shape}-${connections}`, true));
  }
  // The distributed layouts are compared on their best steps; each is measured once more, so that the
  // report can tell a difference between layouts from the difference between two runs of one.
  const repeats: LoadStep[] = [];
  if (layout !== null) {
    for (const chosen of [bestSingle({ steps }).step, bestBatchEndToEnd({ steps }).step]) {
      if (!chosen) continue;
      log(`${label}: measuring the ${chosen.shape} step at ${chosen.connections} connections again`);
      repeats.push(await measureStep(chosen.shape, chosen.connections, `${chosen.shape}-${chosen.connections}-again`, false));
    }
  }
  noteRestarts(ctx.problems, label, serversAtStart);
  const probes = steps.map((s) => s.probe).filter((p): p is ProbeResult => p !== null);
  return {
    kind,
    label,
    layout,
    steps: kafka ? await withProduceBatches(ctx, kafka.eventsTopic, steps, windows) : steps,
    probeOverall: probes.length > 0 ? mergeProbeResults(probes) : null,
    repeats,
  };
}

/**
 * The integration suites stop and restart Kafka and ClickHouse (outage tests). Should one of them
 * run meanwhile, the figures of this target are not about the service: say so in the report.
 */
function noteRestarts(problems: string[], label: string, before: StackProcesses): void {
  const after = findStackProcesses();
  for (const server of ['kafka', 'clickhouse'] as const) {
    if (before[server].join() !== after[server].join()) {
      problems.push(`${server} was restarted (pid ${before[server].join() || 'none'} → ${after[server].join() || 'none'}) while ${label} was measured, probably by another test run; its figures are not trustworthy`);
      log(problems.at(-1)!);
    }
  }
}

/** Reads the events topic's record batches back from the broker's files and attributes them to the steps. */
async function withProduceBatches(ctx: RunContext, topic: string, steps: LoadStep[], windows: ReadonlyArray<{ from: EndOffsets; to: EndOffsets; seconds: number }>): Promise<LoadStep[]> {
  const { kafkaClasspath, kafkaLogDirs } = ctx.stackProcesses;
  try {
    if (!kafkaClasspath || kafkaLogDirs.length === 0) throw new Error('the running broker\'s classpath or log.dirs could not be found');
    const batches = await readRecordBatches(kafkaClasspath, kafkaLogDirs, topic);
    return steps.map((step, i) => ({ ...step, produceBatches: batchStats(batches, windows[i]!.from, windows[i]!.to, windows[i]!.seconds) }));
  } catch (err) {
    ctx.problems.push(`record batches of ${topic} could not be read: ${err instanceof Error ? err.message : String(err)}`);
    return steps;
  }
}

function describeStep(label: string, s: LoadStep): string {
  const parts = [
    `${label} ${s.shape} c=${s.connections}:`,
    `${Math.round(s.eventsPerSecond)} events/s`,
    `${Math.round(s.requestsPerSecond)} req/s`,
    `p50 ${s.latency.p50} ms p99 ${s.latency.p99} ms`,
    `non-202 ${s.non202Total}`,
  ];
  if (s.probe) parts.push(`readable p50 ${fmt(s.probe.p50)} p99 ${fmt(s.probe.p99)} ms (${s.probe.samples} samples, ${s.probe.timedOut} timed out)`);
  if (s.endToEnd) parts.push(`drain ${s.endToEnd.drainSeconds?.toFixed(1) ?? 'n/a'} s, end to end ${fmt(s.endToEnd.eventsPerSecond)} events/s`);
  return parts.join(' ');
}

const fmt = (n: number | null): string => (n === null ? 'n/a' : String(Math.round(n)));

async function benchKafka(stack: StackAddresses, classpath: string | null, messageBytes: number): Promise<KafkaPerfResult> {
  if (!classpath) throw new Error('no running Kafka broker found in /proc, so no classpath to take kafka-producer-perf-test from');
  const prefix = `${uniqueName('bench')}.`;
  const topic = `${prefix}perf`;
  // The same partition count as the service's events topic, created the same way (no auto-create).
  await createBenchTopic(stack.kafkaBrokers, topic, EVENT_PARTITIONS);
  const remove = () => deleteBenchTopics(stack.kafkaBrokers, prefix);
  cleanups.add(remove);
  try {
    const stackProcesses = findStackProcesses();
    // The perf-test JVM has exited when the window closes, so its own CPU time shows only as part of
    // `machine` (machine minus kafka is mostly the producer).
    const sampler = new CpuSampler({ kafka: () => stackProcesses.kafka });
    sampler.start();
    const perf = await runKafkaPerf({
      classpath,
      bootstrapServers: stack.kafkaBrokers.join(','),
      topic,
      records: KAFKA_RECORDS,
      recordSize: messageBytes,
    });
    return { ...perf, topicPartitions: EVENT_PARTITIONS, cpu: sampler.stop() };
  } finally {
    await remove();
    cleanups.delete(remove);
  }
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const loadStart = os.loadavg();
  const problems: string[] = [];
  log('starting the local stack (deploy/local/stack.sh up)');
  const stack = await stackUp();
  const stackProcesses = findStackProcesses();
  const machine = await describeMachine(stack, stackProcesses.kafkaClasspath);
  const codeAtStart = await codeVersion();
  const messageBytes = eventMessageBytes();
  const ctx: RunContext = { runId: uniqueName('run'), stackProcesses, problems };
  const settings: ServiceSettings = options.profile ? { extraEnv: profileEnv() } : {};
  if (ONLY.has('embedded') || ONLY.has('distributed') || ONLY.has('alerts') || ONLY.has('reads')) {
    log('building the service (npm run build): the runs measure dist/main.js, as npm start runs it');
    await buildService();
  }
  log(`machine: ${machine.cpuModel}, ${machine.cores} cores; load average ${loadStart.map((l) => l.toFixed(2)).join(' ')}`);

  const targets: TargetResult[] = [];
  let kafkaPerf: KafkaPerfResult | null = null;

  if (ONLY.has('bare')) {
    targets.push(await withCleanup(await startBareServer(), (t) => benchTarget(ctx, 'bare-http', 'bare node:http', null, t)));
  }
  if (ONLY.has('kafka')) {
    log(`kafka-producer-perf-test: ${KAFKA_RECORDS} records of ${messageBytes} bytes, acks=-1`);
    try {
      await stackReady();
      kafkaPerf = await benchKafka(stack, stackProcesses.kafkaClasspath, messageBytes);
      log(`kafka-producer-perf-test: ${Math.round(kafkaPerf.recordsPerSecond)} records/s, p99 ${kafkaPerf.latencyMs.p99} ms`);
    } catch (err) {
      problems.push(`kafka-producer-perf-test did not run: ${err instanceof Error ? err.message : String(err)}`);
      log(problems.at(-1)!);
    }
  }
  if (ONLY.has('embedded')) {
    log('embedded mode: starting the service');
    targets.push(await withCleanup(await startEmbedded(settings), (t) => benchTarget(ctx, 'embedded', 'embedded', null, t)));
  }
  if (ONLY.has('distributed')) {
    for (const layout of LAYOUTS) {
      const label = layout === 'split' ? 'distributed (api + worker)' : 'distributed (all in one process)';
      await stackReady();
      log(`${label}: starting the service`);
      targets.push(await withCleanup(await startDistributed(stack, layout, settings), (t) => benchTarget(ctx, 'distributed', label, layout, t)));
    }
  }

  let alerts: AlertsResult | null = null;
  if (ONLY.has('alerts')) {
    const label = 'distributed (api + worker)';
    await stackReady();
    log(`alerts, ${label}: starting the service and the webhook receiver`);
    // The receiver outlives the service: attempts still in flight at its stop are answered.
    alerts = await withCleanup(await startAlertReceiver(), async (receiver) => {
      // Loopback destinations are refused by default (the SSRF guard); the receiver is on loopback.
      const alertSettings: ServiceSettings = { extraEnv: { ...settings.extraEnv, OUTBOUND_ALLOW_PRIVATE: 'true' } };
      const distributed = await withCleanup(await startDistributed(stack, 'split', alertSettings), async (target) => {
        const serversAtStart = findStackProcesses();
        const result = await benchAlerts({
          label,
          target,
          receiver,
          runId: `${ctx.runId}-alerts`,
          durationSeconds: DURATION_S,
          warmupSeconds: WARMUP_S,
          cpuGroups: cpuGroups(target, serversAtStart, 'load generator and alert receiver'),
          log,
          problems,
        });
        noteRestarts(ctx.problems, `alerts (${label})`, serversAtStart);
        return result;
      });
      log('absence alerts, embedded: starting the service');
      const embedded = await withCleanup(await startEmbedded(alertSettings), (target) => benchAbsence(target, 'embedded', receiver, log));
      return { ...distributed, absence: [...(distributed.absence ?? []), embedded] };
    });
  }

  const command = ['npm run bench', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' ');
  let reads: ReadsResult | null = null;
  if (ONLY.has('reads')) {
    reads = await benchReads({
      stack,
      settings,
      machine,
      command,
      log,
      withCleanup,
      cpuGroups: (target) => cpuGroups(target, findStackProcesses(), 'benchmark (the read requests)'),
      watchRestarts: (label, problems) => {
        const serversAtStart = findStackProcesses();
        return () => noteRestarts(problems, label, serversAtStart);
      },
      waitForStack: stackReady,
    });
  }

  const measured: BenchResults = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    command,
    settings: {
      durationSeconds: DURATION_S,
      connections: CONNECTIONS,
      shapes: STEP_SHAPES,
      warmupSeconds: WARMUP_S,
      probeIntervalMs: PROBE.intervalMs,
      probePollMs: PROBE.pollMs,
      probeTimeoutMs: PROBE.timeoutMs,
      eventBytes: JSON.stringify(SAMPLE_EVENT).length,
      batchSize: BATCH_SIZE,
      messageBytes,
      serviceEntry: 'built',
    },
    machine,
    code: { start: codeAtStart, end: await codeVersion() },
    loadAverage: { start: loadStart, end: os.loadavg() },
    targets,
    kafkaPerf,
    alerts,
    reads,
    problems,
  };
  const results = keptAlongside(measured);
  if (options.profile) writeProfileSummary(startedAt);
  mkdirSync(path.dirname(JSON_PATH), { recursive: true });
  writeFileSync(JSON_PATH, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(REPORT_PATH, renderReport(results, path.relative(ROOT, JSON_PATH)));
  log(`wrote ${path.relative(ROOT, REPORT_PATH)} and ${path.relative(ROOT, JSON_PATH)}`);
}

/**
 * A run of the reads alone adds them to the results file it replaces, whose other parts stay as they
 * were measured (the reads carry their own run's time, command, code and machine). Any other run
 * writes only what it measured, as before.
 */
function keptAlongside(measured: BenchResults): BenchResults {
  if (ONLY.size !== 1 || !ONLY.has('reads') || !existsSync(JSON_PATH)) return measured;
  const previous = JSON.parse(readFileSync(JSON_PATH, 'utf8')) as BenchResults;
  log(`keeping the other parts of ${path.relative(ROOT, JSON_PATH)} (the run of ${previous.startedAt})`);
  return { ...previous, reads: measured.reads ?? null };
}

const PROFILE_DIR = path.join(ROOT, 'bench/results/profiles');

/** One .cpuprofile per service process, written when it exits (see bench/cpu-profiler.ts). */
function profileEnv(): Record<string, string> {
  const dir = PROFILE_DIR;
  mkdirSync(dir, { recursive: true });
  return { NODE_OPTIONS: `--import ${compiledScript('bench/cpu-profiler.ts')}`, BENCH_PROFILE_DIR: dir };
}

/** The profiles this run wrote, summarised into one text file (the .cpuprofile files are large). */
function writeProfileSummary(since: Date): void {
  const files = readdirSync(PROFILE_DIR)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(PROFILE_DIR, f))
    .filter((f) => statSync(f).mtimeMs >= since.getTime());
  const text = files.map((f) => summariseProfile(f, 25)).join('\n\n');
  // Named by what was measured, so profiles of different modes and request shapes sit side by side.
  const modes = [...ONLY].filter((part) => part === 'embedded' || part === 'distributed' || part === 'alerts');
  const summary = path.join(PROFILE_DIR, `SUMMARY-${modes.join('+')}-${STEP_SHAPES.join('+')}.txt`);
  writeFileSync(summary, `Profiles of the run started ${since.toISOString()} (npm run bench -- ${process.argv.slice(2).join(' ')})\n\n${text}\n`);
  log(`wrote ${path.relative(ROOT, summary)}`);
}

function renderOnly(): void {
  const results = JSON.parse(readFileSync(JSON_PATH, 'utf8')) as BenchResults;
  writeFileSync(REPORT_PATH, renderReport(results, path.relative(ROOT, JSON_PATH)));
  log(`rendered ${path.relative(ROOT, REPORT_PATH)} from ${path.relative(ROOT, JSON_PATH)}`);
}

(options['render-only'] ? Promise.resolve().then(renderOnly) : main()).catch(async (err: unknown) => {
  log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  await Promise.allSettled([...cleanups].map((c) => c()));
  process.exit(1);
});
