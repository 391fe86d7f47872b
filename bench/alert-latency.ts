import type { AlertBenchOptions } from './alerts.js';
import { CpuSampler } from './cpu.js';
import { eventsPerRequest, type RequestShape } from './events.js';
import { runLoad } from './load.js';
import { LatencyProbe, type ProbeOptions } from './probe.js';
import type { AlertLatency, AlertLoad } from './results.js';
import type { Target } from './targets.js';

/**
 * Ingest→alert delivered under a steady background load (LATENCY_LOAD) of SAMPLE_EVENT, which the
 * probes' rules do not match but evaluate: meanwhile a probe ingests a marked request every
 * ALERT_PROBE.intervalMs, which one of those rules matches. A sample is the time from the probe's 202
 * to its webhook reaching the receiver (matched by the id of the request's last event: the one that
 * triggers). The probe events travel with the load: same app, same partition, same worker batches.
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
/** One probe every 100 ms; a probe not delivered within 10 s (ten times the target) timed out. */
const ALERT_PROBE = { intervalMs: 100, timeoutMs: 10_000 } as const;

export interface LatencyProbeSpec {
  /** What the probes' rules match, in words, for the results. */
  readonly rule: string;
  /** Names the measurement in the log and in problems: "ingest→alert delivered", ... */
  readonly what: string;
  /** The markers' first word (see ProbeOptions.label): distinct per kind of probe. */
  readonly label: string;
  readonly event: NonNullable<ProbeOptions['event']>;
}

/** A warm-up (which also proves the path), then the measured run of the background load with probes. */
export async function measureAlertLatency(o: AlertBenchOptions, spec: LatencyProbeSpec): Promise<AlertLatency> {
  const { target, receiver, log } = o;
  const probe = new LatencyProbe({
    url: target.url,
    apiKey: target.apiKey,
    runId: o.runId,
    label: spec.label,
    ...ALERT_PROBE,
    event: spec.event,
    watch: ({ eventId, acceptedAt }) => receiver.arrival(eventId, acceptedAt + ALERT_PROBE.timeoutMs),
  });
  // The warm-up also proves the path: a probe delivered means the rule, destination and receiver work.
  log(`${o.label}: ${spec.what}, warming up (${o.warmupSeconds} s of the background load with probes)`);
  probe.start();
  await backgroundLoad(target, o.warmupSeconds);
  const warm = await probe.stop();
  if (warm.samples === 0) o.problems.push(`alerts: no ${spec.what} probe alert arrived during the warm-up (${warm.timedOut} timed out, ${warm.notAccepted} not accepted)`);

  log(`${o.label}: ${spec.what}, ${o.durationSeconds} s under ${describeLoad(LATENCY_LOAD)}`);
  const sampler = new CpuSampler(o.cpuGroups);
  sampler.start();
  probe.start();
  const load = await backgroundLoad(target, o.durationSeconds);
  const cpu = sampler.stop();
  const result = await probe.stop();
  log(`${o.label}: ${spec.what} p50 ${fmt(result.p50)} ms p99 ${fmt(result.p99)} ms max ${fmt(result.max)} ms (${result.samples} samples, ${result.timedOut} timed out)`);
  return { rule: spec.rule, probeIntervalMs: ALERT_PROBE.intervalMs, probeTimeoutMs: ALERT_PROBE.timeoutMs, load, probe: result, cpu };
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

export function describeLoad(loads: ReadonlyArray<{ shape: RequestShape; connections: number; requestsPerSecond: number }>): string {
  return loads.map((l) => `${l.shape} at ${l.requestsPerSecond} req/s (${l.requestsPerSecond * eventsPerRequest(l.shape)} events/s, ${l.connections} connection${l.connections === 1 ? '' : 's'})`).join(' + ');
}

export const fmt = (n: number | null): string => (n === null ? 'n/a' : String(Math.round(n)));
