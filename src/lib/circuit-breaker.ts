/**
 * Fails fast while a dependency is known to be down. A failure opens the breaker for `cooldownMs`:
 * calls then fail at once instead of each waiting out the dependency's own timeout (an ingest client
 * gets its 503 in microseconds, not seconds, and the process does not pile up waiting requests).
 * After the cooldown one call goes through as a probe, the others still failing fast; the probe's
 * success closes the breaker, its failure opens it again. Closed, calls run side by side as usual.
 */
export class CircuitBreaker {
  readonly #cooldownMs: number;
  readonly #now: () => number;
  #state: 'closed' | 'open' | 'probing' = 'closed';
  #openUntil = 0;
  #lastError: unknown;

  constructor(options: { cooldownMs: number; now?: () => number }) {
    this.#cooldownMs = options.cooldownMs;
    this.#now = options.now ?? Date.now;
  }

  get state(): 'closed' | 'open' | 'probing' {
    return this.#state;
  }

  /**
   * True while a call would be refused: open within the cooldown, or a probe out. A caller that queues
   * its work before calling `run` (a batcher) asks first, so as not to wait behind a probe only to be refused.
   */
  get refusing(): boolean {
    return this.#state === 'probing' || (this.#state === 'open' && this.#now() < this.#openUntil);
  }

  /** The error a refused call gets. */
  refusal(): CircuitOpenError {
    return new CircuitOpenError(this.#lastError);
  }

  async run<T>(call: () => Promise<T>): Promise<T> {
    if (this.refusing) throw this.refusal();
    if (this.#state === 'open') this.#state = 'probing';
    try {
      const result = await call();
      this.#state = 'closed';
      return result;
    } catch (err) {
      this.#lastError = err;
      this.#state = 'open';
      this.#openUntil = this.#now() + this.#cooldownMs;
      throw err;
    }
  }
}

export class CircuitOpenError extends Error {
  override readonly name = 'CircuitOpenError';
  constructor(cause: unknown) {
    super(`failing fast: the last attempt failed (${cause instanceof Error ? cause.message : String(cause)})`, { cause });
  }
}
