import { setTimeout as delay } from 'node:timers/promises';
import type { AlertBenchOptions } from './alerts.js';
import { fmt } from './alert-latency.js';
import { CpuSampler } from './cpu.js';
import { BATCH_SIZE, SAMPLE_EVENT, eventsPerRequest } from './events.js';
import { runLoad } from './load.js';
import { ingest, type ManagementApi } from './management-api.js';
import type { AlertThroughput } from './results.js';

/**
 * Alert capacity, as the rate at which the pipeline works off a backlog: a rule matches every
 * SAMPLE_EVENT, so every event is a match, and every match (an `every` rule) or every Nth (a threshold
 * of N, no group, so the events make one sequence) an alert. The load is a burst: the events of
 * BACKLOG_ALERTS alerts sent as fast as the edge takes them, in a second or two, far faster than alerts
 * are delivered. When its last request is answered most alerts are still to come, and nothing more is
 * offered: alerts delivered from then on ÷ the time from then to the last of them is what the pipeline
 * delivers when it is limited by nothing but itself. A load offered at a fixed rate would measure that
 * rate whenever the pipeline keeps up with it.
 *
 * Each alert is a trigger record in Redis (a threshold's N records), a delivery row, a Kafka job, its
 * share of the shared claim, destination and outcome statements in PostgreSQL, and an HTTP request.
 * About 1,100 to 1,500 alerts/s were delivered on this machine before, so 20,000 alerts are a backlog
 * of about 15 s, well within the drain timeout.
 */
const BACKLOG_ALERTS = 20_000;
/** Requests in flight while the burst is sent. */
const BURST_CONNECTIONS = 8;
/** How long after the burst the benchmark waits for its last alerts (bounds the run time). */
const THROUGHPUT_DRAIN_TIMEOUT_MS = 90_000;
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
  const load = { shape: 'batch', connections: BURST_CONNECTIONS } as const;
  const before = receiver.arrivals(ruleId).length;
  // A fixed number of requests, all answered: the matching events are exactly those counted as accepted.
  const requests = Math.ceil((BACKLOG_ALERTS * eventsPerAlert) / BATCH_SIZE);
  log(`${o.label}: alert capacity, a burst of ${requests} requests of ${BATCH_SIZE} events on ${load.connections} connections (${BACKLOG_ALERTS} alerts), ${spec.rule}`);
  const sampler = new CpuSampler(o.cpuGroups);
  sampler.start();
  const started = performance.now();
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
  const afterLoad = delivered.length - deliveredDuringLoad;
  const result: AlertThroughput = {
    load: { shape: load.shape, connections: load.connections, requestsPerSecondLimit: null, ...outcome },
    rule: spec.rule,
    ruleId,
    matchingEvents,
    expectedAlerts,
    delivered: delivered.length,
    deliveredDuringLoad,
    backlog: expectedAlerts - deliveredDuringLoad,
    firstAlertSeconds: first === undefined ? null : (first - started) / 1000,
    drainSeconds: drained && last !== undefined ? Math.max(0, last - loadEnded) / 1000 : null,
    drainTimeoutSeconds: THROUGHPUT_DRAIN_TIMEOUT_MS / 1000,
    drainAlertsPerSecond: drained && last !== undefined && last > loadEnded && afterLoad > 0 ? afterLoad / ((last - loadEnded) / 1000) : null,
    alertsPerSecond: first !== undefined && last !== undefined && last > first ? delivered.length / ((last - first) / 1000) : null,
    endToEndAlertsPerSecond: drained && last !== undefined ? expectedAlerts / ((last - started) / 1000) : null,
    cpu,
  };
  log(
    `${o.label}: ${expectedAlerts} alerts owed, ${result.backlog} of them still to come after the burst; ` +
      (drained ? `worked off at ${fmt(result.drainAlertsPerSecond ?? null)} alerts/s in ${result.drainSeconds!.toFixed(1)} s` : `not drained within ${result.drainTimeoutSeconds} s (${result.delivered} delivered)`),
  );
  return result;
}
