import { once } from 'node:events';
import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { GatheredCalls } from '../../lib/gathered-calls.js';
import { RATE_LIMIT_MAX_WAIT_MS, type RateLimitOutcome, type RateLimitPolicy, type RateLimiter } from '../../ports/rate-limiter.js';
import { outcomesOf } from './outcome.js';
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
 * request still sees its own remaining count and exactly the budget passes. A hot account at high
 * request rates (the ingest edge's usual case) then costs one command per round trip, not one per request.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly policy: RateLimitPolicy;
  readonly #client: Redis;
  readonly #limiter: RateLimiterRedis;
  readonly #timeoutMs: number;
  /** Requests gathered across keys; each call counts every key's requests in one script run per key. */
  readonly #gathered = new GatheredCalls<string, RateLimitOutcome>((keys) => this.#consumeAll(keys));
  #connecting: Promise<void> | undefined;
  #closed = false;

  constructor(options: RedisRateLimiterOptions) {
    this.policy = { points: options.policy.points, durationSeconds: options.policy.durationSeconds };
    this.#timeoutMs = options.timeoutMs ?? 250;
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
    await this.#ready();
    return this.#gathered.call(key);
  }

  /** The outcome of each request, in order: every key's requests counted together, the keys in parallel. */
  async #consumeAll(keys: readonly string[]): Promise<RateLimitOutcome[]> {
    const counts = new Map<string, number>();
    for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
    const outcomes = new Map(await Promise.all([...counts].map(async ([key, count]) => [key, await outcomesOf(this.#limiter.consume(key, count), count, this.policy.points)] as const)));
    // Each key's outcomes are handed out in the order its requests arrived.
    const next = new Map<string, number>();
    return keys.map((key) => {
      const index = next.get(key) ?? 0;
      next.set(key, index + 1);
      return outcomes.get(key)![index]!;
    });
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
