import { describe, expect, it } from 'vitest';
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
