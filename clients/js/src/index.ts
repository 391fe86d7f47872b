import type { components } from './api-types.js';

/** One event as `POST /v1/ingest` takes it; only `event` is required. */
export type EventInput = components['schemas']['IngestEvent'];
type ErrorBody = components['schemas']['Error'];

export interface ClientOptions {
  /** The service's address, e.g. `https://alerts.example.com`. */
  readonly baseUrl: string;
  /** The app's API key (`svc_live_…`). */
  readonly apiKey: string;
  /** Events per request, 1 to 100 (the service's limit). Default 100. */
  readonly maxBatchSize?: number;
  /** How long an event waits for a full batch before it is sent anyway. Default 1,000 ms. */
  readonly flushIntervalMs?: number;
  /** Most events held while waiting to be sent; past it, new events are dropped (and reported). Default 10,000. */
  readonly maxQueueSize?: number;
  /** Compress request bodies with gzip (where CompressionStream exists: Node 18+, current browsers). Default true. */
  readonly gzip?: boolean;
  /** Retries of one batch after network errors, 408, 409 (still in progress), 429 and 5xx. Default 8. */
  readonly maxRetries?: number;
  /** First retry delay; it doubles each time (with jitter) up to `retryMaxMs`, unless the service says `Retry-After`. Default 200 ms. */
  readonly retryBaseMs?: number;
  readonly retryMaxMs?: number;
  /** Send what is queued when the process is about to exit (Node) or the page is hidden (browsers). Default true. */
  readonly flushOnExit?: boolean;
  /**
   * Told about events that will not be sent: the queue was full, the client was closed, the service
   * refused them, every retry failed, or the batch could not be sent at all.
   */
  readonly onDrop?: (drop: Drop) => void;
  /** The fetch to use; the global one by default. */
  readonly fetch?: typeof fetch;
}

export interface Drop {
  readonly events: readonly EventInput[];
  readonly reason: 'queue_full' | 'closed' | 'refused' | 'retries_exhausted' | 'failed';
  /** What the service or the network said. */
  readonly message: string;
}

/** Statuses worth the same request again later; anything else 4xx is the request's own fault. */
const RETRIABLE = new Set([408, 409, 425, 429, 500, 502, 503, 504]);

/**
 * Sends events to the event alerting service. `track` queues an event and returns at once; the client
 * sends the queue in batches (`maxBatchSize` events, or whatever waited `flushIntervalMs`), one request
 * at a time so that events arrive in the order tracked, each request with an `Idempotency-Key` of its
 * own: a retry after a lost answer is recognised by the service and stores nothing twice. A 202 means
 * the service made the events durable.
 */
export class EventAlertingClient {
  readonly #options: Required<Omit<ClientOptions, 'onDrop' | 'fetch'>> & Pick<ClientOptions, 'onDrop'>;
  readonly #fetch: typeof fetch;
  readonly #queue: EventInput[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #sending: Promise<void> | undefined;
  #dropped = 0;
  #closed = false;
  readonly #onExit = (): void => void this.flush();

  constructor(options: ClientOptions) {
    const maxBatchSize = options.maxBatchSize ?? 100;
    if (!Number.isInteger(maxBatchSize) || maxBatchSize < 1 || maxBatchSize > 100) throw new RangeError('maxBatchSize must be a whole number from 1 to 100');
    this.#options = {
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      apiKey: options.apiKey,
      maxBatchSize,
      flushIntervalMs: options.flushIntervalMs ?? 1000,
      maxQueueSize: options.maxQueueSize ?? 10_000,
      gzip: (options.gzip ?? true) && typeof CompressionStream === 'function',
      maxRetries: options.maxRetries ?? 8,
      retryBaseMs: options.retryBaseMs ?? 200,
      retryMaxMs: options.retryMaxMs ?? 30_000,
      flushOnExit: options.flushOnExit ?? true,
      onDrop: options.onDrop,
    };
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    if (this.#options.flushOnExit) onExit(this.#onExit, 'add');
  }

  /** Events dropped so far (see `onDrop`). */
  get dropped(): number {
    return this.#dropped;
  }

  /** Events tracked and not yet accepted by the service or dropped. */
  get pending(): number {
    return this.#queue.length;
  }

  /**
   * Queues one event, or several in order; false when any of them was dropped because the queue was
   * full (or the client closed).
   */
  track(events: EventInput | readonly EventInput[]): boolean {
    const list: readonly EventInput[] = Array.isArray(events) ? events : [events as EventInput];
    const room = this.#closed ? 0 : Math.max(0, this.#options.maxQueueSize - this.#queue.length);
    const refused = list.slice(room);
    if (refused.length > 0) {
      if (this.#closed) this.#drop(refused, 'closed', 'the client is closed');
      else this.#drop(refused, 'queue_full', `the queue holds ${this.#options.maxQueueSize} events`);
    }
    const kept = list.slice(0, room);
    if (kept.length === 0) return false;
    this.#queue.push(...kept);
    if (this.#queue.length >= this.#options.maxBatchSize) void this.#send();
    else this.#timer ??= unref(setTimeout(() => void this.#send(), this.#options.flushIntervalMs));
    return refused.length === 0;
  }

  /** Sends everything queued; resolves once each batch was accepted or dropped. */
  async flush(): Promise<void> {
    while (this.#queue.length > 0 || this.#sending) await this.#send();
  }

  /** Flushes, then refuses further events. */
  async close(): Promise<void> {
    await this.flush();
    this.#closed = true;
    if (this.#options.flushOnExit) onExit(this.#onExit, 'remove');
  }

  /** The sending loop: one request at a time, until the queue is empty. */
  #send(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#sending ??= (async () => {
      try {
        while (this.#queue.length > 0) {
          const batch = this.#queue.slice(0, this.#options.maxBatchSize);
          // A batch that cannot even be encoded is given up, not tried forever.
          await this.#deliver(batch).catch((err: unknown) => this.#drop(batch, 'failed', err instanceof Error ? err.message : String(err)));
          this.#queue.splice(0, batch.length);
        }
      } finally {
        this.#sending = undefined;
      }
    })();
    return this.#sending;
  }

  /** One batch, retried under one Idempotency-Key until accepted, refused, or out of retries. */
  async #deliver(batch: EventInput[]): Promise<void> {
    const key = crypto.randomUUID();
    const body = await this.#encode(JSON.stringify(batch));
    let message = '';
    for (let attempt = 0; attempt <= this.#options.maxRetries; attempt++) {
      let retryAfterMs: number | undefined;
      try {
        const res = await this.#fetch(`${this.#options.baseUrl}/v1/ingest`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-api-key': this.#options.apiKey,
            'idempotency-key': key,
            ...(this.#options.gzip ? { 'content-encoding': 'gzip' } : {}),
          },
          body,
        });
        if (res.status === 202) {
          // Read to the end, so that the connection can serve the next request.
          await res.arrayBuffer();
          return;
        }
        message = `${res.status}: ${await errorMessage(res)}`;
        if (!RETRIABLE.has(res.status)) {
          this.#drop(batch, 'refused', message);
          return;
        }
        retryAfterMs = retryAfter(res.headers.get('retry-after'));
      } catch (err) {
        message = err instanceof Error ? err.message : String(err);
      }
      if (attempt === this.#options.maxRetries) break;
      const backoff = Math.min(this.#options.retryMaxMs, this.#options.retryBaseMs * 2 ** attempt) * (0.5 + Math.random() / 2);
      await delay(retryAfterMs ?? backoff);
    }
    this.#drop(batch, 'retries_exhausted', message);
  }

  async #encode(json: string): Promise<string | ArrayBuffer> {
    if (!this.#options.gzip) return json;
    return new Response(new Blob([json]).stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer();
  }

  #drop(events: readonly EventInput[], reason: Drop['reason'], message: string): void {
    this.#dropped += events.length;
    this.#options.onDrop?.({ events, reason, message });
  }
}

async function errorMessage(res: Response): Promise<string> {
  try {
    return ((await res.json()) as ErrorBody).message;
  } catch {
    return res.statusText;
  }
}

/** `Retry-After` in seconds (or an HTTP date) as milliseconds; undefined when absent or unreadable. */
function retryAfter(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A timer that does not keep a Node process alive (flush on exit sends what it waited for). */
function unref<T>(timer: T): T {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}

/**
 * Node: `beforeExit`, which comes once the event loop is empty and lets the flush's requests run (a
 * process ended by `process.exit()` or a signal cannot be waited for). Browsers: `pagehide`.
 */
function onExit(handler: () => void, action: 'add' | 'remove'): void {
  const node = (globalThis as { process?: { on?: (event: string, handler: () => void) => void; off?: (event: string, handler: () => void) => void } }).process;
  if (node?.on && node.off) {
    if (action === 'add') node.on('beforeExit', handler);
    else node.off('beforeExit', handler);
    return;
  }
  const page = globalThis as { addEventListener?: (event: string, handler: () => void) => void; removeEventListener?: (event: string, handler: () => void) => void };
  if (action === 'add') page.addEventListener?.('pagehide', handler);
  else page.removeEventListener?.('pagehide', handler);
}
