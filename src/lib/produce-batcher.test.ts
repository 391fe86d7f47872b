import { describe, expect, it, vi } from 'vitest';
import { ProduceBatcher } from './produce-batcher.js';

describe('ProduceBatcher', () => {
  it('sends what arrives in one turn of the event loop as one call, in arrival order', async () => {
    const calls: number[][] = [];
    const batcher = new ProduceBatcher<number>((items) => {
      calls.push(items);
      return Promise.resolve();
    }, { maxWeight: 1000, weight: () => 1 });
    await Promise.all([batcher.add([1, 2]), batcher.add([3]), batcher.add([4, 5, 6])]);
    expect(calls).toEqual([[1, 2, 3, 4, 5, 6]]);
    await batcher.add([7]);
    expect(calls).toEqual([[1, 2, 3, 4, 5, 6], [7]]);
  });

  it('splits at maxWeight without ever splitting one caller', async () => {
    const calls: number[][] = [];
    const batcher = new ProduceBatcher<number>((items) => {
      calls.push(items);
      return Promise.resolve();
    }, { maxWeight: 4, weight: () => 1 });
    await Promise.all([batcher.add([1, 2, 3]), batcher.add([4, 5]), batcher.add([6]), batcher.add([7, 8, 9, 10, 11])]);
    expect(calls).toEqual([[1, 2, 3], [4, 5, 6], [7, 8, 9, 10, 11]]);
  });

  it('rejects every caller of a failed call and only those', async () => {
    const batcher = new ProduceBatcher<number>((items) => (items.includes(99) ? Promise.reject(new Error('broker down')) : Promise.resolve()), { maxWeight: 2, weight: () => 1 });
    const results = await Promise.allSettled([batcher.add([1, 99]), batcher.add([2]), batcher.add([3])]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
  });

  it('weighs items by the given measure', async () => {
    const calls: string[][] = [];
    const batcher = new ProduceBatcher<string>((items) => {
      calls.push(items);
      return Promise.resolve();
    }, { maxWeight: 10, weight: (s) => s.length });
    await Promise.all([batcher.add(['aaaa']), batcher.add(['bbbb']), batcher.add(['cccc'])]);
    expect(calls).toEqual([['aaaa', 'bbbb'], ['cccc']]);
  });
});

describe('ProduceBatcher while a call is in flight', () => {
  it('collects everything that arrives during the outstanding call into the next one', async () => {
    const calls: number[][] = [];
    let release!: () => void;
    const firstCall = new Promise<void>((resolve) => (release = resolve));
    const batcher = new ProduceBatcher<number>((items) => {
      calls.push(items);
      return calls.length === 1 ? firstCall : Promise.resolve();
    }, { maxWeight: 1000, weight: () => 1 });
    const first = batcher.add([1]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual([[1]]);
    // Three turns of the event loop while the first call is outstanding: none is sent on its own.
    const later: Promise<void>[] = [];
    for (const n of [2, 3, 4]) {
      later.push(batcher.add([n]));
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(calls).toEqual([[1]]);
    release();
    await Promise.all([first, ...later]);
    expect(calls).toEqual([[1], [2, 3, 4]]);
  });

  it('keeps at most maxInFlight calls outstanding', async () => {
    let outstanding = 0;
    let most = 0;
    const batcher = new ProduceBatcher<number>(
      async () => {
        outstanding += 1;
        most = Math.max(most, outstanding);
        await new Promise((resolve) => setImmediate(resolve));
        outstanding -= 1;
      },
      { maxWeight: 1, weight: () => 1, maxInFlight: 2 },
    );
    await Promise.all(Array.from({ length: 10 }, (_, n) => batcher.add([n])));
    expect(most).toBe(2);
  });
});

describe('ProduceBatcher with a linger', () => {
  /** A batcher recording its calls, which answer at once. */
  function lingering(linger: { ms: number; busyCallers: number }): { batcher: ProduceBatcher<number>; calls: number[][] } {
    const calls: number[][] = [];
    const batcher = new ProduceBatcher<number>((items) => {
      calls.push(items);
      return Promise.resolve();
    }, { maxWeight: 1000, weight: () => 1, linger });
    return { batcher, calls };
  }
  const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

  it('never waits while calls carry fewer callers than busyCallers: a lone caller goes at once', async () => {
    // A linger of a minute would time the test out if a quiet batcher waited.
    const { batcher, calls } = lingering({ ms: 60_000, busyCallers: 2 });
    for (const n of [1, 2, 3]) await batcher.add([n]);
    expect(calls).toEqual([[1], [2], [3]]);
  });

  it('after a busy call, waits for as many callers as it carried and goes as soon as they are in', async () => {
    const { batcher, calls } = lingering({ ms: 60_000, busyCallers: 3 });
    await Promise.all([batcher.add([1]), batcher.add([2]), batcher.add([3])]);
    expect(calls).toEqual([[1, 2, 3]]);
    const next = [batcher.add([4])];
    await nextTurn();
    await nextTurn();
    expect(calls).toEqual([[1, 2, 3]]);
    next.push(batcher.add([5]), batcher.add([6]));
    await Promise.all(next);
    expect(calls).toEqual([[1, 2, 3], [4, 5, 6]]);
  });

  it('waits at most its ms, then sends what it has; the next call, smaller, does not wait', async () => {
    const { batcher, calls } = lingering({ ms: 300, busyCallers: 2 });
    await Promise.all([batcher.add([1]), batcher.add([2])]);
    const lone = batcher.add([3]);
    await nextTurn();
    await nextTurn();
    expect(calls).toEqual([[1, 2]]);
    await lone;
    expect(calls).toEqual([[1, 2], [3]]);
    // The last call carried one caller: the service is quiet again, and the next call goes at once.
    void batcher.add([4]);
    await nextTurn();
    await nextTurn();
    expect(calls).toEqual([[1, 2], [3], [4]]);
  });

  it('stop sends a waiting call at once', async () => {
    const { batcher, calls } = lingering({ ms: 60_000, busyCallers: 2 });
    await Promise.all([batcher.add([1]), batcher.add([2])]);
    const waiting = batcher.add([3]);
    await nextTurn();
    expect(calls).toEqual([[1, 2]]);
    await batcher.stop();
    await waiting;
    expect(calls).toEqual([[1, 2], [3]]);
  });
});

describe('ProduceBatcher.stop', () => {
  it('sends what is queued at once and resolves after every call settled, each caller with its own answer', async () => {
    const calls: number[][] = [];
    const releases: Array<() => void> = [];
    const batcher = new ProduceBatcher<number>(
      (items) => {
        calls.push(items);
        if (items.includes(99)) return Promise.reject(new Error('broker down'));
        return new Promise<void>((resolve) => releases.push(resolve));
      },
      { maxWeight: 2, weight: () => 1 },
    );
    const first = batcher.add([1]);
    await new Promise((resolve) => setImmediate(resolve));
    // One call outstanding, three callers queued behind it (two calls' worth, one of them failing).
    const queued = Promise.allSettled([batcher.add([2, 3]), batcher.add([99]), batcher.add([4])]);
    let stopped = false;
    const stopping = batcher.stop().then(() => (stopped = true));
    expect(calls).toEqual([[1]]);

    releases.shift()!();
    await first;
    await vi.waitFor(() => expect(calls).toEqual([[1], [2, 3]]));
    expect(stopped).toBe(false);
    releases.shift()!();
    await vi.waitFor(() => expect(calls).toHaveLength(3));
    expect(calls[2]).toEqual([99, 4]);
    await stopping;
    expect((await queued).map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
  });

  it('refuses callers that arrive after it, and resolves at once when idle', async () => {
    const batcher = new ProduceBatcher<number>(() => Promise.resolve(), { maxWeight: 10, weight: () => 1 });
    await batcher.add([1]);
    await batcher.stop();
    await expect(batcher.add([2])).rejects.toThrow(/stopped/);
    await batcher.stop();
  });

  it('runs a shared call outside the context of the caller that happened to come first', async () => {
    const { AsyncLocalStorage } = await import('node:async_hooks');
    const context = new AsyncLocalStorage<string>();
    const seen: Array<string | undefined> = [];
    const batcher = new ProduceBatcher<number>(
      () => {
        seen.push(context.getStore());
        return Promise.resolve();
      },
      { maxWeight: 10, weight: () => 1 },
    );
    await Promise.all([context.run('request-1', () => batcher.add([1])), context.run('request-2', () => batcher.add([2]))]);
    expect(seen).toEqual([undefined]);
  });
});
