import { setTimeout as delay } from 'node:timers/promises';
import type { LatencySummary, ProbeResult } from './results.js';

/**
 * Ingest→readable latency under load. Every `intervalMs` the probe ingests one event of its own,
 * marked by a unique customer_id, into the same app the load goes to (so it waits in the same Kafka
 * partition and worker batches as the load), then polls GET /v1/apps/{id}/events for that marker
 * until it shows up. A sample is the time from the 202 to the end of the first read that returned
 * the event: an upper bound, over by at most one poll interval plus one read.
 *
 * Kept light on purpose: about 5 ingests/s and, with reads resolving in well under a second, a few
 * dozen reads/s, against thousands of load requests/s. Each read names the event's own timestamp in
 * `from`: the events table is sorted by (app, timestamp), so ClickHouse reads only the newest
 * granules instead of scanning the whole app for a customer id, which would make the probe itself a
 * load that grows with the table.
 */

export interface ProbeOptions {
  readonly url: string;
  readonly apiKey: string;
  readonly clientSecret: string;
  readonly appId: string;
  /** Distinguishes this run's markers from any other run's in the same app. */
  readonly runId: string;
  readonly intervalMs: number;
  readonly pollMs: number;
  readonly timeoutMs: number;
}

export class ReadabilityProbe {
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

  /** Probe events answered 202 since this probe was made: the drain check counts them as stored events. */
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
    const { url, apiKey, clientSecret, appId, runId, pollMs, timeoutMs } = this.#options;
    const marker = `probe-${runId}-${++this.#sequence}`;
    const timestamp = new Date().toISOString();
    // A failed send (reset socket) rejects; #loop counts it as not accepted.
    const res = await fetch(`${url}/v1/ingest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify({ event: 'bench.probe', customer_id: marker, timestamp, data: {} }),
    });
    await res.arrayBuffer();
    if (res.status !== 202) {
      this.#notAccepted++;
      return;
    }
    this.#accepted++;
    const acceptedAt = performance.now();
    const query = new URLSearchParams({ customer_id: marker, from: timestamp, limit: '1' });
    const readUrl = `${url}/v1/apps/${appId}/events?${query.toString()}`;
    for (;;) {
      if (await this.#visible(readUrl, clientSecret)) {
        this.#samples.push(performance.now() - acceptedAt);
        return;
      }
      const now = performance.now();
      if (now - acceptedAt > timeoutMs) {
        this.#timedOut++;
        return;
      }
      await delay(pollMs);
    }
  }

  /** A failed read (a 5xx, a reset socket) is just "not seen yet": the probe's timeout decides. */
  async #visible(readUrl: string, clientSecret: string): Promise<boolean> {
    try {
      const read = await fetch(readUrl, { headers: { authorization: `Bearer ${clientSecret}` } });
      const body = (await read.json()) as { items?: unknown[] };
      return read.status === 200 && (body.items?.length ?? 0) > 0;
    } catch {
      return false;
    }
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
