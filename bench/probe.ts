import { setTimeout as delay } from 'node:timers/promises';
import type { LatencySummary, ProbeResult } from './results.js';

/**
 * Latency under load, from ingest to wherever an event is awaited. Every `intervalMs` the probe
 * ingests one event of its own, marked by a unique customer_id, into the same app the load goes to
 * (so it waits in the same Kafka partition and worker batches as the load), and hands it to a
 * watcher that says when the event was seen at the far end. A sample is the time from the 202 to
 * that moment. Two watchers:
 * - readable (`readabilityProbe`): polls GET /v1/apps/{id}/events for the marker; a sample is an
 *   upper bound, over by at most one poll interval plus one read;
 * - alert delivered (bench/alert-latency.ts): waits for the webhook of a rule matching the marker to
 *   reach the benchmark's receiver.
 *
 * Kept light on purpose: a handful of ingests/s against thousands of load requests/s.
 */

export interface ProbeOptions {
  readonly url: string;
  readonly apiKey: string;
  /** Distinguishes this run's markers from any other run's in the same app. */
  readonly runId: string;
  /** The markers' first word, `probe` when absent: probes of another kind need markers of their own. */
  readonly label?: string;
  readonly intervalMs: number;
  /** How long after its 202 a probe event may take to be seen before it counts as timed out. */
  readonly timeoutMs: number;
  /**
   * The request body a probe sends (given its marker and timestamp): one event, `bench.probe` with no
   * data by default, or several, of which the last is the one watched (a threshold's Nth).
   */
  readonly event?: (marker: string, timestamp: string) => Record<string, unknown> | ReadonlyArray<Record<string, unknown>>;
  /** Resolves with the performance.now() the event was seen at, or null if not within `timeoutMs` of its 202. */
  readonly watch: (sent: SentProbe) => Promise<number | null>;
}

/** A probe event the service answered 202. */
export interface SentProbe {
  /** The id the service gave the event (of several in the request, the last). */
  readonly eventId: string;
  /** Its customer_id. */
  readonly marker: string;
  /** Its timestamp, ISO 8601. */
  readonly timestamp: string;
  /** performance.now() when the 202's headers arrived. */
  readonly acceptedAt: number;
}

export class LatencyProbe {
  readonly #options: ProbeOptions;
  readonly #samples: number[] = [];
  readonly #pending = new Set<Promise<void>>();
  #timedOut = 0;
  #notAccepted = 0;
  #accepted = 0;
  #sequence = 0;
  #sending: Promise<void> | undefined;
  #stopped = false;

  constructor(options: ProbeOptions) {
    this.#options = options;
  }

  /** Events of the probe requests answered 202 since this probe was made: the drain check counts them as stored events. */
  get acceptedTotal(): number {
    return this.#accepted;
  }

  start(): void {
    this.#stopped = false;
    this.#sending = this.#loop();
  }

  /** Stops sending, waits for every outstanding probe to be seen or to time out, and summarises. */
  async stop(): Promise<ProbeResult> {
    this.#stopped = true;
    await this.#sending;
    await Promise.all([...this.#pending]);
    const result = probeResult(this.#samples, this.#timedOut, this.#notAccepted);
    this.#samples.length = 0;
    this.#timedOut = 0;
    this.#notAccepted = 0;
    return result;
  }

  async #loop(): Promise<void> {
    while (!this.#stopped) {
      // Each probe runs on its own: a slow ingest must not delay the next probe's send.
      const probe = this.#probeOnce().catch(() => {
        this.#notAccepted++;
      });
      this.#pending.add(probe);
      void probe.finally(() => this.#pending.delete(probe));
      await delay(this.#options.intervalMs);
    }
  }

  async #probeOnce(): Promise<void> {
    const { url, apiKey, runId, label = 'probe', event = defaultEvent, watch } = this.#options;
    const marker = `${label}-${runId}-${++this.#sequence}`;
    const timestamp = new Date().toISOString();
    // A failed send (reset socket) rejects; #loop counts it as not accepted.
    const res = await fetch(`${url}/v1/ingest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify(event(marker, timestamp)),
    });
    // Taken before the body is read: the event may be on its way through the pipeline already.
    const acceptedAt = performance.now();
    const body = (await res.json().catch(() => null)) as { events?: Array<{ id?: unknown }> } | null;
    const events = body?.events ?? [];
    const eventId = events.at(-1)?.id;
    if (res.status !== 202 || typeof eventId !== 'string') {
      this.#notAccepted++;
      return;
    }
    this.#accepted += events.length;
    const seenAt = await watch({ eventId, marker, timestamp, acceptedAt });
    if (seenAt === null) this.#timedOut++;
    else this.#samples.push(seenAt - acceptedAt);
  }
}

const defaultEvent = (marker: string, timestamp: string): Record<string, unknown> => ({ event: 'bench.probe', customer_id: marker, timestamp, data: {} });

/**
 * Ingest→readable: polls GET /v1/apps/{id}/events for the marker every `pollMs` until it shows up.
 * Each read names the event's own timestamp in `from`: the events table is sorted by (app, timestamp),
 * so ClickHouse reads only the newest granules instead of scanning the whole app for a customer id,
 * which would make the probe itself a load that grows with the table.
 */
export function readabilityProbe(options: Omit<ProbeOptions, 'watch' | 'event'> & { clientSecret: string; appId: string; pollMs: number }): LatencyProbe {
  const { url, clientSecret, appId, pollMs, timeoutMs } = options;
  return new LatencyProbe({
    ...options,
    watch: async ({ marker, timestamp, acceptedAt }) => {
      const query = new URLSearchParams({ customer_id: marker, from: timestamp, limit: '1' });
      const readUrl = `${url}/v1/apps/${appId}/events?${query.toString()}`;
      for (;;) {
        if (await visible(readUrl, clientSecret)) return performance.now();
        if (performance.now() - acceptedAt > timeoutMs) return null;
        await delay(pollMs);
      }
    },
  });
}

/** A failed read (a 5xx, a reset socket) is just "not seen yet": the probe's timeout decides. */
async function visible(readUrl: string, clientSecret: string): Promise<boolean> {
  try {
    const read = await fetch(readUrl, { headers: { authorization: `Bearer ${clientSecret}` } });
    const body = (await read.json()) as { items?: unknown[] };
    return read.status === 200 && (body.items?.length ?? 0) > 0;
  } catch {
    return false;
  }
}

function probeResult(samples: readonly number[], timedOut: number, notAccepted: number): ProbeResult {
  return { ...summarise(samples), timedOut, notAccepted, samplesMs: samples.map((s) => Math.round(s * 10) / 10) };
}

/** Nearest-rank percentiles: exact on the samples (a few dozen per step, so p99 is close to the max). */
export function summarise(samples: readonly number[]): LatencySummary {
  if (samples.length === 0) return { samples: 0, p50: null, p99: null, max: null };
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  return { samples: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1)! };
}

/** The probes of several steps as one: the distribution over a whole mode's run. */
export function mergeProbeResults(results: readonly ProbeResult[]): ProbeResult {
  return probeResult(
    results.flatMap((r) => r.samplesMs),
    results.reduce((n, r) => n + r.timedOut, 0),
    results.reduce((n, r) => n + r.notAccepted, 0),
  );
}
