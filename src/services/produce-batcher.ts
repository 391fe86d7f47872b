/**
 * Coalesces concurrent publish calls into shared produce calls (micro-batching). Under load many
 * ingest requests arrive close together; sending each as its own Kafka request costs a round trip and
 * a broker write apiece, while one request for all of them costs one.
 *
 * At most `maxInFlight` calls are outstanding (default 1). Items that arrive while they are form the
 * next call, sent as soon as one returns; when none is outstanding, what was queued within one turn of
 * the event loop (setImmediate) goes out at once. No timer adds latency: an idle service sends at
 * once, a busy one batches exactly as much as arrived during the previous call. One call in flight
 * suits kafkajs: its idempotent producer sends one request per broker at a time anyway, so a second
 * call would only wait in its lock, holding items that could have joined the next call.
 *
 * A call carries at most `maxWeight` (bytes, for messages: Kafka refuses a record batch over the
 * broker's `message.max.bytes`), except that one caller's items are never split: its request succeeds
 * or fails as a whole. Every caller's promise settles with the call its items went out in, so a 202
 * still means "durable".
 */
export class ProduceBatcher<T> {
  readonly #send: (items: T[]) => Promise<void>;
  readonly #maxWeight: number;
  readonly #maxInFlight: number;
  readonly #weight: (item: T) => number;
  #queue: Entry<T>[] = [];
  #inFlight = 0;
  #scheduled = false;

  constructor(send: (items: T[]) => Promise<void>, options: { maxWeight: number; weight: (item: T) => number; maxInFlight?: number }) {
    this.#send = send;
    this.#maxWeight = options.maxWeight;
    this.#weight = options.weight;
    this.#maxInFlight = options.maxInFlight ?? 1;
  }

  add(items: readonly T[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ items, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#queue.length === 0 || this.#inFlight >= this.#maxInFlight) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      this.#flush();
    });
  }

  #flush(): void {
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

interface Entry<T> {
  readonly items: readonly T[];
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}
