import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryBus } from './memory-bus.js';
import type { BatchHandler, ConsumedBatch } from '../../ports/message-bus.js';

const TOPIC = 'events';
const buses: MemoryBus[] = [];

afterEach(async () => {
  await Promise.all(buses.splice(0).map((bus) => bus.close()));
});

async function openBus(fetchWait: { minBytes: number; maxWaitMs: number }, latencyWaitMs?: number): Promise<MemoryBus> {
  const bus = new MemoryBus({ fetchWait, latencyWaitMs });
  buses.push(bus);
  await bus.ensureTopic(TOPIC, 1);
  return bus;
}

function collect(into: ConsumedBatch[]): BatchHandler {
  return (batch) => {
    into.push(batch);
    return Promise.resolve();
  };
}

/** The next turn of the event loop (setImmediate, which the fake clocks below leave real). */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** One message of `bytes` bytes, produced in a turn of its own. */
async function produceOne(bus: MemoryBus, bytes: number): Promise<void> {
  await nextTurn();
  await bus.produce(TOPIC, [{ key: 'app', value: Buffer.alloc(bytes, 1), headers: {} }]);
}

const until = (assertion: () => void): Promise<void> => vi.waitFor(assertion, { timeout: 10_000, interval: 5 });
const sizes = (batches: readonly ConsumedBatch[]): number[][] => batches.map((b) => b.messages.map((m) => m.value.length));

describe('MemoryBus fetch wait', () => {
  it('holds a throughput batch until it has the bytes asked for, while a latency subscription gets each message at once', async () => {
    const bus = await openBus({ minBytes: 1_000, maxWaitMs: 60_000 });
    const throughput: ConsumedBatch[] = [];
    const latency: ConsumedBatch[] = [];
    await bus.subscribe({ groupId: 'store', topic: TOPIC, handler: collect(throughput) });
    await bus.subscribe({ groupId: 'alerts', topic: TOPIC, handler: collect(latency), batching: 'latency' });

    for (let i = 0; i < 4; i++) await produceOne(bus, 200);
    await until(() => expect(latency.flatMap((b) => b.messages)).toHaveLength(4));
    expect(latency.length).toBeGreaterThan(1);
    expect(throughput).toEqual([]);

    await produceOne(bus, 200);
    await until(() => expect(throughput).toHaveLength(1));
    expect(sizes(throughput)).toEqual([[200, 200, 200, 200, 200]]);
  });

  it("gathers a latency subscription's messages for its own short wait, counted from the first one's produce", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const bus = await openBus({ minBytes: 1_000_000, maxWaitMs: 100 }, 5);
      const latency: ConsumedBatch[] = [];
      await bus.subscribe({ groupId: 'alerts', topic: TOPIC, handler: collect(latency), batching: 'latency' });
      // Three produce calls in three turns, no time passing: one batch once the 5 ms are over.
      for (let i = 0; i < 3; i++) await produceOne(bus, 10);
      expect(latency).toEqual([]);
      await vi.advanceTimersByTimeAsync(5);
      expect(sizes(latency)).toEqual([[10, 10, 10]]);
      // Long after: the next message waits its own 5 ms, not the throughput subscription's 100.
      await vi.advanceTimersByTimeAsync(1_000);
      await produceOne(bus, 20);
      await vi.advanceTimersByTimeAsync(4);
      expect(latency).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(sizes(latency)).toEqual([[10, 10, 10], [20]]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('hands over what it has once the longest wait has passed', async () => {
    const bus = await openBus({ minBytes: 1_000_000, maxWaitMs: 20 });
    const batches: ConsumedBatch[] = [];
    await bus.subscribe({ groupId: 'store', topic: TOPIC, handler: collect(batches) });
    await produceOne(bus, 10);
    await produceOne(bus, 10);
    await until(() => expect(batches.flatMap((b) => b.messages)).toHaveLength(2));
  });

  it('counts the wait from each message\'s produce, so messages that waited while the handler was busy go at once', async () => {
    // Fake clocks for the bus's wait only; turns (setImmediate) stay real, so nothing moves time but this test.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const bus = await openBus({ minBytes: 1_000_000, maxWaitMs: 100 });
      const batches: ConsumedBatch[] = [];
      let release!: () => void;
      const busy = new Promise<void>((resolve) => (release = resolve));
      await bus.subscribe({
        groupId: 'store',
        topic: TOPIC,
        handler: async (batch) => {
          batches.push(batch);
          if (batches.length === 1) await busy;
        },
      });
      await produceOne(bus, 10);
      await vi.advanceTimersByTimeAsync(100);
      expect(sizes(batches)).toEqual([[10]]);

      // Produced while the first batch is handled, and older than the wait by the time it is done.
      await produceOne(bus, 20);
      await vi.advanceTimersByTimeAsync(150);
      expect(batches).toHaveLength(1);
      release();
      // No time passes from here on: the second batch must not start a wait of its own.
      for (let turn = 0; turn < 100 && batches.length < 2; turn++) await nextTurn();
      expect(sizes(batches)).toEqual([[10], [20]]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('lets a member stop during the wait without finishing the batch, and the next member gets all of it', async () => {
    const bus = await openBus({ minBytes: 1_000, maxWaitMs: 60_000 });
    const first: ConsumedBatch[] = [];
    const subscription = await bus.subscribe({ groupId: 'store', topic: TOPIC, handler: collect(first) });
    await produceOne(bus, 300);
    await subscription.stop();
    expect(first).toEqual([]);

    const second: ConsumedBatch[] = [];
    await bus.subscribe({ groupId: 'store', topic: TOPIC, handler: collect(second) });
    await produceOne(bus, 300);
    await produceOne(bus, 600);
    await until(() => expect(second).toHaveLength(1));
    expect(sizes(second)).toEqual([[300, 300, 600]]);
  });

  it('closes while a batch is waiting', async () => {
    const bus = await openBus({ minBytes: 1_000, maxWaitMs: 60_000 });
    const batches: ConsumedBatch[] = [];
    await bus.subscribe({ groupId: 'store', topic: TOPIC, handler: collect(batches) });
    await produceOne(bus, 10);
    await bus.close();
    expect(batches).toEqual([]);
  });
});

describe('MemoryBus batches in flight', () => {
  /** A bus whose every message is a batch of its own, retried at once after a failure. */
  async function openBatchPerMessageBus(): Promise<MemoryBus> {
    const bus = new MemoryBus({ maxBatchSize: 1, retryBackoff: { initialMs: 1, maxMs: 1 } });
    buses.push(bus);
    await bus.ensureTopic(TOPIC, 1);
    return bus;
  }

  /** Messages named by their one-letter values, produced in one call. */
  async function produceNamed(bus: MemoryBus, names: readonly string[]): Promise<void> {
    await bus.produce(
      TOPIC,
      names.map((name) => ({ key: 'app', value: Buffer.from(name), headers: {} })),
    );
  }

  /** A handler that records each batch's message and holds it until the test settles it. */
  function heldHandler(): { handler: BatchHandler; handed: string[]; settle: (name: string, outcome?: Error) => void } {
    const handed: string[] = [];
    const pending = new Map<string, { resolve: () => void; reject: (error: Error) => void }>();
    return {
      handed,
      handler: (batch) => {
        const name = batch.messages.map((message) => message.value.toString()).join('');
        handed.push(name);
        return new Promise<void>((resolve, reject) => pending.set(name, { resolve, reject }));
      },
      settle: (name, outcome) => {
        const held = pending.get(name);
        if (!held) throw new Error(`no batch ${name} is held`);
        pending.delete(name);
        if (outcome) held.reject(outcome);
        else held.resolve();
      },
    };
  }

  /** A member with two batches in flight holding the batches of `names`, once it holds the first two. */
  async function holdingTwo(names: readonly string[]) {
    const bus = await openBatchPerMessageBus();
    const held = heldHandler();
    const subscription = await bus.subscribe({ groupId: 'store', topic: TOPIC, handler: held.handler, batchesInFlight: 2 });
    await produceNamed(bus, names);
    await until(() => expect(held.handed).toEqual(names.slice(0, 2)));
    return { bus, held, subscription };
  }

  it('hands over one batch at a time by default, and up to batchesInFlight when asked', async () => {
    for (const batchesInFlight of [undefined, 2]) {
      const bus = await openBatchPerMessageBus();
      const held = heldHandler();
      await bus.subscribe({ groupId: 'store', topic: TOPIC, handler: held.handler, batchesInFlight });
      await produceNamed(bus, ['a', 'b', 'c']);
      const limit = batchesInFlight ?? 1;
      for (let settledCount = 0; settledCount < 3; settledCount++) {
        const allowed = Math.min(settledCount + limit, 3);
        await until(() => expect(held.handed).toHaveLength(allowed));
        for (let turn = 0; turn < 20; turn++) await nextTurn();
        expect(held.handed).toEqual(['a', 'b', 'c'].slice(0, allowed));
        held.settle(held.handed[settledCount]!);
      }
      await bus.close();
    }
  });

  it('delivers a failed batch again with every batch after it, though those succeeded: offsets commit in order', async () => {
    const { held } = await holdingTwo(['a', 'b', 'c']);
    held.settle('b');
    // b succeeded while a is still in the handler: c takes b's place, and nothing is committed yet.
    await until(() => expect(held.handed).toEqual(['a', 'b', 'c']));
    held.settle('a', new Error('store unavailable'));
    held.settle('c');
    await until(() => expect(held.handed).toEqual(['a', 'b', 'c', 'a', 'b']));
    held.settle('a');
    held.settle('b');
    await until(() => expect(held.handed).toEqual(['a', 'b', 'c', 'a', 'b', 'c']));
    held.settle('c');
  });

  it('after a later batch failed, waits for the earlier ones still running, then delivers again from the first not committed', async () => {
    const { held } = await holdingTwo(['a', 'b', 'c']);
    held.settle('b', new Error('store unavailable'));
    for (let turn = 0; turn < 20; turn++) await nextTurn();
    // Nothing new while a runs: neither c nor b again, which a's outcome decides.
    expect(held.handed).toEqual(['a', 'b']);
    held.settle('a');
    await until(() => expect(held.handed).toEqual(['a', 'b', 'b', 'c']));
    held.settle('b');
    held.settle('c');
  });

  it('commits a batch that finished early only with the ones before it, so a member stopping waits for all of them', async () => {
    for (const earlierFails of [false, true]) {
      const { bus, held, subscription } = await holdingTwo(['a', 'b']);
      held.settle('b');
      let stopped = false;
      const stopping = subscription.stop().then(() => (stopped = true));
      for (let turn = 0; turn < 20; turn++) await nextTurn();
      expect(stopped).toBe(false);
      held.settle('a', earlierFails ? new Error('store unavailable') : undefined);
      await stopping;

      // The group's next member starts at what was committed: after both, or, when a failed, at a.
      const next: ConsumedBatch[] = [];
      await bus.subscribe({ groupId: 'store', topic: TOPIC, handler: collect(next) });
      await produceNamed(bus, ['z']);
      await until(() => expect(next.flatMap((batch) => batch.messages)).toHaveLength(earlierFails ? 3 : 1));
      expect(next.flatMap((batch) => batch.messages.map((message) => message.value.toString()))).toEqual(earlierFails ? ['a', 'b', 'z'] : ['z']);
      await bus.close();
    }
  });

  it('refuses a batchesInFlight that is not a positive integer', async () => {
    const bus = await openBatchPerMessageBus();
    for (const batchesInFlight of [0, 1.5, -1]) {
      await expect(bus.subscribe({ groupId: 'store', topic: TOPIC, handler: collect([]), batchesInFlight })).rejects.toThrow(/batchesInFlight/);
    }
  });
});
