import { setTimeout as delay } from 'node:timers/promises';
import type { AlertBenchOptions } from './alerts.js';
import { describeLoad, fmt } from './alert-latency.js';
import { CpuSampler } from './cpu.js';
import { BATCH_SIZE, SAMPLE_EVENT, eventsPerRequest } from './events.js';
import { runLoad } from './load.js';
import { ingest, type ManagementApi } from './management-api.js';
import type { AlertThroughput } from './results.js';

/**
 * Alert throughput: a rule matches every SAMPLE_EVENT, so every event of the load is a match, and
 * every match (an `every` rule) or every Nth (a threshold of N, no group, so the load's events make
 * one sequence) an alert. The load offers OFFERED_ALERTS_PER_SECOND alerts for the step duration,
 * N times as many events for a threshold: above what the pipeline is expected to deliver, so the
 * figure is its capacity: alerts received ÷ the time from the first to the last of them (every
 * alert, or the drain timeout).
 *
 * Each alert is a trigger record in Redis (a threshold's N records), a delivery row, a Kafka job, its
 * share of the shared claim, destination and outcome statements in PostgreSQL, and an HTTP request.
 * The first runs measured 120 to 350 alerts/s on this machine (with a few statements per attempt),
 * and about 1,200 once attempts shared their statements, so 1,500/s is above what the pipeline
 * delivers, yet the backlog of a 10 s load drains within the drain timeout. Should the pipeline get
 * faster than this, the report says it kept up, and the figure is a lower bound.
 */
const OFFERED_ALERTS_PER_SECOND = 1_500;
/** How long after the throughput load the benchmark waits for its last alerts (bounds the run time). */
const THROUGHPUT_DRAIN_TIMEOUT_MS = 30_000;
/** How long a new rule may take to deliver its first alert before the benchmark gives up on it. */
export const RULE_LIVE_TIMEOUT_MS = 20_000;

export interface ThroughputRule {
  /** The rule's name when created. */
  readonly name: string;
  /** The rule's trigger when created; absent: `every`. */
  readonly trigger?: { readonly type: 'threshold'; readonly count: number; readonly windowSeconds: number };
  /** When it alerts, in words, for the results. */
  readonly rule: string;
}

/**
 * Creates the rule, checks that it delivers, measures, and deletes it, so that the events of a later
 * measurement match only that measurement's rule.
 */
export async function measureThroughput(o: AlertBenchOptions, api: ManagementApi, actions: ReadonlyArray<{ destinationId: string }>, spec: ThroughputRule): Promise<AlertThroughput | null> {
  const { target, receiver, log } = o;
  const eventsPerAlert = spec.trigger?.count ?? 1;
  const rule = await api.post<{ id: string }>('notification-rules', {
    name: spec.name,
    eventName: SAMPLE_EVENT.event,
    enabled: true,
    conditions: [],
    actions,
    ...(spec.trigger ? { trigger: spec.trigger } : {}),
  });
  try {
    // The rule is live once it delivered: from then on every event of the load is a match. A
    // threshold's check sends its N events, which it consumes, so the load starts a fresh count.
    const liveCheck = await ingest(target, eventsPerAlert === 1 ? SAMPLE_EVENT : Array.from({ length: eventsPerAlert }, () => SAMPLE_EVENT));
    const trigger = liveCheck.at(-1);
    if (trigger === undefined || (await receiver.arrival(trigger, performance.now() + RULE_LIVE_TIMEOUT_MS, rule.id)) === null) {
      o.problems.push(`alerts: the rule "${spec.name}" delivered nothing within ${RULE_LIVE_TIMEOUT_MS} ms, so its alert throughput was not measured`);
      log(o.problems.at(-1)!);
      return null;
    }
    return await measure(o, rule.id, spec, eventsPerAlert);
  } finally {
    await api.delete(`notification-rules/${rule.id}`);
  }
}

async function measure(o: AlertBenchOptions, ruleId: string, spec: ThroughputRule, eventsPerAlert: number): Promise<AlertThroughput> {
  const { target, receiver, log } = o;
  const load = { shape: 'batch', connections: 1, requestsPerSecond: (OFFERED_ALERTS_PER_SECOND * eventsPerAlert) / BATCH_SIZE } as const;
  const before = receiver.arrivals(ruleId).length;
  log(`${o.label}: alert throughput, ${o.durationSeconds} s of ${describeLoad([load])}, ${spec.rule}`);
  const sampler = new CpuSampler(o.cpuGroups);
  sampler.start();
  const started = performance.now();
  // A fixed number of requests, all answered: the matching events are exactly those counted as accepted.
  const requests = load.requestsPerSecond * o.durationSeconds;
  const outcome = await runLoad({ url: target.url, apiKey: target.apiKey, durationSeconds: o.durationSeconds, requests, ...load });
  const loadEnded = performance.now();
  const matchingEvents = outcome.accepted * eventsPerRequest(load.shape);
  const expectedAlerts = Math.floor(matchingEvents / eventsPerAlert);
  const arrivals = (): readonly number[] => receiver.arrivals(ruleId).slice(before);
  const deliveredDuringLoad = arrivals().filter((at) => at <= loadEnded).length;
  const deadline = loadEnded + THROUGHPUT_DRAIN_TIMEOUT_MS;
  while (arrivals().length < expectedAlerts && performance.now() < deadline) await delay(100);
  const cpu = sampler.stop();
  const delivered = arrivals();
  const drained = delivered.length >= expectedAlerts;
  const first = delivered[0];
  const last = delivered.at(-1);
  const result: AlertThroughput = {
    load: { shape: load.shape, connections: load.connections, requestsPerSecondLimit: load.requestsPerSecond, ...outcome },
    rule: spec.rule,
    ruleId,
    matchingEvents,
    expectedAlerts,
    delivered: delivered.length,
    deliveredDuringLoad,
    firstAlertSeconds: first === undefined ? null : (first - started) / 1000,
    drainSeconds: drained && last !== undefined ? Math.max(0, last - loadEnded) / 1000 : null,
    drainTimeoutSeconds: THROUGHPUT_DRAIN_TIMEOUT_MS / 1000,
    alertsPerSecond: first !== undefined && last !== undefined && last > first ? delivered.length / ((last - first) / 1000) : null,
    endToEndAlertsPerSecond: drained && last !== undefined ? expectedAlerts / ((last - started) / 1000) : null,
    cpu,
  };
  log(
    `${o.label}: ${Math.round(outcome.eventsPerSecond)} matching events/s accepted, ${fmt(result.alertsPerSecond)} alerts/s delivered ` +
      `(${result.delivered} of ${expectedAlerts}, ${drained ? `drained ${result.drainSeconds!.toFixed(1)} s after the load` : `not drained within ${result.drainTimeoutSeconds} s`})`,
  );
  return result;
}
