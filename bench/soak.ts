import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { topicsFor } from '../src/domain/messages/topics.js';
import { startAlertReceiver, type AlertReceiver } from './alert-receiver.js';
import { ingest, managementApi } from './management-api.js';
import { codeVersion } from './code-version.js';
import { CpuSampler, type CpuUsage } from './cpu.js';
import { BATCH_SIZE, SAMPLE_EVENT } from './events.js';
import { describeMachine } from './machine.js';
import { measureCapacity } from './soak-capacity.js';
import { PacedLoad, type PacedInterval } from './soak-pacer.js';
import { figuresTable, renderSoak, verdictLines } from './soak-report.js';
import { LagReader, locateStackServers, postgresProcesses } from './soak-readings.js';
import { computeVerdicts, type SoakResults, type SoakSample } from './soak-results.js';
import { SoakSampler } from './soak-sampler.js';
import { stackUp, waitForStack } from './stack.js';
import { startDistributed } from './targets.js';
import { positiveNumber } from './cli-options.js';

/**
 * `npm run soak -- --minutes N`: the service's api + worker pair under a steady load for N minutes,
 * watched for what only time shows: memory that keeps growing, errors that appear late, a consumer
 * lag that does not come back to 0. Starts the local stack if needed and the pair on databases and
 * a topic prefix of their own, with a webhook destination to a receiver in this process and a rule
 * that one event of every request matches; measures the pair's capacity (bench/soak-capacity.ts),
 * then paces the load at half of it (bench/soak-pacer.ts), sampling memory, errors and lag after a
 * warm-up, every minute and at the end (bench/soak-sampler.ts); waits for the lag to drain; writes
 * bench/results/soak-latest.json and bench/SOAK.md. Options (after `npm run soak --`):
 *   --minutes N          length of the paced load, fractions allowed (5)
 *   --rate N             events/s to pace at, instead of half the measured capacity
 *   --max-rss-growth P   RSS growth of the api or worker, in %, above which the soak fails (20)
 *   --drain-timeout S    how long the lag may take to come back to 0 after the load (120)
 *   --render-only        measure nothing: render the report again from the results file
 *   --report PATH, --json PATH   where to write (bench/SOAK.md and bench/results/soak-latest.json)
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values: options } = parseArgs({
  options: {
    minutes: { type: 'string', default: '5' },
    rate: { type: 'string' },
    'max-rss-growth': { type: 'string', default: '20' },
    'drain-timeout': { type: 'string', default: '120' },
    'render-only': { type: 'boolean', default: false },
    report: { type: 'string' },
    json: { type: 'string' },
  },
  strict: true,
});

const MINUTES = positiveNumber('minutes', options.minutes);
const RATE = options.rate === undefined ? null : positiveNumber('rate', options.rate);
const MAX_RSS_GROWTH = positiveNumber('max-rss-growth', options['max-rss-growth']);
const DRAIN_TIMEOUT_S = positiveNumber('drain-timeout', options['drain-timeout']);
const REPORT_PATH = options.report ?? path.join(ROOT, 'bench/SOAK.md');
const JSON_PATH = options.json ?? path.join(ROOT, 'bench/results/soak-latest.json');
const LOAD_SECONDS = MINUTES * 60;
/** The first sample is taken once JIT, pools and caches have settled: a minute, or a tenth of a short run. */
const WARMUP_SECONDS = Math.min(60, LOAD_SECONDS / 10);
const SAMPLE_EVERY_SECONDS = 60;
/** Short steps keep the ramp near 25 s of load; from 1 to 64 requests of 100 events in flight. */
const RAMP = { connections: [1, 4, 16, 32, 64], stepSeconds: 5 } as const;
/** How long a new rule may take to deliver its first alert before the soak gives up on the setup. */
const RULE_LIVE_TIMEOUT_MS = 20_000;
const STACK_WAIT_MS = 180_000;

/**
 * Every request: BATCH_SIZE events, one of which the rule matches by its customer id. One in a hundred
 * keeps the alert path busy (a delivery row, a Kafka job and a webhook per match) at a share of the
 * pipeline's work that half the capacity leaves room for.
 */
const ALERT_CUSTOMER = 'cus_soak_alert';
const MATCHING_PER_REQUEST = 1;
const BODY = JSON.stringify(
  Array.from({ length: BATCH_SIZE }, (_, i) => (i < MATCHING_PER_REQUEST ? { ...SAMPLE_EVENT, customer_id: ALERT_CUSTOMER } : SAMPLE_EVENT)),
);

const log = (message: string): void => void process.stderr.write(`[soak] ${message}\n`);
const cleanups: Array<() => Promise<void>> = [];
const cleanUp = async (): Promise<void> => {
  // Newest first: the service stops (and its resources are dropped) before the receiver it sends to.
  for (const c of cleanups.splice(0).reverse()) {
    await c().catch((err: unknown) => log(`clean-up failed: ${err instanceof Error ? err.message : String(err)}`));
  }
};
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
  process.once(signal, () => {
    log(`${signal}: stopping what the soak started`);
    void cleanUp().finally(() => process.exit(code));
  });
}

const loadErrorsOf = (l: PacedInterval): number => Object.values(l.non202).reduce((a, b) => a + b, 0) + l.requestErrors + l.timeouts;

async function main(): Promise<void> {
  const startedAt = new Date();
  const loadStart = os.loadavg();
  const problems: string[] = [];
  log('starting the local stack (deploy/local/stack.sh up)');
  const stack = await stackUp();
  await waitForStack(STACK_WAIT_MS, () => log('a stack service is down (another test run\'s outage test?); waiting for it'));
  const servers = locateStackServers(stack);
  for (const [server, pid] of Object.entries(servers.pids)) if (pid === null) problems.push(`no ${server} process found listening on the stack's address: its memory is not reported`);
  const machine = await describeMachine(stack, servers.kafkaClasspath);
  const codeAtStart = await codeVersion();

  // The receiver outlives the service (registered first, stopped last): attempts in flight at the stop are answered.
  const receiver: AlertReceiver = await startAlertReceiver();
  cleanups.push(() => receiver.stop());
  log('starting the api and worker processes');
  // Loopback destinations are refused by default (the SSRF guard); the receiver is on loopback.
  const target = await startDistributed(stack, 'split', { extraEnv: { OUTBOUND_ALLOW_PRIVATE: 'true' } });
  cleanups.push(() => target.stop());
  const lagReader = new LagReader(stack.kafkaBrokers, (message) => {
    problems.push(message);
    log(message);
  });
  cleanups.push(() => lagReader.close());
  const topics = topicsFor(target.kafka!.eventsTopic.slice(0, -'events'.length));
  const watches = {
    worker: { label: 'worker', groupId: topics.workerGroup, topic: topics.events },
    rules: { label: 'rules', groupId: topics.rulesGroup, topic: topics.events },
    delivery: { label: 'delivery', groupId: topics.deliveryGroup, topic: topics.deliveries },
  };

  const api = managementApi(target.url, target.reader!.clientSecret, target.reader!.appId);
  const destination = await api.post<{ id: string }>('destinations', { type: 'webhook', label: 'soak receiver', url: receiver.url });
  const ruleText = `${SAMPLE_EVENT.event} events whose customer_id equals ${ALERT_CUSTOMER}`;
  const rule = await api.post<{ id: string }>('notification-rules', {
    name: 'soak: marked customer',
    eventName: SAMPLE_EVENT.event,
    enabled: true,
    conditions: [{ field: '$customer_id', operator: 'equals', value: ALERT_CUSTOMER }],
    actions: [{ destinationId: destination.id }],
  });
  // One matching event, awaited: proves the rule, the destination and the receiver before any load.
  const [live] = await ingest(target, { ...SAMPLE_EVENT, customer_id: ALERT_CUSTOMER });
  if (live === undefined || (await receiver.arrival(live, performance.now() + RULE_LIVE_TIMEOUT_MS)) === null) {
    throw new Error(`the soak's rule delivered nothing within ${RULE_LIVE_TIMEOUT_MS} ms`);
  }

  const sampler = new SoakSampler({ target, servers, lag: lagReader, watches, eventsPerRequest: BATCH_SIZE, problems, log });
  // Taken before the load's clock starts; their times are set relative to it once it does.
  const idleAt = performance.now();
  const samples: SoakSample[] = [await sampler.take({ label: 'idle', atSeconds: 0, load: null, cpu: null, loadErrors: 0 })];

  let capacity: SoakResults['capacity'] = null;
  let rate = RATE;
  if (rate === null) {
    const ramp = await measureCapacity({ target, body: BODY, ...RAMP, storedBefore: 1, log });
    if (ramp.eventsPerSecond === null) throw new Error('no step of the capacity ramp had a p99 under 1 s without errors: nothing to soak at');
    capacity = { steps: ramp.steps, eventsPerSecond: ramp.eventsPerSecond };
    rate = ramp.eventsPerSecond / 2;
    // The ramp's backlog (stored events, and alerts at up to twice the soak's rate) must not count as the soak's lag.
    if ((await sampler.drained(performance.now(), DRAIN_TIMEOUT_S, receiver, rule.id)) === null) {
      problems.push(`the capacity ramp's backlog had not drained within ${DRAIN_TIMEOUT_S} s when the soak started`);
    }
  }
  const requestsPerSecond = rate / BATCH_SIZE;
  log(`pacing ${Math.round(rate)} events/s (${requestsPerSecond.toFixed(1)} requests/s) for ${MINUTES} min`);

  const cpuGroups = {
    api: () => [target.pids.api!],
    worker: () => [target.pids.worker!],
    kafka: () => (servers.pids.kafka === null ? [] : [servers.pids.kafka]),
    clickhouse: () => (servers.pids.clickhouse === null ? [] : [servers.pids.clickhouse]),
    redis: () => (servers.pids.redis === null ? [] : [servers.pids.redis]),
    postgresql: () => (servers.pids.postgresql === null ? [] : postgresProcesses(servers.pids.postgresql)),
    'soak (load and receiver)': () => [process.pid],
  };
  const cpu = new CpuSampler(cpuGroups);
  const nextCpu = (): CpuUsage => {
    const used = cpu.stop();
    cpu.start();
    return used;
  };
  const beforeAt = performance.now();
  const before = await sampler.take({ label: 'before load', atSeconds: 0, load: null, cpu: null, loadErrors: 0 });
  sampler.setBaseline(before.counters);

  const load = new PacedLoad({ url: target.url, apiKey: target.apiKey, body: BODY, requestsPerSecond });
  cleanups.push(() => load.stop());
  cpu.start();
  load.start();
  const loadStarted = performance.now();
  samples[0] = { ...samples[0]!, atSeconds: (idleAt - loadStarted) / 1000 };
  samples.push({ ...before, atSeconds: (beforeAt - loadStarted) / 1000 });
  const elapsed = (): number => (performance.now() - loadStarted) / 1000;
  const at = [WARMUP_SECONDS];
  while (at.at(-1)! + SAMPLE_EVERY_SECONDS < LOAD_SECONDS) at.push(at.at(-1)! + SAMPLE_EVERY_SECONDS);
  for (const [i, t] of at.entries()) {
    await delay(Math.max(0, (t - elapsed()) * 1000));
    const label = i === 0 ? 'after warm-up' : 'under load';
    samples.push(await sampler.take({ label, atSeconds: elapsed(), load: load.interval(), cpu: nextCpu(), loadErrors: loadErrorsOf(load.total()) }));
  }
  await delay(Math.max(0, (LOAD_SECONDS - elapsed()) * 1000));
  const loadEnded = performance.now();
  const loadSeconds = elapsed();
  // Every request sent is answered or timed out before the end sample, so its errors are all in.
  await load.stop();
  samples.push(await sampler.take({ label: 'end of load', atSeconds: loadSeconds, load: load.interval(), cpu: nextCpu(), loadErrors: loadErrorsOf(load.total()) }));

  log(`waiting up to ${DRAIN_TIMEOUT_S} s for the lag to come back to 0`);
  const drainedSeconds = await sampler.drained(loadEnded, DRAIN_TIMEOUT_S, receiver, rule.id);
  const last = await sampler.take({ label: drainedSeconds === null ? 'drain timed out' : 'drained', atSeconds: elapsed(), load: null, cpu: nextCpu(), loadErrors: loadErrorsOf(load.total()) });
  samples.push(last);

  const serversAfter = locateStackServers(stack);
  for (const [server, pid] of Object.entries(servers.pids)) {
    const now = serversAfter.pids[server as keyof typeof servers.pids];
    if (now !== pid) problems.push(`${server} changed from pid ${pid ?? 'none'} to ${now ?? 'none'} during the soak (restarted by someone else's test?): its figures are not comparable`);
  }
  const fired = last.counters?.rulesFired ?? null;
  const delivered = receiver.arrivals(rule.id).length;
  const totalLoad = load.total();
  const results: SoakResults = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    command: ['npm run soak', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' '),
    settings: {
      minutes: MINUTES,
      warmupSeconds: WARMUP_SECONDS,
      sampleEverySeconds: SAMPLE_EVERY_SECONDS,
      batchSize: BATCH_SIZE,
      matchingPerRequest: MATCHING_PER_REQUEST,
      rule: ruleText,
      rampStepSeconds: RAMP.stepSeconds,
      rampConnections: RAMP.connections,
      drainTimeoutSeconds: DRAIN_TIMEOUT_S,
    },
    machine,
    code: { start: codeAtStart, end: await codeVersion() },
    loadAverage: { start: loadStart, end: os.loadavg() },
    stackPids: servers.pids,
    capacity,
    offered: { eventsPerSecond: rate, requestsPerSecond },
    load: totalLoad,
    achievedEventsPerSecond: (totalLoad.accepted * BATCH_SIZE) / loadSeconds,
    alerts: { fired, delivered, duplicates: receiver.duplicates, unreadable: receiver.unreadable },
    samples,
    verdicts: computeVerdicts({
      samples,
      warmLabel: 'after warm-up',
      endLabel: 'end of load',
      load: totalLoad,
      countersBefore: before.counters,
      countersAfter: last.counters,
      alertsMissing: fired === null ? null : Math.max(0, fired - delivered),
      drainedSeconds,
      drainTimeoutSeconds: DRAIN_TIMEOUT_S,
      maxRssGrowthPercent: MAX_RSS_GROWTH,
    }),
    problems,
  };
  mkdirSync(path.dirname(JSON_PATH), { recursive: true });
  writeFileSync(JSON_PATH, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(REPORT_PATH, renderSoak(results));
  process.stderr.write(`\n${figuresTable(samples)}\n\n${verdictLines(results).join('\n')}\n\n`);
  for (const p of problems) log(`problem: ${p}`);
  log(`wrote ${path.relative(ROOT, REPORT_PATH)} and ${path.relative(ROOT, JSON_PATH)}`);
  if (!results.verdicts.pass) process.exitCode = 1;
}

function renderOnly(): void {
  const results = JSON.parse(readFileSync(JSON_PATH, 'utf8')) as SoakResults;
  writeFileSync(REPORT_PATH, renderSoak(results));
  log(`rendered ${path.relative(ROOT, REPORT_PATH)} from ${path.relative(ROOT, JSON_PATH)}`);
}

(options['render-only'] ? Promise.resolve().then(renderOnly) : main())
  .catch((err: unknown) => {
    log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exitCode = 1;
  })
  .finally(async () => {
    await cleanUp();
    // Whatever a failure left open (a socket, a client's retry timer) must not keep an unattended run alive for hours.
    process.exit();
  });
