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
