import { RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimitOutcome } from '../../ports/rate-limiter.js';

/**
 * `count` requests of one key that rate-limiter-flexible counted at once (`consumed` is its
 * `consume(key, count)`), as if counted one after another: `outcome(i)` is the i-th request's, so
 * exactly the budget passes and each allowed request has its own remaining count. `allowed` is how
 * many of them fit (the first ones).
 *
 * rate-limiter-flexible resolves with a RateLimiterRes when the requests fit, rejects with one when
 * they do not, and rejects with an Error when its store failed. Only the last is a failure here.
 */
export interface CountedRequests {
  readonly allowed: number;
  readonly resetMs: number;
  outcome(index: number): RateLimitOutcome;
}

export async function countedRequests(consumed: Promise<RateLimiterRes>, count: number, points: number): Promise<CountedRequests> {
  let res: RateLimiterRes;
  try {
    res = await consumed;
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    res = rejection;
  }
  // msBeforeNext is -1 for a key without expiry, which these limiters never create; clamp anyway.
  const resetMs = Math.max(0, res.msBeforeNext);
  // consumedPoints counts these requests too. A refusal from the in-process block carries no count:
  // every request of the call is over the budget then.
  const before = res.consumedPoints >= count ? res.consumedPoints - count : points;
  return {
    allowed: Math.min(count, Math.max(0, points - before)),
    resetMs,
    outcome(index) {
      const after = before + index + 1;
      return after <= points ? { allowed: true, remaining: points - after, resetMs } : { allowed: false, remaining: 0, resetMs };
    },
  };
}
