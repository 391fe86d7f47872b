import { once } from 'node:events';
import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { GatheredCalls } from '../../lib/gathered-calls.js';
import { RATE_LIMIT_MAX_WAIT_MS, type RateLimitOutcome, type RateLimitPolicy, type RateLimiter } from '../../ports/rate-limiter.js';
import { countedRequests } from './outcome.js';
import { failFastRedisOptions } from '../state/redis-state-store.js';

export interface RedisRateLimiterOptions {
  readonly url: string;
  readonly policy: RateLimitPolicy;
  /** Prepended to every key, so that deployments or test runs sharing one Redis keep their budgets apart. */
  readonly keyPrefix?: string;
  /** Longest a call waits for a connection (default 250 ms). */
  readonly timeoutMs?: number;
}

/**
 * Distributed mode's limiter: one budget per key in Redis, shared by every API process. Each request
 * is one atomic script (SET NX EX, INCRBY, PTTL) run by rate-limiter-flexible.
 *
 * It has its own connection rather than the state store's because it answers on the request path of
 * every call, with a much shorter timeout than state operations have (the HTTP edge would rather let a
 * request through unchecked than keep it waiting, see src/http/rate-limit.ts). The client options
 * are the state store's fail-fast ones (see redis-state-store.ts for each one's reason): no offline
 * queue, no resending after a dropped connection, a command timeout, endless reconnects. A request
 * counted on the server whose reply was lost is simply one request counted: harmless.
 *
 * An account over its budget is also remembered in process until its window ends
 * (`inMemoryBlockOnConsumed`), so a client hammering through its 429s costs no Redis round trip.
 *
 * Concurrent requests of one key share one script run (GatheredCalls): n requests consume n points at
 * once, and the answer is split as if they had been counted one after another, so each allowed
 * request still sees its own remaining count and exactly the budget passes.
 *
 * A hot account needs no round trip per request at all: with a budget of at least HOLD_MIN_POINTS,
 * each script run also takes up to 1 % of the budget ahead of demand, and this process answers its
 * next requests from that held budget (`consumeHeld`), taking more in the background once half of it
 * is spent. What is held was counted in Redis, so no process ever lets more than the budget through;
 * the price is that budget held by a process that gets no more requests of the account goes unused
 * until the window ends: at most 1 % of the budget per API process. Each held request reports the
 * remaining count it would have had if counted alone, and held budget is dropped when its window ends.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly policy: RateLimitPolicy;
  readonly #client: Redis;
  readonly #limiter: RateLimiterRedis;
  readonly #timeoutMs: number;
  /** Requests gathered across keys; each call counts every key's requests in one script run per key. */
  readonly #gathered = new GatheredCalls<Demand, RateLimitOutcome | null>((demands) => this.#consumeAll(demands));
  /** Points taken from Redis per key ahead of requests (0: none; small budgets are counted request by request). */
  readonly #holdPoints: number;
  /** Budget held per key: the outcomes of requests already counted in Redis, in their counting order. */
  readonly #held = new Map<string, HeldBudget>();
  /** The top-ups of held budget in flight, by key. */
  readonly #refilling = new Map<string, Promise<void>>();
  #connecting: Promise<void> | undefined;
  #closed = false;

  constructor(options: RedisRateLimiterOptions) {
    this.policy = { points: options.policy.points, durationSeconds: options.policy.durationSeconds };
    this.#timeoutMs = options.timeoutMs ?? 250;
    this.#holdPoints = this.policy.points >= HOLD_MIN_POINTS ? Math.floor(this.policy.points * HOLD_SHARE) : 0;
    // Connects at once (not lazily): a check waits only a fraction of a second (src/http/rate-limit.ts),
    // too little to spend on opening the connection for the process's first request.
    // A command's own timeout is a backstop only (RATE_LIMIT_MAX_WAIT_MS): the edge decides sooner whether
    // Redis answered in time, counting only time its event loop could have read the reply; a 250 ms
    // client-side timer would fire before a reply already waiting in a busy process's socket is read.
    this.#client = new Redis(options.url, { ...failFastRedisOptions(this.#timeoutMs, false), commandTimeout: RATE_LIMIT_MAX_WAIT_MS });
    // Without an 'error' listener ioredis prints every failed reconnect to stderr. The caller reports
    // the outage once (src/http/rate-limit.ts); this connection has nothing to add.
    this.#client.on('error', () => undefined);
    this.#limiter = new RateLimiterRedis({
      storeClient: this.#client,
      keyPrefix: `${options.keyPrefix ?? ''}ratelimit`,
      points: this.policy.points,
      duration: this.policy.durationSeconds,
      inMemoryBlockOnConsumed: this.policy.points + 1,
    });
  }

  async consume(key: string): Promise<RateLimitOutcome> {
    const held = this.consumeHeld(key);
    if (held) return held;
    // Budget being taken for the key is counted before anything asked now: wait for it, in order.
    const refill = this.#refilling.get(key);
    if (refill) {
      await refill;
      const refilled = this.consumeHeld(key);
      if (refilled) return refilled;
    }
    await this.#ready();
    return (await this.#gathered.call({ key, requests: 1 }))!;
  }

  consumeHeld(key: string): RateLimitOutcome | null {
    const held = this.#held.get(key);
    if (!held || this.#closed) return null;
    const now = Date.now();
    const counted = held.take(now);
    if (held.left(now) <= this.#holdPoints / 2) this.#refill(key);
    if (!counted) {
      this.#held.delete(key);
      return null;
    }
    return { allowed: true, remaining: counted.remaining, resetMs: counted.endsAt - now };
  }

  /** Tops the key's held budget up in the background; a failure leaves it to the next request's own call. */
  #refill(key: string): void {
    if (this.#refilling.has(key) || this.#client.status !== 'ready') return;
    const refill = this.#gathered
      .call({ key, requests: 0 })
      .then(() => undefined, () => undefined)
      .finally(() => this.#refilling.delete(key));
    this.#refilling.set(key, refill);
  }

  /**
   * The outcome of each request, in order: every key's requests counted together (with the points taken
   * to hold), the keys in parallel. A refill's entry gets null.
   */
  async #consumeAll(demands: readonly Demand[]): Promise<Array<RateLimitOutcome | null>> {
    const requests = new Map<string, number>();
    for (const { key, requests: n } of demands) requests.set(key, (requests.get(key) ?? 0) + n);
    const outcomes = new Map(
      await Promise.all(
        [...requests].map(async ([key, count]): Promise<readonly [string, RateLimitOutcome[]]> => {
          const now = Date.now();
          const toHold = this.#holdPoints === 0 ? 0 : Math.max(0, this.#holdPoints - (this.#held.get(key)?.left(now) ?? 0));
          if (count + toHold === 0) return [key, []];
          const counted = await countedRequests(this.#limiter.consume(key, count + toHold), count + toHold, this.policy.points);
          if (counted.allowed > count) this.#hold(key, counted.outcome(count), counted.allowed - count);
          return [key, Array.from({ length: count }, (_, i) => counted.outcome(i))];
        }),
      ),
    );
    // Each key's outcomes are handed out in the order its requests arrived.
    const next = new Map<string, number>();
    return demands.map(({ key, requests: n }) => {
      if (n === 0) return null;
      const index = next.get(key) ?? 0;
      next.set(key, index + 1);
      return outcomes.get(key)![index]!;
    });
  }

  /** Holds `count` counted requests of `key`, the first of which is `first`. */
  #hold(key: string, first: RateLimitOutcome, count: number): void {
    if (this.#closed) return;
    let held = this.#held.get(key);
    if (!held) this.#held.set(key, (held = new HeldBudget()));
    held.add(first, count, Date.now());
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#client.status === 'ready') {
      try {
        await this.#client.quit();
        return;
      } catch {
        // Fall through: the connection is going away either way.
      }
    }
    this.#client.disconnect();
  }

  /**
   * Waits for a ready connection, at most `timeoutMs`; a connection error (nothing listening) fails at
   * once. One wait is shared by every call that arrives meanwhile.
   */
  async #ready(): Promise<void> {
    if (this.#closed) throw new Error('rate limiter is closed');
    if (this.#client.status === 'ready') return;
    this.#connecting ??= this.#waitForReady().finally(() => (this.#connecting = undefined));
    await this.#connecting;
  }

  async #waitForReady(): Promise<void> {
    try {
      await once(this.#client, 'ready', { signal: AbortSignal.timeout(this.#timeoutMs) });
    } catch (error) {
      const reason = error instanceof Error && error.name === 'AbortError' ? `not connected within ${this.#timeoutMs} ms` : error instanceof Error ? error.message : String(error);
      throw new Error(`Redis unavailable: ${reason}`, { cause: error });
    }
  }
}

/** Budgets of at least this many points are held ahead of requests; smaller ones are counted request by request. */
const HOLD_MIN_POINTS = 200;
/** The share of the budget a process takes ahead of its requests. */
const HOLD_SHARE = 0.01;

/** Requests of a key to count (0: only points to hold). */
interface Demand {
  readonly key: string;
  readonly requests: number;
}

/**
 * One key's held budget: requests already counted in Redis, handed out in their counting order until
 * their window ends. The allowed requests of one count have consecutive remaining counts, so each count
 * is kept as a run (the next remaining count, how many are left, the end of its window).
 */
class HeldBudget {
  readonly #runs: Array<{ remaining: number; left: number; endsAt: number }> = [];

  add(first: RateLimitOutcome, count: number, now: number): void {
    this.#runs.push({ remaining: first.remaining, left: count, endsAt: now + first.resetMs });
  }

  /** The next counted request of a window that has not ended, or null. */
  take(now: number): { remaining: number; endsAt: number } | null {
    this.#dropSpent(now);
    const run = this.#runs[0];
    if (!run) return null;
    const taken = { remaining: run.remaining, endsAt: run.endsAt };
    run.remaining -= 1;
    run.left -= 1;
    return taken;
  }

  left(now: number): number {
    this.#dropSpent(now);
    return this.#runs.reduce((sum, run) => sum + run.left, 0);
  }

  #dropSpent(now: number): void {
    while (this.#runs.length > 0 && (this.#runs[0]!.left === 0 || this.#runs[0]!.endsAt <= now)) this.#runs.shift();
  }
}
