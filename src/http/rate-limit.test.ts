import { Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import type { RateLimitOutcome, RateLimiter } from '../ports/rate-limiter.js';
import { MemoryRateLimiter } from '../adapters/rate-limit/memory-rate-limiter.js';
import { DomainError } from '../domain/errors.js';
import { AccountRateLimit } from './rate-limit.js';

/** A limiter whose store the test switches between answering, failing and hanging. */
class ScriptedLimiter implements RateLimiter {
  readonly policy = { points: 5, durationSeconds: 60 };
  mode: 'answer' | 'fail' | 'hang' = 'answer';
  calls = 0;
  consume(): Promise<RateLimitOutcome> {
    this.calls++;
    if (this.mode === 'fail') return Promise.reject(new Error('Redis unavailable: connect ECONNREFUSED'));
    if (this.mode === 'hang') return new Promise(() => undefined);
    return Promise.resolve({ allowed: true, remaining: 4, resetMs: 59_400 });
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

function setup(limiter: RateLimiter, options: { timeoutMs?: number } = {}) {
  const metrics = new Registry();
  const logger = { warn: vi.fn(), info: vi.fn() };
  let now = 1_000_000;
  const guard = new AccountRateLimit({ limiter, metrics, logger, probeIntervalMs: 3000, now: () => now, ...options });
  const value = async (name: string): Promise<number> => (await metrics.getSingleMetric(name)!.get()).values[0]?.value ?? NaN;
  return { guard, logger, value, advance: (ms: number) => (now += ms) };
}

/** The answer of `admit` as a promise, whether it came at once (or was thrown at once) or later. */
async function answerOf<T>(admit: () => T | Promise<T>): Promise<T> {
  return admit();
}

describe('AccountRateLimit', () => {
  it('answers at once, without a promise, from budget the process holds, and refuses at once too', () => {
    const { guard } = setup(new MemoryRateLimiter({ points: 1, durationSeconds: 30 }));
    const admitted = guard.admit('a');
    expect(admitted).not.toBeInstanceOf(Promise);
    expect(admitted).toHaveProperty('RateLimit', '"default";r=0;t=30');
    expect(() => guard.admit('a')).toThrow(DomainError);
  });

  it('asks the store when it holds no budget, and answers through a promise', async () => {
    const { guard } = setup(new ScriptedLimiter());
    const admitted = guard.admit('a');
    expect(admitted).toBeInstanceOf(Promise);
    expect(await admitted).toHaveProperty('RateLimit', '"default";r=4;t=60');
  });

  it('lets a request within the budget through with the draft RateLimit-Policy and RateLimit headers', async () => {
    const { guard } = setup(new ScriptedLimiter());
    expect(await guard.admit('account-1')).toEqual({ 'RateLimit-Policy': '"default";q=5;w=60', RateLimit: '"default";r=4;t=60' });
  });

  it('refuses the request over the budget with rate_limited, Retry-After and both headers, and counts it', async () => {
    const { guard, value } = setup(new MemoryRateLimiter({ points: 2, durationSeconds: 30 }));
    await guard.admit('a');
    expect((await guard.admit('a')).RateLimit).toBe('"default";r=0;t=30');
    const refused = await answerOf(() => guard.admit('a')).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(DomainError);
    const error = refused as DomainError;
    expect(error.code).toBe('rate_limited');
    expect(error.retryAfterSeconds).toBe(30);
    expect(error.headers).toEqual({ 'RateLimit-Policy': '"default";q=2;w=30', RateLimit: '"default";r=0;t=30' });
    expect(await value('eas_rate_limited_requests_total')).toBe(1);
    // Another account has its own budget.
    await expect(answerOf(() => guard.admit('b'))).resolves.toHaveProperty('RateLimit', '"default";r=1;t=30');
  });

  it('fails open when the store fails: serves every request, counts each, logs one warning, skips the store until the probe', async () => {
    const limiter = new ScriptedLimiter();
    const { guard, logger, value, advance } = setup(limiter);
    await guard.admit('a');
    expect(await value('eas_rate_limiter_failing_open')).toBe(0);

    limiter.mode = 'fail';
    for (let i = 0; i < 10; i++) expect(await guard.admit('a')).toEqual({ 'RateLimit-Policy': '"default";q=5;w=60' });
    expect(await value('eas_rate_limiter_fail_open_total')).toBe(10);
    expect(await value('eas_rate_limiter_failing_open')).toBe(1);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    // Only the first failing request waited on the store; the others skipped it.
    expect(limiter.calls).toBe(2);

    // After the probe interval one request tries the store again; still down, it stays open quietly.
    advance(3000);
    await guard.admit('a');
    expect(limiter.calls).toBe(3);
    expect(logger.warn).toHaveBeenCalledTimes(1);

    limiter.mode = 'answer';
    await guard.admit('a');
    expect(limiter.calls).toBe(3);
    advance(3000);
    expect(await guard.admit('a')).toHaveProperty('RateLimit');
    expect(await value('eas_rate_limiter_failing_open')).toBe(0);
    expect(await value('eas_rate_limiter_fail_open_total')).toBe(12);
    expect(logger.info).toHaveBeenCalledTimes(1);
    expect(logger.warn).toHaveBeenCalledTimes(1);
  });

  it('waits at most the timeout for a store that does not answer', async () => {
    const limiter = new ScriptedLimiter();
    limiter.mode = 'hang';
    const { guard, value } = setup(limiter, { timeoutMs: 30 });
    const started = Date.now();
    expect(await guard.admit('a')).toEqual({ 'RateLimit-Policy': '"default";q=5;w=60' });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(await value('eas_rate_limiter_fail_open_total')).toBe(1);
  });

  it('does not take an answer to a check started before the failure as recovery', async () => {
    let release: ((o: RateLimitOutcome) => void) | undefined;
    const limiter = new ScriptedLimiter();
    const slow = vi.spyOn(limiter, 'consume').mockImplementationOnce(() => new Promise((resolve) => (release = resolve)));
    const { guard, logger, value } = setup(limiter);
    const early = guard.admit('a');
    limiter.mode = 'fail';
    await guard.admit('a');
    release!({ allowed: true, remaining: 3, resetMs: 1000 });
    await early;
    expect(slow).toHaveBeenCalledTimes(2);
    expect(await value('eas_rate_limiter_failing_open')).toBe(1);
    expect(logger.info).not.toHaveBeenCalled();
  });

  it('shares the metrics of one registry between two instances', async () => {
    const metrics = new Registry();
    const logger = { warn: vi.fn(), info: vi.fn() };
    const limiter = new MemoryRateLimiter({ points: 1, durationSeconds: 60 });
    const first = new AccountRateLimit({ limiter, metrics, logger });
    const second = new AccountRateLimit({ limiter, metrics, logger });
    await first.admit('a');
    await expect(answerOf(() => second.admit('a'))).rejects.toThrow(DomainError);
    await expect(answerOf(() => first.admit('a'))).rejects.toThrow(DomainError);
    expect((await metrics.getSingleMetric('eas_rate_limited_requests_total')!.get()).values[0]!.value).toBe(2);
  });
});
