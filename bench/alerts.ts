import { setTimeout as delay } from 'node:timers/promises';
import type { AlertReceiver } from './alert-receiver.js';
import { CpuSampler, type PidSource } from './cpu.js';
import { SAMPLE_EVENT, eventsPerRequest, type RequestShape } from './events.js';
import { runLoad } from './load.js';
import { LatencyProbe } from './probe.js';
import type { AlertLoad, AlertsResult, AlertThroughput } from './results.js';
import type { Target } from './targets.js';

/**
 * Ingest→alert delivered (target: p99 ≤ 1 s under load), against distributed mode started with
 * OUTBOUND_ALLOW_PRIVATE=true so its webhook destination may be the benchmark's own receiver
 * (bench/alert-receiver.ts). Everything is set up through the public API, as a user would: a webhook
 * destination and rules on the app the load goes to.
 *
 * 1. Latency. A steady background load (LATENCY_LOAD) of SAMPLE_EVENT, which no rule matches but
 *    every event is evaluated against the marked-events rule's condition; meanwhile a probe ingests
 *    SAMPLE_EVENT with a marked customer_id every ALERT_PROBE.intervalMs, which that rule matches. A sample
 *    is the time from the probe's 202 to its webhook reaching the receiver (matched by event id). The
 *    probe events travel with the load: same app, same partition, same worker batches.
 * 2. Throughput. A second rule matches every SAMPLE_EVENT, so each event of THROUGHPUT_LOAD is an
 *    alert. Offered above what the pipeline is expected to deliver, so the figure is its capacity:
 *    alerts received ÷ the time from the first to the last of them (every alert, or the drain timeout).
 */

/**
 * The latency's background load: a fixed rate, not a closed loop, so it stays the same whatever the
 * service does and leaves the two cores some room (the target is about latency under a steady load,
 * not at saturation). Both shapes at once: 1,200 events/s in 210 requests/s. A connection still
 * waits for each answer before its next request, so there are enough of them for the rate to hold
 * at a few tens of milliseconds per request.
 */
const LATENCY_LOAD: ReadonlyArray<{ shape: RequestShape; connections: number; requestsPerSecond: number }> = [
  { shape: 'single', connections: 16, requestsPerSecond: 200 },
  { shape: 'batch', connections: 2, requestsPerSecond: 10 },
];
/**
 * The throughput's load: 100-event batches, every event an alert, offered at 1,500 events/s for the
 * step duration. Each alert is a trigger record in Redis, a delivery row, a Kafka job, its share of the
 * shared claim, destination and outcome statements in PostgreSQL, and an HTTP request. The first runs
 * measured 120 to 350 alerts/s on this machine (with a few statements per attempt), and about 1,200
 * once attempts shared their statements, so this rate is above what the pipeline delivers (the
 * delivered rate is its capacity), yet the backlog of a 10 s load drains within the drain timeout.
 * Should the pipeline get faster than this, the report says it kept up, and the figure is a lower bound.
 */
const THROUGHPUT_LOAD = { shape: 'batch', connections: 1, requestsPerSecond: 15 } as const;
/** One probe every 100 ms; a probe not delivered within 10 s (ten times the target) timed out. */
const ALERT_PROBE = { intervalMs: 100, timeoutMs: 10_000 } as const;
/** How long after the throughput load the benchmark waits for its last alerts (bounds the run time). */
const THROUGHPUT_DRAIN_TIMEOUT_MS = 30_000;
/** How long a new rule may take to deliver its first alert before the benchmark gives up on it. */
const RULE_LIVE_TIMEOUT_MS = 20_000;

export interface AlertBenchOptions {
  readonly label: string;
  readonly target: Target;
  readonly receiver: AlertReceiver;
  /** Distinguishes this run's probe markers. */
  readonly runId: string;
  readonly durationSeconds: number;
  readonly warmupSeconds: number;
  /** Whose CPU time to account during each phase. */
  readonly cpuGroups: Record<string, PidSource>;
  readonly log: (message: string) => void;
  /** Things that went wrong without stopping the run, for the report. */
  readonly problems: string[];
}

export async function benchAlerts(o: AlertBenchOptions): Promise<AlertsResult> {
  const { target, receiver, log } = o;
  if (!target.reader) throw new Error('the alerts benchmark needs a target with a management API (distributed mode)');
  const api = managementApi(target.url, target.reader.clientSecret, target.reader.appId);
  const destination = await api.post<{ id: string }>('destinations', { type: 'webhook', label: 'bench receiver', url: receiver.url });
  const action = [{ destinationId: destination.id }];
  // LatencyProbe marks its events probe-<runId>-<n>: the rule matches those and nothing of the load.
  const markerPrefix = `probe-${o.runId}-`;
  const probeRule = await api.post<{ id: string }>('notification-rules', {
    name: 'bench: marked events',
    eventName: SAMPLE_EVENT.event,
    enabled: true,
    conditions: [{ field: '$customer_id', operator: 'contains', value: markerPrefix }],
    actions: action,
  });
  const sampler = new CpuSampler(o.cpuGroups);
  const probe = new LatencyProbe({
    url: target.url,
    apiKey: target.apiKey,
    runId: o.runId,
    ...ALERT_PROBE,
    event: (marker, timestamp) => ({ ...SAMPLE_EVENT, customer_id: marker, timestamp }),
    watch: ({ eventId, acceptedAt }) => receiver.arrival(eventId, acceptedAt + ALERT_PROBE.timeoutMs),
  });

  // The warm-up also proves the path: a probe delivered means the rule, destination and receiver work.
  log(`${o.label}: warming up (${o.warmupSeconds} s of the background load with probes)`);
  probe.start();
  await backgroundLoad(target, o.warmupSeconds);
  const warm = await probe.stop();
  if (warm.samples === 0) o.problems.push(`alerts: no probe alert arrived during the warm-up (${warm.timedOut} timed out, ${warm.notAccepted} not accepted)`);

  log(`${o.label}: ingest→alert delivered, ${o.durationSeconds} s under ${describeLoad(LATENCY_LOAD)}`);
  sampler.start();
  probe.start();
  const load = await backgroundLoad(target, o.durationSeconds);
  const cpu = sampler.stop();
  const probeResult = await probe.stop();
  log(`${o.label}: alert delivered p50 ${fmt(probeResult.p50)} ms p99 ${fmt(probeResult.p99)} ms max ${fmt(probeResult.max)} ms (${probeResult.samples} samples, ${probeResult.timedOut} timed out)`);

  // A last marked event after the load, awaited: every event of the load was evaluated before the
  // every-event rule exists, so none of them is counted as an alert of the throughput load.
  const [fence] = await ingest(target, { ...SAMPLE_EVENT, customer_id: `${markerPrefix}fence` });
  if (fence === undefined || (await receiver.arrival(fence, performance.now() + RULE_LIVE_TIMEOUT_MS)) === null) {
    o.problems.push(`alerts: the marked event sent after the latency load was not delivered within ${RULE_LIVE_TIMEOUT_MS} ms`);
  }
  const throughput = await measureThroughput(o, api, action);
  return {
    label: o.label,
    latency: {
      rule: `${SAMPLE_EVENT.event} events whose customer_id contains the run's probe marker (the load's events are evaluated and do not match)`,
      probeRuleId: probeRule.id,
      probeIntervalMs: ALERT_PROBE.intervalMs,
      probeTimeoutMs: ALERT_PROBE.timeoutMs,
      load,
      probe: probeResult,
      cpu,
    },
    throughput,
    unreadableWebhooks: receiver.unreadable,
    duplicateWebhooks: receiver.duplicates,
  };
}

/** LATENCY_LOAD's runs side by side for `seconds`. */
async function backgroundLoad(target: Target, seconds: number): Promise<AlertLoad[]> {
  return Promise.all(
    LATENCY_LOAD.map(async (l) => ({
      shape: l.shape,
      connections: l.connections,
      requestsPerSecondLimit: l.requestsPerSecond,
      ...(await runLoad({ url: target.url, apiKey: target.apiKey, durationSeconds: seconds, ...l })),
    })),
  );
}

async function measureThroughput(o: AlertBenchOptions, api: ManagementApi, actions: ReadonlyArray<{ destinationId: string }>): Promise<AlertThroughput | null> {
  const { target, receiver, log } = o;
  const rule = await api.post<{ id: string }>('notification-rules', { name: 'bench: every event', eventName: SAMPLE_EVENT.event, enabled: true, conditions: [], actions });
  // The rule is live once it delivered: from then on every event of the load is an alert.
  const [liveCheck] = await ingest(target, SAMPLE_EVENT);
  if (liveCheck === undefined || (await receiver.arrival(liveCheck, performance.now() + RULE_LIVE_TIMEOUT_MS)) === null) {
    o.problems.push(`alerts: the every-event rule delivered nothing within ${RULE_LIVE_TIMEOUT_MS} ms, so alert throughput was not measured`);
    log(o.problems.at(-1)!);
    return null;
  }
  const before = receiver.arrivals(rule.id).length;
  log(`${o.label}: alert throughput, ${o.durationSeconds} s of ${describeLoad([THROUGHPUT_LOAD])}, every event an alert`);
  const sampler = new CpuSampler(o.cpuGroups);
  sampler.start();
  const started = performance.now();
  // A fixed number of requests, all answered: the matching events are exactly those counted as accepted.
  const requests = THROUGHPUT_LOAD.requestsPerSecond * o.durationSeconds;
  const outcome = await runLoad({ url: target.url, apiKey: target.apiKey, durationSeconds: o.durationSeconds, requests, ...THROUGHPUT_LOAD });
  const loadEnded = performance.now();
  const matchingEvents = outcome.accepted * eventsPerRequest(THROUGHPUT_LOAD.shape);
  const arrivals = (): readonly number[] => receiver.arrivals(rule.id).slice(before);
  const deliveredDuringLoad = arrivals().filter((at) => at <= loadEnded).length;
  const deadline = loadEnded + THROUGHPUT_DRAIN_TIMEOUT_MS;
  while (arrivals().length < matchingEvents && performance.now() < deadline) await delay(100);
  const cpu = sampler.stop();
  const delivered = arrivals();
  const drained = delivered.length >= matchingEvents;
  const first = delivered[0];
  const last = delivered.at(-1);
  const result: AlertThroughput = {
    load: { shape: THROUGHPUT_LOAD.shape, connections: THROUGHPUT_LOAD.connections, requestsPerSecondLimit: THROUGHPUT_LOAD.requestsPerSecond, ...outcome },
    rule: `every ${SAMPLE_EVENT.event} event`,
    ruleId: rule.id,
    matchingEvents,
    delivered: delivered.length,
    deliveredDuringLoad,
    firstAlertSeconds: first === undefined ? null : (first - started) / 1000,
    drainSeconds: drained && last !== undefined ? Math.max(0, last - loadEnded) / 1000 : null,
    drainTimeoutSeconds: THROUGHPUT_DRAIN_TIMEOUT_MS / 1000,
    alertsPerSecond: first !== undefined && last !== undefined && last > first ? delivered.length / ((last - first) / 1000) : null,
    endToEndAlertsPerSecond: drained && last !== undefined ? matchingEvents / ((last - started) / 1000) : null,
    cpu,
  };
  log(
    `${o.label}: ${Math.round(outcome.eventsPerSecond)} matching events/s accepted, ${fmt(result.alertsPerSecond)} alerts/s delivered ` +
      `(${result.delivered} of ${matchingEvents}, ${drained ? `drained ${result.drainSeconds!.toFixed(1)} s after the load` : `not drained within ${result.drainTimeoutSeconds} s`})`,
  );
  return result;
}

function describeLoad(loads: ReadonlyArray<{ shape: RequestShape; connections: number; requestsPerSecond: number }>): string {
  return loads.map((l) => `${l.shape} at ${l.requestsPerSecond} req/s (${l.requestsPerSecond * eventsPerRequest(l.shape)} events/s, ${l.connections} connection${l.connections === 1 ? '' : 's'})`).join(' + ');
}

const fmt = (n: number | null): string => (n === null ? 'n/a' : String(Math.round(n)));

/** Ingests one request with the app's key; resolves with the ids of the accepted events. */
export async function ingest(target: Target, body: unknown): Promise<string[]> {
  const res = await fetch(`${target.url}/v1/ingest`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': target.apiKey },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as { events?: Array<{ id: string }> };
  if (res.status !== 202 || !answer.events) throw new Error(`POST /v1/ingest answered ${res.status}: ${JSON.stringify(answer)}`);
  return answer.events.map((e) => e.id);
}

export interface ManagementApi {
  /** POST /v1/apps/{appId}/{path} with the client secret; resolves with the created resource. */
  post<T>(path: string, body: unknown): Promise<T>;
}

export function managementApi(url: string, clientSecret: string, appId: string): ManagementApi {
  return {
    async post<T>(path: string, body: unknown): Promise<T> {
      const res = await fetch(`${url}/v1/apps/${appId}/${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${clientSecret}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const answer: unknown = await res.json();
      if (res.status !== 201) throw new Error(`POST /v1/apps/{app}/${path} answered ${res.status}: ${JSON.stringify(answer)}`);
      return answer as T;
    },
  };
}
