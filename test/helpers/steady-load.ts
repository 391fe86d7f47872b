import http from 'node:http';

/**
 * A paced ingest load for fault tests: batches of events sent to one or more API processes (in turn)
 * at a steady rate, every answer recorded (status, event ids, time taken).
 *
 * Pacing is open loop: request k goes out at start + k × interval whatever became of the earlier
 * ones, so slow answers do not slow the load down, up to `maxInFlight` requests waiting at once.
 * When that many are held up and the schedule falls more than `maxLagMs` behind, the missed slots
 * are skipped (and counted) rather than sent in one burst: the offered rate never exceeds the target,
 * and `skippedSlots` says when it fell short.
 *
 * Each request goes on a fresh connection. On a kept-alive one, a request sent just as the server
 * closes the connection for idleness fails with ECONNRESET before the service saw it: a race of the
 * client, frequent when the machine is loaded, which would blur what the service answered.
 */

export interface SentRequest {
  /** Index of the request in the run (its slot in the schedule). */
  readonly seq: number;
  /** Which target (API process) it went to. */
  readonly target: number;
  /** Epoch milliseconds when it was sent and when its answer (or failure) arrived. */
  readonly sentAt: number;
  readonly endedAt: number;
  /** HTTP status, or 0 when no answer came (network error, or the client's own time bound). */
  readonly status: number;
  /** With a 202: the events' ids, in request order. */
  readonly ids: readonly string[];
  /** Positions within the batch of the events the rule under test matches. */
  readonly matching: readonly number[];
  readonly retryAfter: string | null;
  /** For status 0: what went wrong. */
  readonly error?: string;
}

export interface SteadyLoadOptions {
  readonly targets: readonly string[];
  readonly apiKey: string;
  readonly eventsPerSecond: number;
  readonly batchSize: number;
  readonly maxInFlight: number;
  /** The events of request `seq`, and which of their positions the rule under test matches. */
  readonly batch: (seq: number) => { events: unknown[]; matching: number[] };
  /** A request that has no answer after this long is abandoned and recorded with status 0. */
  readonly requestTimeoutMs: number;
  readonly maxLagMs?: number;
}

export interface SteadyLoad {
  /** Every answer so far, in the order they arrived. */
  readonly sent: readonly SentRequest[];
  readonly startedAt: number;
  /** Stops sending new requests; resolves once every request in flight has its answer. */
  stop(): Promise<LoadSummary>;
}

export interface LoadSummary {
  readonly sent: readonly SentRequest[];
  readonly startedAt: number;
  /** When the last request went out. */
  readonly lastSentAt: number;
  /** Slots skipped because `maxInFlight` requests were held up (see the module comment). */
  readonly skippedSlots: number;
}

export function startSteadyLoad(options: SteadyLoadOptions): SteadyLoad {
  const intervalMs = (1000 * options.batchSize) / options.eventsPerSecond;
  const maxLagMs = options.maxLagMs ?? 1000;
  const startedAt = Date.now();
  const sent: SentRequest[] = [];
  const inFlight = new Set<Promise<void>>();
  let lastSentAt = startedAt;
  let skippedSlots = 0;
  let stopping = false;
  let wake: (() => void) | undefined;
  const pause = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const send = async (seq: number): Promise<void> => {
    const target = seq % options.targets.length;
    const { events, matching } = options.batch(seq);
    const sentAt = Date.now();
    lastSentAt = sentAt;
    try {
      const res = await post(`${options.targets[target]}/v1/ingest`, JSON.stringify(events), { 'x-api-key': options.apiKey }, options.requestTimeoutMs);
      const ids = res.status === 202 ? (JSON.parse(res.body) as { events: Array<{ id: string }> }).events.map((e) => e.id) : [];
      sent.push({ seq, target, sentAt, endedAt: Date.now(), status: res.status, ids, matching, retryAfter: res.retryAfter });
    } catch (err) {
      const error = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
      sent.push({ seq, target, sentAt, endedAt: Date.now(), status: 0, ids: [], matching, retryAfter: null, error });
    }
  };

  const pace = async (): Promise<void> => {
    let seq = 0;
    while (!stopping) {
      const wait = startedAt + seq * intervalMs - Date.now();
      if (wait > 0) await pause(wait);
      while (!stopping && inFlight.size >= options.maxInFlight) await Promise.race(inFlight);
      if (stopping) break;
      const oldestOnTime = Math.ceil((Date.now() - maxLagMs - startedAt) / intervalMs);
      if (seq < oldestOnTime) {
        skippedSlots += oldestOnTime - seq;
        seq = oldestOnTime;
      }
      const request: Promise<void> = send(seq).finally(() => inFlight.delete(request));
      inFlight.add(request);
      seq += 1;
    }
    await Promise.all(inFlight);
  };

  const running = pace();
  return {
    sent,
    startedAt,
    async stop() {
      stopping = true;
      wake?.();
      await running;
      return { sent, startedAt, lastSentAt, skippedSlots };
    },
  };
}

/** One JSON POST on its own connection (no agent, so no keep-alive), bounded by `timeoutMs`. */
function post(url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<{ status: number; body: string; retryAfter: string | null }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent: false,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        signal: AbortSignal.timeout(timeoutMs),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), retryAfter: res.headers['retry-after'] ?? null }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
