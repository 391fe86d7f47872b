/**
 * Per-key request budgets: at most `points` requests per `durationSeconds` window for each key (the
 * HTTP edge uses the account id). Distributed mode: Redis (redis-rate-limiter.ts), one budget shared
 * by every API process. Embedded mode: process memory (memory-rate-limiter.ts). Both pass
 * test/contract/rate-limiter.contract.test.ts.
 *
 * The window is fixed: it starts with a key's first request and the whole budget comes back when it
 * ends. A refused request still counts, so a client hammering through its 429s does not earn an
 * earlier reset.
 */

export interface RateLimitPolicy {
  readonly points: number;
  readonly durationSeconds: number;
}

export interface RateLimitOutcome {
  /** False when this request is over the key's budget. */
  readonly allowed: boolean;
  /** Requests the key may still make in the current window, after this one (0 when refused). */
  readonly remaining: number;
  /** Milliseconds until the current window ends and the budget is whole again. */
  readonly resetMs: number;
}

/**
 * The longest a check may wait for the store's answer while the process itself is too busy to read it
 * (src/http/rate-limit.ts): the HTTP edge gives up no later, and the Redis client's own command timeout
 * is no shorter, so that it never answers for the edge first.
 */
export const RATE_LIMIT_MAX_WAIT_MS = 2000;

export interface RateLimiter {
  readonly policy: RateLimitPolicy;
  /**
   * Counts one request against `key` and says whether it fits the budget. Rejects when the store
   * cannot answer (within about `timeoutMs` of the Redis implementation): the caller decides what an
   * unknown answer means; a refusal is an outcome, never a rejection.
   */
  consume(key: string): Promise<RateLimitOutcome>;
  /**
   * Counts one request against budget this process already holds for `key` (taken from the shared
   * store ahead of its requests), or returns null when it holds none and `consume` must ask the store.
   */
  consumeHeld?(key: string): RateLimitOutcome | null;
  close(): Promise<void>;
}
