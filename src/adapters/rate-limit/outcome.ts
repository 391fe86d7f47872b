import { RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimitOutcome } from './rate-limiter.js';

/**
 * rate-limiter-flexible resolves with a RateLimiterRes when the request fits, rejects with one when
 * it does not, and rejects with an Error when its store failed. Only the last is a failure here.
 */
export async function outcomeOf(consumed: Promise<RateLimiterRes>): Promise<RateLimitOutcome> {
  try {
    return fromRes(await consumed, true);
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return fromRes(rejection, false);
    throw rejection;
  }
}

function fromRes(res: RateLimiterRes, allowed: boolean): RateLimitOutcome {
  // msBeforeNext is -1 for a key without expiry, which these limiters never create; clamp anyway.
  return { allowed, remaining: allowed ? Math.max(0, res.remainingPoints) : 0, resetMs: Math.max(0, res.msBeforeNext) };
}
