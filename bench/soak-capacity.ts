import { eventsPerRequest } from './events.js';
import { runLoad } from './load.js';
import type { RampStep } from './soak-results.js';
import { waitForStored, type Target } from './targets.js';

/**
 * The pair's capacity, measured just before the soak with the soak's own requests: a short closed-loop
 * ramp (bench/load.ts) of batches at rising concurrency. A step's rate is end to end, accepted events
 * over the load time plus the time the worker then took to store them all, because a rate the edge
 * accepts but the worker cannot keep up with would make the soak's lag grow by construction. Short
 * steps undercount it a little (the drain includes the pipeline's fixed delay), which only makes the
 * soak's half of it gentler.
 */

/** Latency the capacity allows: a step whose p99 is above this is past what the pair sustains. */
const MAX_P99_MS = 1_000;
/** Unrecorded load before the first step: JIT, connection pools, first Kafka metadata. */
const WARMUP_SECONDS = 3;
/** How long a step may wait for the worker to store what it got accepted. */
const DRAIN_TIMEOUT_MS = 60_000;

export interface RampOptions {
  readonly target: Target;
  readonly body: string;
  readonly connections: readonly number[];
  readonly stepSeconds: number;
  /** Events the store holds already (the rule's live check); every accepted event is added to it. */
  readonly storedBefore: number;
  readonly log: (message: string) => void;
}

export interface Ramp {
  readonly steps: RampStep[];
  /** The best end-to-end rate of a step that counts; null if none did. */
  readonly eventsPerSecond: number | null;
  /** Events the store must hold once the ramp's have all been stored. */
  readonly stored: number;
}

export async function measureCapacity(o: RampOptions): Promise<Ramp> {
  const { target } = o;
  const perRequest = eventsPerRequest('batch');
  let expected = o.storedBefore;
  o.log(`capacity: warming up (${WARMUP_SECONDS} s at 8 connections)`);
  const warm = await runLoad({ url: target.url, apiKey: target.apiKey, shape: 'batch', body: o.body, connections: 8, durationSeconds: WARMUP_SECONDS });
  expected += warm.accepted * perRequest;
  await waitForStored(target, expected, performance.now(), DRAIN_TIMEOUT_MS);

  const steps: RampStep[] = [];
  for (const connections of o.connections) {
    const started = performance.now();
    const outcome = await runLoad({ url: target.url, apiKey: target.apiKey, shape: 'batch', body: o.body, connections, durationSeconds: o.stepSeconds });
    const ended = performance.now();
    const events = outcome.accepted * perRequest;
    expected += events;
    const drainSeconds = await waitForStored(target, expected, ended, DRAIN_TIMEOUT_MS);
    const disqualified =
      outcome.non202Total > 0
        ? `${outcome.non202Total} not accepted`
        : outcome.latency.p99 >= MAX_P99_MS
          ? `p99 ≥ ${MAX_P99_MS} ms`
          : drainSeconds === null
            ? `not stored within ${DRAIN_TIMEOUT_MS / 1000} s`
            : null;
    const step: RampStep = {
      connections,
      seconds: outcome.durationSeconds,
      eventsPerSecond: outcome.eventsPerSecond,
      latencyMs: outcome.latency,
      non202: outcome.non202,
      drainSeconds,
      endToEndEventsPerSecond: drainSeconds === null ? null : events / ((ended - started) / 1000 + drainSeconds),
      disqualified,
    };
    steps.push(step);
    o.log(
      `capacity c=${connections}: ${Math.round(step.eventsPerSecond)} events/s accepted, p99 ${step.latencyMs.p99} ms, ` +
        `end to end ${step.endToEndEventsPerSecond === null ? 'n/a' : Math.round(step.endToEndEventsPerSecond)} events/s${disqualified ? ` (does not count: ${disqualified})` : ''}`,
    );
    // Past the first step that fails, more connections only queue more: the ramp has found its top.
    if (disqualified) break;
  }
  const counted = steps.filter((s) => s.disqualified === null).map((s) => s.endToEndEventsPerSecond!);
  return { steps, eventsPerSecond: counted.length > 0 ? Math.max(...counted) : null, stored: expected };
}

