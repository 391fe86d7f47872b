import type { AlertReceiver } from './alert-receiver.js';
import { measureAbsence } from './absence-alerts.js';
import { measureAlertLatency } from './alert-latency.js';
import { RULE_LIVE_TIMEOUT_MS, measureThroughput } from './alert-throughput.js';
import type { PidSource } from './cpu.js';
import { SAMPLE_EVENT } from './events.js';
import { ingest, managementApi, type ManagementApi } from './management-api.js';
import type { AlertsResult, ThresholdLatency } from './results.js';
import type { Target } from './targets.js';

/**
 * The alert benchmarks, against distributed mode started with OUTBOUND_ALLOW_PRIVATE=true so its
 * webhook destination may be the benchmark's own receiver (bench/alert-receiver.ts). Everything is
 * set up through the public API, as a user would: a webhook destination and rules on the app the load
 * goes to. In this order, each on a pipeline that has finished the one before:
 *
 * 1. Ingest→alert delivered (target: p99 ≤ 1 s under load), with one `every` rule matching the
 *    probes (bench/alert-latency.ts).
 * 2. The same with THRESHOLD.rules enabled threshold rules (target: p99 ≤ 300 ms). Each probe request
 *    carries the N events of a group of its own, so the rule triggers on the request's last event and
 *    a sample runs from the ingest of that Nth event to the delivery of its alert. The probes take
 *    the rules in turn, so every rule is measured; the load's events are evaluated against all of
 *    them and meet none of their conditions.
 * 3. Absence rules (target: every alert within 2 s of its deadline; bench/absence-alerts.ts).
 * 4. The alert capacity when every event is a match, first of an `every` rule, then of a threshold
 *    rule of the smallest N the API allows (2): the rate at which a backlog of the same number of
 *    alerts is worked off (bench/alert-throughput.ts).
 */

/**
 * Step 2's rules. Each probe is a new group, so a window longer than a probe takes to arrive whole
 * is all it needs; N is the API's smallest, so a probe is two events.
 */
const THRESHOLD = { rules: 100, trigger: { type: 'threshold', count: 2, windowSeconds: 60, groupBy: '$customer_id' } } as const;

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

type Actions = ReadonlyArray<{ destinationId: string }>;

export async function benchAlerts(o: AlertBenchOptions): Promise<AlertsResult> {
  const { target, receiver, log } = o;
  if (!target.reader) throw new Error('the alerts benchmark needs a target with a management API (distributed mode)');
  const api = managementApi(target.url, target.reader.clientSecret, target.reader.appId);
  const destination = await api.post<{ id: string }>('destinations', { type: 'webhook', label: 'bench receiver', url: receiver.url });
  const actions = [{ destinationId: destination.id }];
  // LatencyProbe marks its events probe-<runId>-<n>: the rule matches those and nothing of the load.
  const markerPrefix = `probe-${o.runId}-`;
  const probeRule = await api.post<{ id: string }>('notification-rules', {
    name: 'bench: marked events',
    eventName: SAMPLE_EVENT.event,
    enabled: true,
    conditions: [{ field: '$customer_id', operator: 'contains', value: markerPrefix }],
    actions,
  });
  const latency = await measureAlertLatency(o, {
    what: 'ingest→alert delivered',
    rule: `${SAMPLE_EVENT.event} events whose customer_id contains the run's probe marker (the load's events are evaluated and do not match)`,
    label: 'probe',
    event: (marker, timestamp) => ({ ...SAMPLE_EVENT, customer_id: marker, timestamp }),
  });
  const thresholdLatency = await measureThresholdLatency(o, api, actions);
  const absence = await measureAbsence({ label: o.label, api, receiver, actions, log });

  // A marked event awaited before each throughput rule exists: every event sent before it has been
  // evaluated, so none of them is counted as a match of that rule.
  let fences = 0;
  const fence = async (before: string): Promise<void> => {
    const [id] = await ingest(target, { ...SAMPLE_EVENT, customer_id: `${markerPrefix}fence-${++fences}` });
    if (id === undefined || (await receiver.arrival(id, performance.now() + RULE_LIVE_TIMEOUT_MS, probeRule.id)) === null) {
      o.problems.push(`alerts: the marked event sent before ${before} was not delivered within ${RULE_LIVE_TIMEOUT_MS} ms`);
    }
  };
  await fence('the every-event throughput');
  const throughput = await measureThroughput(o, api, actions, { name: 'bench: every event', rule: `every ${SAMPLE_EVENT.event} event alerts` });
  await fence('the threshold throughput');
  const { count, windowSeconds } = THRESHOLD.trigger;
  const thresholdThroughput = await measureThroughput(o, api, actions, {
    name: `bench: every ${count} events`,
    trigger: { type: 'threshold', count, windowSeconds },
    rule: `every ${SAMPLE_EVENT.event} event is a match of a threshold rule of N = ${count} (window ${windowSeconds} s, no group): one alert per ${count} events`,
  });
  return {
    label: o.label,
    latency: { ...latency, probeRuleId: probeRule.id },
    throughput,
    thresholdLatency,
    thresholdThroughput,
    absence: [absence],
    unreadableWebhooks: receiver.unreadable,
    duplicateWebhooks: receiver.duplicates,
  };
}

/** Step 2: creates the rules, measures as step 1 does, and deletes them, so that later steps run without them. */
async function measureThresholdLatency(o: AlertBenchOptions, api: ManagementApi, actions: Actions): Promise<ThresholdLatency> {
  // The probes' markers are threshold-<runId>-<n>: the `every` rule of step 1 does not match them.
  const label = 'threshold';
  const markerPrefix = `${label}-${o.runId}-`;
  const { rules, trigger } = THRESHOLD;
  const created = await Promise.all(
    Array.from({ length: rules }, (_, i) =>
      api.post<{ id: string }>('notification-rules', {
        name: `bench: threshold ${i}`,
        eventName: SAMPLE_EVENT.event,
        enabled: true,
        conditions: [
          { field: '$customer_id', operator: 'contains', value: markerPrefix },
          { field: 'metadata.bench_rule', operator: 'equals', value: i },
        ],
        actions,
        trigger,
      }),
    ),
  );
  let probes = 0;
  try {
    const latency = await measureAlertLatency(o, {
      what: `ingest→alert delivered with ${rules} threshold rules`,
      rule:
        `${rules} threshold rules of N = ${trigger.count} in ${trigger.windowSeconds} s grouped by customer_id, each matching the probe events whose metadata names it; ` +
        `a probe request is ${trigger.count} events of a new customer_id, the probes take the rules in turn (the load's events are evaluated against every rule and match none)`,
      label,
      event: (marker, timestamp) => {
        const event = { ...SAMPLE_EVENT, customer_id: marker, timestamp, metadata: { ...SAMPLE_EVENT.metadata, bench_rule: probes++ % rules } };
        return Array.from({ length: trigger.count }, () => event);
      },
    });
    return { ...latency, rules, trigger };
  } finally {
    await Promise.all(created.map((rule) => api.delete(`notification-rules/${rule.id}`)));
  }
}
