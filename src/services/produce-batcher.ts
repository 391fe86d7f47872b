/**
 * Coalesces concurrent publish calls into shared produce calls (micro-batching). Under load many
 * ingest requests arrive within one turn of the event loop; sending each as its own Kafka request
 * costs a round trip and a broker write apiece, while one request for all of them costs one.
 *
 * Items queued before the next turn of the event loop (setImmediate) go out together, up to
 * `maxWeight` per call (bytes, for messages: Kafka refuses a record batch over the broker's
 * `message.max.bytes`). No timer adds latency: an idle service sends at once, a busy one batches
 * exactly as much as arrived meanwhile. Every caller's promise settles with the call its items went
 * out in, so a 202 still means "durable".
 */
export class ProduceBatcher<T> {
  readonly #send: (items: T[]) => Promise<void>;
  readonly #maxWeight: number;
  readonly #weight: (item: T) => number;
  #queue: Array<{ items: readonly T[]; resolve: () => void; reject: (err: unknown) => void }> = [];
  #scheduled = false;

  constructor(send: (items: T[]) => Promise<void>, options: { maxWeight: number; weight: (item: T) => number }) {
    this.#send = send;
    this.#maxWeight = options.maxWeight;
    this.#weight = options.weight;
  }

  add(items: readonly T[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ items, resolve, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const queue = this.#queue;
    this.#queue = [];
    // One caller's items are never split across calls: its request succeeds or fails as a whole.
    let batch: typeof queue = [];
    let size = 0;
    for (const entry of queue) {
      const weight = entry.items.reduce((sum, item) => sum + this.#weight(item), 0);
      if (size > 0 && size + weight > this.#maxWeight) {
        this.#dispatch(batch);
        batch = [];
        size = 0;
      }
      batch.push(entry);
      size += weight;
    }
    if (batch.length > 0) this.#dispatch(batch);
  }

  #dispatch(batch: Array<{ items: readonly T[]; resolve: () => void; reject: (err: unknown) => void }>): void {
    this.#send(batch.flatMap((entry) => entry.items)).then(
      () => batch.forEach((entry) => entry.resolve()),
      (err: unknown) => batch.forEach((entry) => entry.reject(err)),
    );
  }
}
