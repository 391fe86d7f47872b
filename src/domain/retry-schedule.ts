/**
 * The delivery retry schedule: when a failed alert delivery is tried again, and when it is given up
 * (dead letter). Pure; the delivery worker stores the attempt count and the next due time.
 *
 * Shape: eight attempts, roughly tripling gaps, at most 1 h 52 min (about 1 h 22 min on average)
 * from the first attempt to the last (docs/decisions/0008-rule-condition-semantics.md). Svix and
 * Standard Webhooks publish a schedule of the same shape that runs for a day; an alert is about
 * something happening now, so ours gives up within two hours and leaves the rest to the dead-letter
 * list, where an operator can see it.
 *
 * Jitter: a stateless form of decorrelated jitter. The delay before attempt n is drawn uniformly
 * between the nominal delay of attempt n - 1 and that of attempt n (10–30 s before the third, 30–90 s
 * before the fourth …). Like decorrelated jitter it spreads a burst of deliveries that failed
 * together (one receiver outage) over the whole gap, not a narrow band, and keeps each retry later
 * than the previous gap; unlike it, it needs no previous random delay stored per delivery. Full
 * jitter (0 … nominal) was rejected: it can retry a receiver that is down almost at once at every
 * step, and its nominal numbers would be only upper bounds an operator cannot plan with.
 */

/** Nominal delay before each attempt, measured from the previous attempt; the first is immediate. */
export const RETRY_SCHEDULE_MS: readonly number[] = Object.freeze([
  0, // attempt 1: when the rule triggers
  10_000, // 2: a blip (connection reset, deploy of the receiver)
  30_000, // 3
  90_000, // 4
  5 * 60_000, // 5
  15 * 60_000, // 6
  30 * 60_000, // 7
  60 * 60_000, // 8: the last; after it the delivery is dead-lettered
]);

export const MAX_DELIVERY_ATTEMPTS = RETRY_SCHEDULE_MS.length;

export interface RetryDelayOptions {
  /**
   * The receiver's `Retry-After` in milliseconds (already parsed from seconds or an HTTP date), or
   * null when it sent none. It lengthens a retry, never shortens it, and is capped at the longest
   * scheduled delay so a receiver cannot park a delivery for days.
   */
  readonly retryAfterMs: number | null;
  /** A number in [0, 1); `Math.random` unless a test passes a fixed one. */
  readonly random?: () => number;
}

export interface RetrySchedule {
  /** The nominal delays, one per attempt, as given. */
  readonly delaysMs: readonly number[];
  readonly maxAttempts: number;
  /** The longest nominal delay; also the cap on a `Retry-After`. */
  readonly maxDelayMs: number;
  /**
   * Milliseconds to wait before the next attempt, after `attempt` attempts (1-based: 1 after the
   * first one failed) have been made; null when none is left and the delivery is dead-lettered.
   */
  nextRetryDelayMs(attempt: number, options: RetryDelayOptions): number | null;
}

/**
 * A schedule from nominal delays (same meaning as `RETRY_SCHEDULE_MS`). Tests pass short ones;
 * production uses the default. Refuses a schedule that is empty, negative, non-integer or shrinking,
 * because the jitter window of each step is [previous, current].
 */
export function createRetrySchedule(baseDelaysMs: readonly number[]): RetrySchedule {
  if (baseDelaysMs.length === 0) throw new RangeError('a retry schedule needs at least one attempt');
  baseDelaysMs.forEach((delay, i) => {
    if (!Number.isSafeInteger(delay) || delay < 0) throw new RangeError(`retry delay ${i} must be a non-negative integer of milliseconds`);
    if (i > 0 && delay < baseDelaysMs[i - 1]!) throw new RangeError(`retry delay ${i} must not be shorter than the one before it`);
  });
  const delaysMs = Object.freeze([...baseDelaysMs]);
  const maxDelayMs = delaysMs[delaysMs.length - 1]!;

  function nextRetryDelayMs(attempt: number, options: RetryDelayOptions): number | null {
    if (!Number.isSafeInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be a positive integer, got ${attempt}`);
    if (attempt >= delaysMs.length) return null;
    const lower = delaysMs[attempt - 1]!;
    const upper = delaysMs[attempt]!;
    // Clamped: a test double (or a broken generator) returning 1 or more must not escape the window.
    const fraction = Math.min(Math.max((options.random ?? Math.random)(), 0), 1);
    const backoff = Math.min(lower + Math.floor(fraction * (upper - lower)), upper);
    const { retryAfterMs } = options;
    // A negative, NaN or infinite value is a parse result no receiver meant; it is ignored.
    if (retryAfterMs === null || !Number.isFinite(retryAfterMs) || retryAfterMs <= backoff) return backoff;
    return Math.min(Math.ceil(retryAfterMs), maxDelayMs);
  }

  return { delaysMs, maxAttempts: delaysMs.length, maxDelayMs, nextRetryDelayMs };
}

const defaultSchedule = createRetrySchedule(RETRY_SCHEDULE_MS);

/** The production schedule's `nextRetryDelayMs`. */
export function nextRetryDelayMs(attempt: number, options: RetryDelayOptions): number | null {
  return defaultSchedule.nextRetryDelayMs(attempt, options);
}
