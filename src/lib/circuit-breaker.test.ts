import { describe, expect, it } from 'vitest';
import { CircuitBreaker, CircuitOpenError } from './circuit-breaker.js';

function clock() {
  let t = 1_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

const ok = () => Promise.resolve('ok');
const down = () => Promise.reject(new Error('broker down'));

describe('CircuitBreaker', () => {
  it('runs calls side by side while closed', async () => {
    const breaker = new CircuitBreaker({ cooldownMs: 1000 });
    let resolveSlow!: () => void;
    const slow = breaker.run(() => new Promise<string>((r) => (resolveSlow = () => r('slow'))));
    await expect(breaker.run(ok)).resolves.toBe('ok');
    resolveSlow();
    await expect(slow).resolves.toBe('slow');
  });

  it('fails fast during the cooldown after a failure, naming the cause', async () => {
    const c = clock();
    const breaker = new CircuitBreaker({ cooldownMs: 1000, now: c.now });
    await expect(breaker.run(down)).rejects.toThrow('broker down');
    let called = false;
    const attempt = breaker.run(() => {
      called = true;
      return ok();
    });
    await expect(attempt).rejects.toBeInstanceOf(CircuitOpenError);
    await expect(attempt).rejects.toThrow('broker down');
    expect(called).toBe(false);
  });

  it('lets one probe through after the cooldown and closes on its success', async () => {
    const c = clock();
    const breaker = new CircuitBreaker({ cooldownMs: 1000, now: c.now });
    await expect(breaker.run(down)).rejects.toThrow();
    c.advance(1001);
    let finishProbe!: () => void;
    const probe = breaker.run(() => new Promise<string>((r) => (finishProbe = () => r('probe'))));
    expect(breaker.state).toBe('probing');
    await expect(breaker.run(ok)).rejects.toBeInstanceOf(CircuitOpenError);
    finishProbe();
    await expect(probe).resolves.toBe('probe');
    expect(breaker.state).toBe('closed');
    await expect(breaker.run(ok)).resolves.toBe('ok');
  });

  it('says when a call would be refused, so that queued work need not wait for the probe to learn it', async () => {
    const c = clock();
    const breaker = new CircuitBreaker({ cooldownMs: 1000, now: c.now });
    expect(breaker.refusing).toBe(false);
    await expect(breaker.run(down)).rejects.toThrow();
    expect(breaker.refusing).toBe(true);
    expect(breaker.refusal()).toBeInstanceOf(CircuitOpenError);
    c.advance(1001);
    // The cooldown is over: the next call goes through as the probe.
    expect(breaker.refusing).toBe(false);
    let finishProbe!: () => void;
    const probe = breaker.run(() => new Promise<string>((r) => (finishProbe = () => r('probe'))));
    expect(breaker.refusing).toBe(true);
    finishProbe();
    await probe;
    expect(breaker.refusing).toBe(false);
  });

  it('opens again when the probe fails', async () => {
    const c = clock();
    const breaker = new CircuitBreaker({ cooldownMs: 1000, now: c.now });
    await expect(breaker.run(down)).rejects.toThrow();
    c.advance(1001);
    await expect(breaker.run(down)).rejects.toThrow('broker down');
    expect(breaker.state).toBe('open');
    await expect(breaker.run(ok)).rejects.toBeInstanceOf(CircuitOpenError);
  });
});
