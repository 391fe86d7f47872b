import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RateLimitPolicy, RateLimiter } from '../../src/ports/rate-limiter.js';
import { MemoryRateLimiter } from '../../src/adapters/rate-limit/memory-rate-limiter.js';
import { RedisRateLimiter } from '../../src/adapters/rate-limit/redis-rate-limiter.js';
import { Redis } from 'ioredis';
import { freePort } from '../helpers/net.js';
import { PrivateRedis, commandsProcessed } from '../helpers/private-redis.js';
import { stackEnv, uniqueName } from '../helpers/stack-env.js';

/**
 * The RateLimiter contract, run against both implementations. `a` and `b` are two views of the same
 * budgets: for Redis two limiters with their own connections (as two API processes have), for memory
 * the one limiter (embedded mode is one process). Each test gets a fresh key prefix or limiter, and
 * its Redis keys expire with their window.
 */
interface Views {
  readonly a: RateLimiter;
  readonly b: RateLimiter;
}

interface Implementation {
  readonly name: string;
  open(policy: RateLimitPolicy): Views;
}

const implementations: Implementation[] = [
  {
    name: 'MemoryRateLimiter',
    open: (policy) => {
      const limiter = new MemoryRateLimiter(policy);
      return { a: limiter, b: limiter };
    },
  },
  {
    name: 'RedisRateLimiter',
    open: (policy) => {
      const { redisUrl } = stackEnv();
      const keyPrefix = `${uniqueName('test_ratelimit')}:`;
      // A generous timeout: these tests are about the counting, not about a slow machine.
      return { a: new RedisRateLimiter({ url: redisUrl, policy, keyPrefix, timeoutMs: 2000 }), b: new RedisRateLimiter({ url: redisUrl, policy, keyPrefix, timeoutMs: 2000 }) };
    },
  },
];

for (const implementation of implementations) {
  describe(`RateLimiter contract: ${implementation.name}`, () => {
    let views: Views | undefined;
    const open = (policy: RateLimitPolicy): Views => (views = implementation.open(policy));

    afterEach(async () => {
      if (views) await Promise.all([...new Set([views.a, views.b])].map((limiter) => limiter.close()));
      views = undefined;
    });

    it('states its policy', () => {
      expect(open({ points: 5, durationSeconds: 60 }).a.policy).toEqual({ points: 5, durationSeconds: 60 });
    });

    it('allows the budget, counting down, then refuses within the same window', async () => {
      const { a } = open({ points: 3, durationSeconds: 60 });
      const outcomes = [];
      for (let i = 0; i < 5; i++) outcomes.push(await a.consume('account'));
      expect(outcomes.map((o) => [o.allowed, o.remaining])).toEqual([
        [true, 2],
        [true, 1],
        [true, 0],
        [false, 0],
        [false, 0],
      ]);
      for (const o of outcomes) {
        expect(o.resetMs).toBeGreaterThan(55_000);
        expect(o.resetMs).toBeLessThanOrEqual(60_000);
      }
    });

    it('keeps the budgets of different keys apart', async () => {
      const { a, b } = open({ points: 1, durationSeconds: 60 });
      expect((await a.consume('one')).allowed).toBe(true);
      expect((await a.consume('one')).allowed).toBe(false);
      expect((await b.consume('two')).allowed).toBe(true);
    });

    it('shares one budget between the two views', async () => {
      const { a, b } = open({ points: 4, durationSeconds: 60 });
      expect((await a.consume('account')).remaining).toBe(3);
      expect((await b.consume('account')).remaining).toBe(2);
      expect((await a.consume('account')).remaining).toBe(1);
      expect((await b.consume('account')).remaining).toBe(0);
      expect((await a.consume('account')).allowed).toBe(false);
      expect((await b.consume('account')).allowed).toBe(false);
    });

    it('counts atomically under concurrency: of 100 concurrent requests from two views exactly the budget passes', async () => {
      const { a, b } = open({ points: 30, durationSeconds: 60 });
      const outcomes = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? a : b).consume('account')));
      expect(outcomes.filter((o) => o.allowed)).toHaveLength(30);
      // Each allowed request saw its own remaining count: no two read the same one.
      expect(new Set(outcomes.filter((o) => o.allowed).map((o) => o.remaining)).size).toBe(30);
    });

    it('counts concurrent requests of several keys each against its own budget, in arrival order', async () => {
      const { a } = open({ points: 3, durationSeconds: 60 });
      const keys = ['one', 'two', 'one', 'one', 'two', 'one', 'one'];
      const outcomes = await Promise.all(keys.map((key) => a.consume(key)));
      const of = (key: string) => outcomes.filter((_, i) => keys[i] === key).map((o) => [o.allowed, o.remaining]);
      expect(of('one')).toEqual([
        [true, 2],
        [true, 1],
        [true, 0],
        [false, 0],
        [false, 0],
      ]);
      expect(of('two')).toEqual([
        [true, 2],
        [true, 1],
      ]);
    });

    it('counts a large budget down by one per request of a view', async () => {
      const { a } = open({ points: 1000, durationSeconds: 60 });
      const remaining = [];
      for (let i = 0; i < 40; i++) remaining.push((await a.consume('account')).remaining);
      expect(remaining).toEqual(Array.from({ length: 40 }, (_, i) => 999 - i));
    });

    it('never lets more than a large budget through two views, and refuses at most 1 % of it per view early', async () => {
      const { a, b } = open({ points: 1000, durationSeconds: 60 });
      const outcomes = [];
      for (let wave = 0; wave < 12; wave++) {
        outcomes.push(...(await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? a : b).consume('account')))));
      }
      const allowed = outcomes.filter((o) => o.allowed);
      expect(allowed.length).toBeLessThanOrEqual(1000);
      expect(allowed.length).toBeGreaterThanOrEqual(980);
      expect(new Set(allowed.map((o) => o.remaining)).size).toBe(allowed.length);
    });

    it('starts a new window with the whole budget, whatever a view held of the last one', async () => {
      const { a } = open({ points: 200, durationSeconds: 1 });
      const first = await a.consume('account');
      expect(first.remaining).toBe(199);
      const windowEnds = Date.now() + first.resetMs;
      await vi.waitFor(() => expect(Date.now()).toBeGreaterThan(windowEnds + 20), { timeout: 5000, interval: 50 });
      expect((await a.consume('account')).remaining).toBe(199);
    });

    it('gives the whole budget back when the window ends', async () => {
      const { a, b } = open({ points: 2, durationSeconds: 1 });
      await a.consume('account');
      await a.consume('account');
      const refused = await b.consume('account');
      expect(refused.allowed).toBe(false);
      expect(refused.resetMs).toBeLessThanOrEqual(1000);
      await vi.waitFor(async () => expect((await b.consume('account')).allowed).toBe(true), { timeout: 5000, interval: 100 });
      expect((await a.consume('account')).remaining).toBe(0);
    });
  });
}

describe('RedisRateLimiter with a large budget', () => {
  it("answers a busy account's requests from budget it took ahead: a handful of Redis commands for 500 requests", async () => {
    const redis = await PrivateRedis.start();
    const limiter = new RedisRateLimiter({ url: redis.url, policy: { points: 100_000, durationSeconds: 60 }, timeoutMs: 2000 });
    const stats = new Redis(redis.url);
    try {
      await limiter.consume('account');
      const commandsBefore = await commandsProcessed(stats);
      const outcomes = [];
      for (let i = 0; i < 500; i++) outcomes.push(await limiter.consume('account'));
      expect(outcomes.map((o) => o.remaining)).toEqual(Array.from({ length: 500 }, (_, i) => 99_998 - i));
      // Held budget is topped up once half of it (1 % of the budget) is spent: about one command per 500 requests.
      expect((await commandsProcessed(stats)) - commandsBefore).toBeLessThan(10);
    } finally {
      stats.disconnect();
      await limiter.close();
      await redis.dispose();
    }
  });
});

describe('RedisRateLimiter when Redis does not answer', () => {
  it('rejects within its timeout when nothing listens at the address, and again on the next call', async () => {
    const limiter = new RedisRateLimiter({ url: `redis://127.0.0.1:${await freePort()}`, policy: { points: 5, durationSeconds: 60 }, timeoutMs: 250 });
    try {
      for (let i = 0; i < 2; i++) {
        const started = Date.now();
        await expect(limiter.consume('account')).rejects.toThrow(/Redis unavailable/);
        expect(Date.now() - started).toBeLessThan(1000);
      }
    } finally {
      await limiter.close();
    }
  });

  it('refuses calls once closed', async () => {
    const limiter = new RedisRateLimiter({ url: stackEnv().redisUrl, policy: { points: 5, durationSeconds: 60 }, keyPrefix: `${uniqueName('test_ratelimit')}:` });
    expect((await limiter.consume('account')).allowed).toBe(true);
    await limiter.close();
    await expect(limiter.consume('account')).rejects.toThrow(/closed/);
  });
});
