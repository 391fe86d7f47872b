import http from 'node:http';
import * as hdr from 'hdr-histogram-js';

/**
 * The soak's load: POST /v1/ingest at a fixed number of requests per second, open loop. Request i is
 * due at start + i / rate whatever happened to the requests before it, and its latency is counted
 * from that due time, not from when a socket was free: a service that slows down shows up as
 * latency and, past the timeout, as errors, never as a load that politely backs off (autocannon's
 * closed loop, bench/load.ts, sends less when answers come slower, which hides a slow drift).
 */

export interface PacedLoadOptions {
  readonly url: string;
  readonly apiKey: string;
  /** The same bytes for every request. */
  readonly body: string;
  readonly requestsPerSecond: number;
}

/** What the load saw over one interval (or the whole run). */
export interface PacedInterval {
  readonly seconds: number;
  /** Requests due in the interval and sent. */
  readonly sent: number;
  /** Requests answered 202 in the interval. */
  readonly accepted: number;
  /** Answers other than 202, by status code. */
  readonly non202: Readonly<Record<string, number>>;
  /** Requests that failed without an answer (reset, refused), timeouts excluded. */
  readonly requestErrors: number;
  /** The same by error code (ECONNRESET, ...), to tell a dropped connection from a refused one. */
  readonly requestErrorCodes: Readonly<Record<string, number>>;
  /** Requests not answered within REQUEST_TIMEOUT_MS of their due time. */
  readonly timeouts: number;
  /** From the due time to the end of the answer, milliseconds, over the requests answered in the interval. */
  readonly latencyMs: { readonly p50: number; readonly p90: number; readonly p99: number; readonly p999: number; readonly max: number } | null;
}

/** Ten times the latency the capacity ramp allows: an answer later than this is a failure, not a tail. */
const REQUEST_TIMEOUT_MS = 10_000;
/**
 * Enough connections for the rate at a few hundred milliseconds per request; past this, requests
 * wait in the agent's queue, which their latency (counted from the due time) includes.
 */
const MAX_SOCKETS = 128;
/**
 * A connection idle this long is closed by the load, well before the service's keep-alive timeout
 * (node:http's 5 s) closes it. Otherwise the two race: a request written to a connection the server
 * is closing fails with ECONNRESET, an error of the load generator and not of the service. Node's agent
 * heeds the server's Keep-Alive hint only when given a timeout of its own, hence this one.
 */
const IDLE_SOCKET_MS = 2_000;

class Tally {
  readonly histogram = hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: 3 });
  sent = 0;
  accepted = 0;
  non202: Record<string, number> = {};
  requestErrors = 0;
  requestErrorCodes: Record<string, number> = {};
  timeouts = 0;

  summary(seconds: number): PacedInterval {
    const h = this.histogram;
    // Recorded in microseconds so that sub-millisecond answers keep their resolution. A percentile is
    // its bucket's upper end, which may pass the largest value recorded: it is capped at that.
    const ms = (percentile: number): number => Math.round(Math.min(h.getValueAtPercentile(percentile), h.maxValue) / 100) / 10;
    return {
      seconds,
      sent: this.sent,
      accepted: this.accepted,
      non202: { ...this.non202 },
      requestErrors: this.requestErrors,
      requestErrorCodes: { ...this.requestErrorCodes },
      timeouts: this.timeouts,
      latencyMs: h.totalCount === 0 ? null : { p50: ms(50), p90: ms(90), p99: ms(99), p999: ms(99.9), max: Math.round(h.maxValue / 100) / 10 },
    };
  }
}

export class PacedLoad {
  readonly #options: PacedLoadOptions;
  readonly #agent = new http.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS, timeout: IDLE_SOCKET_MS });
  readonly #target: URL;
  readonly #body: Buffer;
  readonly #inFlight = new Set<Promise<void>>();
  #total = new Tally();
  #interval = new Tally();
  #startedAt = 0;
  #intervalStartedAt = 0;
  #due = 0;
  #timer: NodeJS.Timeout | undefined;
  #stopped = true;

  constructor(options: PacedLoadOptions) {
    this.#options = options;
    this.#target = new URL('/v1/ingest', options.url);
    this.#body = Buffer.from(options.body);
  }

  start(): void {
    this.#startedAt = this.#intervalStartedAt = performance.now();
    this.#stopped = false;
    this.#tick();
  }

  /** The interval since the previous call (or the start), and starts the next one. */
  interval(): PacedInterval {
    const now = performance.now();
    const result = this.#interval.summary((now - this.#intervalStartedAt) / 1000);
    this.#interval = new Tally();
    this.#intervalStartedAt = now;
    return result;
  }

  /** Everything since the start. */
  total(): PacedInterval {
    return this.#total.summary((performance.now() - this.#startedAt) / 1000);
  }

  /** Stops sending, waits for every request sent to be answered or to time out, and closes the connections. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await Promise.all([...this.#inFlight]);
    this.#agent.destroy();
  }

  /** Request i is due at i / rate seconds: sends every request due by now, then sleeps until the next one is. */
  #tick(): void {
    if (this.#stopped) return;
    const dueAt = (i: number): number => this.#startedAt + (i * 1000) / this.#options.requestsPerSecond;
    const now = performance.now();
    while (dueAt(this.#due) <= now) {
      // Timed from its due time, so a late wake-up (a busy event loop) counts against the request.
      const request = this.#send(dueAt(this.#due));
      this.#due++;
      this.#inFlight.add(request);
      void request.finally(() => this.#inFlight.delete(request));
    }
    this.#timer = setTimeout(() => this.#tick(), dueAt(this.#due) - now);
  }

  #send(dueAt: number): Promise<void> {
    for (const t of [this.#total, this.#interval]) t.sent++;
    return new Promise<void>((resolve) => {
      let settled = false;
      const finish = (outcome: { status: number } | { error: Error } | 'timeout'): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const micros = Math.max(1, Math.round((performance.now() - dueAt) * 1000));
        for (const t of [this.#total, this.#interval]) {
          if (outcome === 'timeout') t.timeouts++;
          else if ('error' in outcome) {
            const code = (outcome.error as NodeJS.ErrnoException).code ?? outcome.error.message;
            t.requestErrors++;
            t.requestErrorCodes[code] = (t.requestErrorCodes[code] ?? 0) + 1;
          } else {
            t.histogram.recordValue(micros);
            if (outcome.status === 202) t.accepted++;
            else t.non202[outcome.status] = (t.non202[outcome.status] ?? 0) + 1;
          }
        }
        resolve();
      };
      const req = http.request(this.#target, {
        method: 'POST',
        agent: this.#agent,
        headers: { 'content-type': 'application/json', 'content-length': this.#body.length, 'x-api-key': this.#options.apiKey },
      });
      // From the due time, so a request stuck in the agent's queue times out too.
      const timer = setTimeout(() => {
        finish('timeout');
        req.destroy();
      }, Math.max(0, dueAt + REQUEST_TIMEOUT_MS - performance.now()));
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => finish({ status: res.statusCode ?? 0 }));
        res.on('error', (error) => finish({ error }));
      });
      req.on('error', (error) => finish({ error }));
      req.end(this.#body);
    });
  }
}
