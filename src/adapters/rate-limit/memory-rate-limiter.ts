import type { RateLimitOutcome, RateLimitPolicy, RateLimiter } from '../../ports/rate-limiter.js';

/** How often windows that ended are dropped. */
const SWEEP_INTERVAL_MS = 60_000;

/**
 * Embedded mode's limiter: budgets in this process's memory, which is right there because embedded
 * mode is one process. Every budget is held here, so every request is answered at once
 * (`consumeHeld`), without a promise, a timer or a store to wait for. Fixed windows as in Redis: a
 * key's window starts with its first request, and a refused request still counts.
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly policy: RateLimitPolicy;
  readonly #windows = new Map<string, { counted: number; endsAt: number }>();
  readonly #sweep: NodeJS.Timeout;

  constructor(policy: RateLimitPolicy) {
    this.policy = { points: policy.points, durationSeconds: policy.durationSeconds };
    this.#sweep = setInterval(() => this.#dropEnded(Date.now()), SWEEP_INTERVAL_MS);
    // The sweep must never keep a process alive that has nothing else to do.
    this.#sweep.unref();
  }

  consume(key: string): Promise<RateLimitOutcome> {
    return Promise.resolve(this.consumeHeld(key));
  }

  consumeHeld(key: string): RateLimitOutcome {
    const now = Date.now();
    let window = this.#windows.get(key);
    if (!window || window.endsAt <= now) this.#windows.set(key, (window = { counted: 0, endsAt: now + this.policy.durationSeconds * 1000 }));
    window.counted += 1;
    const resetMs = window.endsAt - now;
    return window.counted <= this.policy.points ? { allowed: true, remaining: this.policy.points - window.counted, resetMs } : { allowed: false, remaining: 0, resetMs };
  }

  close(): Promise<void> {
    clearInterval(this.#sweep);
    return Promise.resolve();
  }

  #dropEnded(now: number): void {
    for (const [key, window] of this.#windows) if (window.endsAt <= now) this.#windows.delete(key);
  }
}
