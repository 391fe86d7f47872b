import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { RateLimitOutcome, RateLimitPolicy, RateLimiter } from '../../ports/rate-limiter.js';
import { outcomesOf } from './outcome.js';

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
    return outcomesOf(this.#limiter.consume(key), 1, this.policy.points).then(([outcome]) => outcome!);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
