import { Counter, Gauge, type Registry } from 'prom-client';
import { RATE_LIMIT_MAX_WAIT_MS, type RateLimitOutcome, type RateLimitPolicy, type RateLimiter } from '../ports/rate-limiter.js';
import { DomainError } from '../domain/errors.js';
import type { Logger } from '../observability/logger.js';
import { CircuitBreaker } from '../lib/circuit-breaker.js';
import { withLoopDeadline } from '../lib/deadline.js';
import type { Awaitable } from '../lib/awaitable.js';

/**
 * The per-account request budget at the HTTP edge (`RATE_LIMIT_POINTS` requests per
 * `RATE_LIMIT_DURATION_S`, shared by every API process; 429 once spent). mount-routes.ts calls
 * `admit` once per request, after authentication, so every request of an authenticated principal
 * counts against its account: a client secret's account, or the account of the app an API key belongs
 * to. Unauthenticated requests (401) count against nothing: there is no account to charge, and
 * charging the account a presented credential claims would let anyone spend another's budget.
 *
 * Headers follow draft-ietf-httpapi-ratelimit-headers-11 (May 2026; same fields as -10): one policy,
 * named "default", in `RateLimit-Policy: "default";q=<points>;w=<seconds>`, and the current service
 * limit in `RateLimit: "default";r=<remaining>;t=<seconds until the window ends>`. A 429 also has
 * `Retry-After`, equal to `t` (the draft: Retry-After must not end before the effective window).
 *
 * Failing open: the budget lives in Redis in distributed mode, and an outage of the limiter's store
 * must not take the API down with it. A check that fails, or gets no answer within `timeoutMs`, lets
 * the request through unchecked. Only the store's silence counts: time this process was too busy to
 * read an answer (a burst of requests keeps its event loop busy) extends the wait, up to `maxWaitMs`
 * (withLoopDeadline), so a burst never switches the limit off. The first such failure opens a circuit
 * breaker: for `probeIntervalMs` no request waits on Redis at all, then one request probes it. Every request let through unchecked
 * adds one to `eas_rate_limiter_fail_open_total`; `eas_rate_limiter_failing_open` is 1 meanwhile; one
 * warn line says when failing open starts and one info line when limits are enforced again. While
 * failing open a response carries `RateLimit-Policy` but no `RateLimit`: the remaining budget is not
 * known, and the draft lets a server leave the field out rather than guess.
 */

export const RATE_LIMIT_POLICY_NAME = 'default';

/** A Redis round trip on a healthy network is about a millisecond; a quarter second means it is not answering. */
const DEFAULT_TIMEOUT_MS = 250;
/** How long requests skip the limiter's store after a failure before one request tries it again. */
const DEFAULT_PROBE_INTERVAL_MS = 3000;

export interface AccountRateLimitOptions {
  readonly limiter: RateLimiter;
  /** The process's registry; the limiter's three metrics are registered on it. */
  readonly metrics: Registry;
  readonly logger: Pick<Logger, 'warn' | 'info'>;
  readonly timeoutMs?: number;
  readonly maxWaitMs?: number;
  readonly probeIntervalMs?: number;
  /** Clock of the circuit breaker (tests). */
  readonly now?: () => number;
}

export class AccountRateLimit {
  readonly #limiter: RateLimiter;
  readonly #logger: Pick<Logger, 'warn' | 'info'>;
  readonly #timeoutMs: number;
  readonly #maxWaitMs: number;
  readonly #breaker: CircuitBreaker;
  readonly #metrics: RateLimitMetrics;
  readonly #policyHeader: string;
  /** Numbers each check, so that only a check started after failing open began can end it. */
  #checks = 0;
  /** The number of the check that started failing open, or null while limits are enforced. */
  #failingOpenSince: number | null = null;

  constructor(options: AccountRateLimitOptions) {
    this.#limiter = options.limiter;
    this.#logger = options.logger;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#maxWaitMs = Math.max(this.#timeoutMs, options.maxWaitMs ?? RATE_LIMIT_MAX_WAIT_MS);
    this.#breaker = new CircuitBreaker({ cooldownMs: options.probeIntervalMs ?? DEFAULT_PROBE_INTERVAL_MS, ...(options.now ? { now: options.now } : {}) });
    this.#metrics = rateLimitMetrics(options.metrics);
    this.#policyHeader = policyHeader(options.limiter.policy);
  }

  /**
   * Counts one request of the account: the headers the response carries, or the `rate_limited`
   * DomainError (with those headers and the retry delay) when the budget is spent. From budget this
   * process holds the answer comes at once, without a promise, and so does the error (thrown); a
   * check that asks the store resolves or rejects.
   */
  admit(accountId: string): Awaitable<Readonly<Record<string, string>>> {
    const held = this.#limiter.consumeHeld?.(accountId);
    if (held) return this.#answer(held);
    return this.#check(accountId).then(this.#answer);
  }

  readonly #answer = (outcome: RateLimitOutcome | null): Readonly<Record<string, string>> => {
    if (!outcome) return { 'RateLimit-Policy': this.#policyHeader };
    const resetSeconds = Math.ceil(outcome.resetMs / 1000);
    const headers = { 'RateLimit-Policy': this.#policyHeader, RateLimit: `"${RATE_LIMIT_POLICY_NAME}";r=${outcome.remaining};t=${resetSeconds}` };
    if (outcome.allowed) return headers;
    this.#metrics.limited.inc();
    const { points, durationSeconds } = this.#limiter.policy;
    throw new DomainError('rate_limited', `Rate limit exceeded: at most ${points} requests per ${durationSeconds} s per account`, {
      retryAfterSeconds: Math.max(1, resetSeconds),
      headers,
    });
  };

  /** The limiter's answer, or null when the request is let through unchecked. */
  async #check(accountId: string): Promise<RateLimitOutcome | null> {
    const check = ++this.#checks;
    try {
      const outcome = await this.#breaker.run(() =>
        withLoopDeadline(this.#limiter.consume(accountId), this.#timeoutMs, this.#maxWaitMs, `the rate limiter did not answer within ${this.#timeoutMs} ms`),
      );
      if (this.#failingOpenSince !== null && check > this.#failingOpenSince) {
        this.#failingOpenSince = null;
        this.#metrics.failingOpen.set(0);
        this.#logger.info('rate limiter answers again: per-account rate limits are enforced');
      }
      return outcome;
    } catch (err) {
      if (this.#failingOpenSince === null) {
        this.#failingOpenSince = this.#checks;
        this.#metrics.failingOpen.set(1);
        this.#logger.warn({ err }, 'rate limiter unavailable: failing open, requests are served without rate limits until it answers again');
      }
      this.#metrics.failOpen.inc();
      return null;
    }
  }
}

function policyHeader(policy: RateLimitPolicy): string {
  return `"${RATE_LIMIT_POLICY_NAME}";q=${policy.points};w=${policy.durationSeconds}`;
}

interface RateLimitMetrics {
  readonly limited: Counter;
  readonly failOpen: Counter;
  readonly failingOpen: Gauge;
}

/** Registered once per registry (docs/metrics.md); a second limiter on the same registry shares them. */
function rateLimitMetrics(registry: Registry): RateLimitMetrics {
  const existing = <T>(name: string): T | undefined => registry.getSingleMetric(name) as T | undefined;
  const failingOpen =
    existing<Gauge>('eas_rate_limiter_failing_open') ??
    new Gauge({ name: 'eas_rate_limiter_failing_open', help: '1 while the rate limiter is failing open (its store does not answer), else 0', registers: [registry] });
  return {
    limited:
      existing<Counter>('eas_rate_limited_requests_total') ??
      new Counter({ name: 'eas_rate_limited_requests_total', help: 'Requests answered 429 by the per-account rate limiter', registers: [registry] }),
    failOpen:
      existing<Counter>('eas_rate_limiter_fail_open_total') ??
      new Counter({
        name: 'eas_rate_limiter_fail_open_total',
        help: 'Requests let through unchecked because the rate limiter store did not answer',
        registers: [registry],
      }),
    failingOpen,
  };
}
