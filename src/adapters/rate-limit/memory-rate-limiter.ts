import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { RateLimitOutcome, RateLimitPolicy, RateLimiter } from './rate-limiter.js';
import { outcomeOf } from './outcome.js';

/**
 * Embedded mode's limiter: budgets in this process's memory, which is right there because embedded
 * mode is one process. Expired windows are dropped by unref'd timers, so nothing to close.
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly policy: RateLimitPolicy;
  readonly #limiter: RateLimiterMemory;

  constructor(policy: RateLimitPolicy) {
    this.policy = { points: policy.points, durationSeconds: policy.durationSeconds };
    this.#limiter = new RateLimiterMemory({ points: policy.points, duration: policy.durationSeconds });
  }

  consume(key: string): Promise<RateLimitOutcome> {
    return outcomeOf(this.#limiter.consume(key));
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
