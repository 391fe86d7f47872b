import { AsyncResource } from 'node:async_hooks';

/**
 * Coalesces concurrent publish calls into shared produce calls (micro-batching). Under load many
 * ingest requests arrive close together; sending each as its own Kafka request costs a round trip and
 * a broker write apiece, while one request for all of them costs one.
 *
 * At most `maxInFlight` calls are outstanding (default 1). Items that arrive while that many are form
 * the next call, sent as soon as one returns; otherwise what was queued within one turn of the event
 * loop (setImmediate) goes out at once. No timer adds latency: an idle service sends at once, a busy
 * one batches exactly as much as arrived while it could not send. A second call in flight pays only
 * when the client below sends it at once (not when it queues it behind the first, as kafkajs does an
 * idempotent producer's requests to one broker).
 *
 * A call carries at most `maxWeight` (bytes, for messages: Kafka refuses a record batch over the
 * broker's `message.max.bytes`), except that one caller's items are never split: its request succeeds
 * or fails as a whole. Every caller's promise settles with the call its items went out in, so a 202
 * still means "durable".
 *
 * Under load, a call may wait a little for more (`linger`): once the previous call carried at least
 * `busyCallers` callers, the next waits up to `ms` for as many callers as the previous one carried
 * before it goes. Callers come back soon after their answers under load (a client with its next
 * request), and a call that waits for them carries more of them: fewer, larger calls cost less per
 * event at the edge and at the broker. A quiet service never waits: its calls carry a caller or two.
 *
 * `stop()` (at shutdown) sends what is queued at once and waits for every outstanding call, so each
 * caller already in still gets its real answer; a caller arriving after it is refused.
 */
export class ProduceBatcher<T> {
  readonly #send: (items: T[]) => Promise<void>;
  readonly #maxWeight: number;
  readonly #maxInFlight: number;
  readonly #weight: (item: T) => number;
  readonly #linger: Linger | undefined;
  #queue: Entry<T>[] = [];
  /** Callers in the last call sent: a call this large means callers are many (see linger). */
  #lastCallCallers = 0;
  #lingerTimer: NodeJS.Timeout | undefined;
  #inFlight = 0;
  #scheduled = false;
  #stopping = false;
  /** Resolved once the queue is empty and no call is outstanding (see stop). */
  #drained: (() => void) | undefined;
  /**
   * A call carries many callers' items, so it belongs to none of them: it runs in the context the
   * batcher was built in, not the first caller's (whose request id would otherwise tag the log lines
   * of the shared call and of anything it starts, such as a producer's connection).
   */
  readonly #flushOutsideCallers = AsyncResource.bind(() => {
    this.#scheduled = false;
    if (this.#shouldLinger()) {
      this.#lingerTimer = setTimeout(this.#lingerOver, this.#linger!.ms);
      return;
    }
    this.#flush();
  });
  /** The wait is over: #flush forgets the timer, as it does when a call goes early. */
  readonly #lingerOver = (): void => this.#flush();

  constructor(
    send: (items: T[]) => Promise<void>,
    options: { maxWeight: number; weight: (item: T) => number; maxInFlight?: number; linger?: Linger },
  ) {
    this.#send = send;
    this.#maxWeight = options.maxWeight;
    this.#weight = options.weight;
    this.#maxInFlight = options.maxInFlight ?? 1;
    this.#linger = options.linger;
  }

  add(items: readonly T[]): Promise<void> {
    if (this.#stopping) return Promise.reject(new Error('the produce batcher is stopped'));
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ items, resolve, reject });
      this.#schedule();
    });
  }

  /**
   * Sends everything queued without waiting for the next turn, then resolves once every call has
   * settled (and so every caller has its answer). Safe to call more than once.
   */
  async stop(): Promise<void> {
    this.#stopping = true;
    if (this.#queue.length === 0 && this.#inFlight === 0) return;
    const drained = new Promise<void>((resolve) => {
      const previous = this.#drained;
      this.#drained = () => {
        previous?.();
        resolve();
      };
    });
    this.#flush();
    await drained;
  }

  #schedule(): void {
    if (this.#queue.length === 0 && this.#inFlight === 0) {
      this.#drained?.();
      this.#drained = undefined;
      return;
    }
    // A lingering call has what it waited for: it goes in this turn's check phase, with whoever else arrives in the turn.
    if (this.#lingerTimer && this.#queue.length >= this.#lastCallCallers) this.#stopLingering();
    if (this.#scheduled || this.#lingerTimer || this.#queue.length === 0 || this.#inFlight >= this.#maxInFlight) return;
    // Stopping: no turn to wait for, nobody else is coming.
    if (this.#stopping) {
      this.#flush();
      return;
    }
    this.#scheduled = true;
    setImmediate(this.#flushOutsideCallers);
  }

  #shouldLinger(): boolean {
    const linger = this.#linger;
    return linger !== undefined && !this.#stopping && this.#inFlight < this.#maxInFlight && this.#lastCallCallers >= linger.busyCallers && this.#queue.length < this.#lastCallCallers;
  }

  #stopLingering(): void {
    clearTimeout(this.#lingerTimer);
    this.#lingerTimer = undefined;
  }

  #flush(): void {
    if (this.#lingerTimer) this.#stopLingering();
    while (this.#queue.length > 0 && this.#inFlight < this.#maxInFlight) {
      let size = 0;
      let count = 0;
      for (const entry of this.#queue) {
        const weight = entry.items.reduce((sum, item) => sum + this.#weight(item), 0);
        if (count > 0 && size + weight > this.#maxWeight) break;
        size += weight;
        count += 1;
      }
      this.#dispatch(this.#queue.splice(0, count));
    }
  }

  #dispatch(batch: Entry<T>[]): void {
    this.#inFlight += 1;
    this.#lastCallCallers = batch.length;
    this.#send(batch.flatMap((entry) => entry.items))
      .then(
        () => batch.forEach((entry) => entry.resolve()),
        (err: unknown) => batch.forEach((entry) => entry.reject(err)),
      )
      .finally(() => {
        this.#inFlight -= 1;
        // What arrived meanwhile goes next, after one turn so that callers woken by this call's
        // answer and already queued work can still join it.
        this.#schedule();
      });
  }
}

/** When a call waits for more callers (see ProduceBatcher). */
export interface Linger {
  /** The longest a call waits. */
  readonly ms: number;
  /** It waits only after a call that carried at least this many callers. */
  readonly busyCallers: number;
}

interface Entry<T> {
  readonly items: readonly T[];
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}
