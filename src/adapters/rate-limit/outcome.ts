import { RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimitOutcome } from '../../ports/rate-limiter.js';

/**
 * The outcomes of `count` requests of one key that rate-limiter-flexible counted at once (`consumed`
 * is its `consume(key, count)`), in the order they were counted: as if counted one after another, so
 * exactly the budget passes and each allowed request has its own remaining count.
 *
 * rate-limiter-flexible resolves with a RateLimiterRes when the requests fit, rejects with one when
 * they do not, and rejects with an Error when its store failed. Only the last is a failure here.
 */
export async function outcomesOf(consumed: Promise<RateLimiterRes>, count: number, points: number): Promise<RateLimitOutcome[]> {
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
  return Array.from({ length: count }, (_, i) => {
    const after = before + i + 1;
    return after <= points ? { allowed: true, remaining: points - after, resetMs } : { allowed: false, remaining: 0, resetMs };
  });
}
