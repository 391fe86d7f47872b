import { createRequire } from 'node:module';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Kafka, logLevel } from 'kafkajs';
import type { BatchHandler, ConsumedBatch, MessageBus, Subscription } from '../../src/ports/message-bus.js';
import { KafkaBus } from '../../src/adapters/bus/kafka-bus.js';
import { KAFKAJS_REQUEST_QUEUE_MODULE } from '../../src/adapters/bus/kafka-request-queue.js';
import { KAFKA_FETCH_DEFAULTS } from '../../src/config.js';
import { MemoryBus } from '../../src/adapters/bus/memory-bus.js';
import { SqliteBusJournal } from '../../src/adapters/bus/sqlite-journal.js';
import { temporaryJournalPath } from '../helpers/bus-journal.js';
import { stackEnv, uniqueName } from '../helpers/stack-env.js';
import { freePort } from '../helpers/net.js';
import { capturingLogger } from '../helpers/logger.js';
import type { OutgoingMessage } from '../../src/domain/messages/outgoing-message.js';

/**
 * The MessageBus contract, run against both implementations. Each test owns its topics and groups
 * (unique names), so tests neither share state nor depend on order. Every wait is for a condition
 * with a deadline; nothing sleeps for a fixed time.
 */
interface Implementation {
  readonly name: string;
  create(): MessageBus;
}

const implementations: Implementation[] = [
  // A short backoff keeps redelivery tests quick; the semantics are the same as with the default.
  { name: 'MemoryBus', create: () => new MemoryBus({ retryBackoff: { initialMs: 20, maxMs: 200 } }) },
  {
    name: 'MemoryBus with a SQLite journal',
    create: () => new MemoryBus({ retryBackoff: { initialMs: 20, maxMs: 200 }, journal: new SqliteBusJournal(temporaryJournalPath()) }),
  },
  { name: 'KafkaBus', create: () => new KafkaBus({ brokers: stackEnv().kafkaBrokers, clientId: uniqueName('bus_contract'), fetch: KAFKA_FETCH_DEFAULTS }) },
];

/** What the tests put in a message value. */
interface Payload {
  readonly key: string;
  readonly seq: number;
}

interface Received extends Payload {
  readonly partition: number;
  readonly offset: number;
}

function message(key: string, seq: number, headers?: Record<string, string>): OutgoingMessage {
  return { key, value: Buffer.from(JSON.stringify({ key, seq } satisfies Payload)), headers };
}

function decode(batch: ConsumedBatch): Received[] {
  return batch.messages.map((m) => ({ ...(JSON.parse(m.value.toString('utf8')) as Payload), partition: m.partition, offset: Number(m.offset) }));
}

/** `count` messages spread round-robin over `keys` keys, each key numbering its own messages 0, 1, 2... */
function spread(count: number, keys: number): OutgoingMessage[] {
  const next = new Map<string, number>();
  return Array.from({ length: count }, (_, i) => {
    const key = `key-${i % keys}`;
    const seq = next.get(key) ?? 0;
    next.set(key, seq + 1);
    return message(key, seq);
  });
}

/** Waits for a condition, generously: Kafka group joins and redelivery backoffs take seconds. */
function until(assertion: () => void | Promise<void>, timeout = 30_000): Promise<void> {
  return vi.waitFor(assertion, { timeout, interval: 20 });
}

/** A handler that only records what it got. */
function collect(into: Received[]): BatchHandler {
  return (batch) => {
    into.push(...decode(batch));
    return Promise.resolve();
  };
}

const ids = (received: readonly Received[]): string[] => received.map((r) => `${r.key}#${r.seq}`);
/** The same names as `ids` gives, for messages as produced. */
const sentIds = (sent: readonly OutgoingMessage[]): string[] =>
  sent.map((m) => {
    const { key, seq } = JSON.parse(m.value.toString('utf8')) as Payload;
    return `${key}#${seq}`;
  });

for (const implementation of implementations) {
  describe(`MessageBus contract: ${implementation.name}`, () => {
    let bus: MessageBus;
    const subscriptions: Subscription[] = [];

    /** Subscribes and remembers the subscription so that a failing test still cleans up. */
    async function subscribe(...args: Parameters<MessageBus['subscribe']>): Promise<Subscription> {
      const subscription = await bus.subscribe(...args);
      subscriptions.push(subscription);
      return subscription;
    }

    async function newTopic(partitions: number): Promise<string> {
      const topic = uniqueName('test_contract');
      await bus.ensureTopic(topic, partitions);
      return topic;
    }

    beforeEach(() => {
      bus = implementation.create();
    });

    afterEach(async () => {
      await Promise.all(subscriptions.splice(0).map((s) => s.stop()));
      await bus.close();
    });

    it('answers ping', async () => {
      await expect(bus.ping()).resolves.toBeUndefined();
    });

    it('delivers everything produced, with key, value and headers, at increasing offsets per partition', async () => {
      const topic = await newTopic(2);
      // Creating an existing topic again changes nothing and is not an error.
      await bus.ensureTopic(topic, 2);
      const produced = spread(50, 5).map((m, i) => ({ ...m, headers: { trace: `t-${i}` } }));
      await bus.produce(topic, produced.slice(0, 20));
      await bus.produce(topic, produced.slice(20));

      const batches: ConsumedBatch[] = [];
      await subscribe({
        groupId: uniqueName('group'),
        topic,
        handler: (batch) => {
          batches.push(batch);
          return Promise.resolve();
        },
      });
      await until(() => expect(batches.flatMap((b) => b.messages)).toHaveLength(50));

      const messages = batches.flatMap((b) => b.messages);
      const byTrace = new Map(messages.map((m) => [m.headers.trace, m]));
      produced.forEach((p, i) => {
        const got = byTrace.get(`t-${i}`);
        expect(got?.key).toBe(p.key);
        expect(got?.value.equals(p.value)).toBe(true);
        expect(got?.topic).toBe(topic);
      });
      for (const batch of batches) {
        expect(batch.topic).toBe(topic);
        expect(batch.messages.every((m) => m.partition === batch.partition)).toBe(true);
      }
      for (const partition of [0, 1]) {
        const offsets = messages.filter((m) => m.partition === partition).map((m) => Number(m.offset));
        expect(offsets).toEqual([...offsets].sort((x, y) => x - y));
        expect(new Set(offsets).size).toBe(offsets.length);
      }
    });

    it('keeps each key in order across partitions and never handles one partition twice at a time', async () => {
      const topic = await newTopic(4);
      const received: Received[] = [];
      const busy = new Set<number>();
      let overlaps = 0;
      await subscribe({
        groupId: uniqueName('group'),
        topic,
        handler: async (batch) => {
          if (busy.has(batch.partition)) overlaps++;
          busy.add(batch.partition);
          // Some asynchronous work, so that overlapping batches would really overlap.
          await new Promise((resolve) => setImmediate(resolve));
          received.push(...decode(batch));
          busy.delete(batch.partition);
        },
      });
      // 1000 messages over 10 keys, produced in ten calls so that batches interleave with production.
      const messages = spread(1000, 10);
      for (let i = 0; i < 1000; i += 100) await bus.produce(topic, messages.slice(i, i + 100));

      await until(() => expect(received).toHaveLength(1000));
      expect(overlaps).toBe(0);
      for (let k = 0; k < 10; k++) {
        const ofKey = received.filter((r) => r.key === `key-${k}`);
        expect(ofKey.map((r) => r.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i));
        expect(new Set(ofKey.map((r) => r.partition)).size).toBe(1);
      }
      // Ten keys over four partitions: more than one partition is in use, or order would be trivial.
      expect(new Set(received.map((r) => r.partition)).size).toBeGreaterThan(1);
    });

    it('delivers a batch whose handler threw again, from its first message, skipping and losing nothing', async () => {
      const topic = await newTopic(2);
      await bus.produce(topic, spread(40, 4));
      const attempts: Array<{ partition: number; firstOffset: number; ok: boolean }> = [];
      const done: Received[] = [];
      let failed: { partition: number; firstOffset: number } | undefined;
      await subscribe({
        groupId: uniqueName('group'),
        topic,
        handler: (batch) => {
          const messages = decode(batch);
          const firstOffset = messages[0]!.offset;
          if (!failed) {
            failed = { partition: batch.partition, firstOffset };
            attempts.push({ partition: batch.partition, firstOffset, ok: false });
            // A TypeError on purpose: kafkajs treats one as fatal unless the bus says otherwise, and a
            // bug in a handler must mean "retry", never "stop consuming".
            return Promise.reject(new TypeError('simulated failure'));
          }
          attempts.push({ partition: batch.partition, firstOffset, ok: true });
          done.push(...messages);
          return Promise.resolve();
        },
      });

      await until(() => expect(done).toHaveLength(40));
      // The next attempt on the failed partition starts where the failed batch started.
      const next = attempts.slice(1).find((a) => a.partition === failed!.partition);
      expect(next).toEqual({ ...failed, ok: true });
      // Every message was finished exactly once, and each partition's offsets have no gap.
      expect(new Set(ids(done)).size).toBe(40);
      for (const partition of new Set(done.map((r) => r.partition))) {
        const offsets = done.filter((r) => r.partition === partition).map((r) => r.offset);
        expect(offsets).toEqual(Array.from({ length: offsets.length }, (_, i) => offsets[0]! + i));
      }
    });

    it('resumes a group at the first unfinished message after its member stopped', async () => {
      const topic = await newTopic(1);
      const groupId = uniqueName('group');
      const firstDone: Received[] = [];
      let failures = 0;
      // The first member finishes messages 0..9, then fails every batch that holds later ones.
      const first = await subscribe({
        groupId,
        topic,
        handler: (batch) => {
          const messages = decode(batch);
          if (messages.some((m) => m.seq >= 10)) {
            failures++;
            return Promise.reject(new Error('simulated failure'));
          }
          firstDone.push(...messages);
          return Promise.resolve();
        },
      });
      await bus.produce(topic, Array.from({ length: 10 }, (_, i) => message('k', i)));
      await until(() => expect(firstDone).toHaveLength(10));
      await bus.produce(topic, Array.from({ length: 20 }, (_, i) => message('k', 10 + i)));
      await until(() => expect(failures).toBeGreaterThan(0));
      await first.stop();

      const secondDone: Received[] = [];
      await subscribe({ groupId, topic, handler: collect(secondDone) });
      await until(() => expect(secondDone.length).toBeGreaterThanOrEqual(20));
      // Finished messages are not delivered again; the unfinished ones all are, in order.
      expect(secondDone.map((r) => r.seq)).toEqual(Array.from({ length: 20 }, (_, i) => 10 + i));
      expect(firstDone.map((r) => r.seq)).toEqual(Array.from({ length: 10 }, (_, i) => i));
    });

    it('lets stop() finish and commit the batch in progress', async () => {
      const topic = await newTopic(1);
      const groupId = uniqueName('group');
      const idleTopic = await newTopic(1);
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      const firstDone: Received[] = [];
      const order: string[] = [];
      let started = 0;
      const first = await subscribe({
        groupId,
        topic,
        handler: async (batch) => {
          started++;
          await released;
          firstDone.push(...decode(batch));
          order.push('handler finished');
        },
      });
      await bus.produce(topic, Array.from({ length: 5 }, (_, i) => message('k', i)));
      await until(() => expect(started).toBe(1));

      const stopping = first.stop().then(() => order.push('stop resolved'));
      // Nothing announces that a stop has not finished, so the test waits for something that takes
      // longer than any stop that skips the wait for the handler: another member, begun after that
      // stop, joins a group and then stops (stops fetching, leaves, disconnects), with no batch to
      // wait for. A stop that does not wait does no more than that second half, so once the other
      // member's stop has resolved, and one more turn of the event loop has run what it released,
      // such a stop would have resolved as well.
      const idle = await subscribe({ groupId: uniqueName('idle'), topic: idleTopic, handler: collect([]) });
      await idle.stop();
      await new Promise((resolve) => setImmediate(resolve));
      expect(order, 'stop() resolved while the handler was still running').toEqual([]);
      release();
      await stopping;
      expect(order).toEqual(['handler finished', 'stop resolved']);
      expect(firstDone).toHaveLength(5);

      await bus.produce(topic, [message('k', 5)]);
      const secondDone: Received[] = [];
      await subscribe({ groupId, topic, handler: collect(secondDone) });
      await until(() => expect(secondDone).toHaveLength(1));
      expect(secondDone[0]!.seq).toBe(5);
    });

    it('gives every group all messages', async () => {
      const topic = await newTopic(2);
      const a: Received[] = [];
      const b: Received[] = [];
      await subscribe({ groupId: uniqueName('group_a'), topic, handler: collect(a) });
      await subscribe({ groupId: uniqueName('group_b'), topic, handler: collect(b) });
      const produced = spread(40, 8);
      await bus.produce(topic, produced);
      await until(() => {
        expect(a).toHaveLength(40);
        expect(b).toHaveLength(40);
      });
      const expected = sentIds(produced).sort();
      expect(ids(a).sort()).toEqual(expected);
      expect(ids(b).sort()).toEqual(expected);
    });

    it('splits partitions between the members of a group, which together see everything once', async () => {
      const topic = await newTopic(4);
      const groupId = uniqueName('group');
      const one: Received[] = [];
      const two: Received[] = [];
      const busy = new Set<number>();
      let overlaps = 0;
      const member = (into: Received[]): BatchHandler => async (batch) => {
        if (busy.has(batch.partition)) overlaps++;
        busy.add(batch.partition);
        await new Promise((resolve) => setImmediate(resolve));
        into.push(...decode(batch));
        busy.delete(batch.partition);
      };
      await subscribe({ groupId, topic, handler: member(one) });
      await subscribe({ groupId, topic, handler: member(two) });
      await bus.produce(topic, spread(200, 20));

      await until(() => expect(new Set(ids([...one, ...two])).size).toBe(200));
      // Both members were in the group before anything was produced: no rebalance, so no duplicates.
      expect(one.length + two.length).toBe(200);
      expect(overlaps).toBe(0);
      expect(one.length).toBeGreaterThan(0);
      expect(two.length).toBeGreaterThan(0);
      const partitionsOfOne = new Set(one.map((r) => r.partition));
      expect(two.some((r) => partitionsOfOne.has(r.partition))).toBe(false);
    });

    it('starts a new group at the end of the log when it does not read from the beginning', async () => {
      const topic = await newTopic(1);
      await bus.produce(topic, [message('k', 0)]);
      const received: Received[] = [];
      await subscribe({ groupId: uniqueName('group'), topic, fromBeginning: false, handler: collect(received) });
      // The position is fixed at the member's first fetch, which may come just after subscribe
      // resolved (see SubscribeOptions), so the test keeps producing until something arrives.
      let seq = 1;
      await until(async () => {
        await bus.produce(topic, [message('k', seq++)]);
        expect(received.length).toBeGreaterThan(0);
      });
      const seqs = received.map((r) => r.seq);
      expect(seqs).not.toContain(0);
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => seqs[0]! + i));
    });

    it('starts a new group where another group is when told to, and from then on at its own offsets', async () => {
      const topic = await newTopic(2);
      const leader = uniqueName('group_leader');
      const follower = uniqueName('group_follower');
      // A group that finishes nothing: where the log is trimmed to what some group still needs, this
      // keeps the early messages, so that a follower starting from the beginning would see them.
      let held = 0;
      const holding = await subscribe({
        groupId: uniqueName('group_holder'),
        topic,
        handler: () => {
          held++;
          return Promise.reject(new Error('holds the log'));
        },
      });
      const early = spread(20, 4);
      await bus.produce(topic, early);
      const led: Received[] = [];
      const leading = await subscribe({ groupId: leader, topic, handler: collect(led) });
      await until(() => expect(led).toHaveLength(20));
      await until(() => expect(held).toBeGreaterThan(0));
      await Promise.all([leading.stop(), holding.stop()]);

      const later = spread(30, 4).slice(20);
      await bus.produce(topic, later);
      const followed: Received[] = [];
      const following = await subscribe({ groupId: follower, topic, startAtGroup: leader, handler: collect(followed) });
      await until(() => expect(followed).toHaveLength(10));
      // The leader's finished messages are not read again: the follower began where the leader stopped.
      expect(ids(followed).sort()).toEqual(sentIds(later).sort());
      await following.stop();

      // Once the follower has offsets of its own, they win over the leader's (still at message 20).
      const last = spread(35, 4).slice(30);
      await bus.produce(topic, last);
      const resumed: Received[] = [];
      await subscribe({ groupId: follower, topic, startAtGroup: leader, handler: collect(resumed) });
      await until(() => expect(resumed).toHaveLength(5));
      expect(ids(resumed).sort()).toEqual(sentIds(last).sort());
    });

    it('starts a group told to follow one that never consumed as fromBeginning says', async () => {
      const topic = await newTopic(2);
      await bus.produce(topic, spread(12, 4));
      const fresh: Received[] = [];
      await subscribe({ groupId: uniqueName('group_fresh'), topic, startAtGroup: uniqueName('group_absent'), handler: collect(fresh) });
      await until(() => expect(fresh).toHaveLength(12));
    });

    it('stops its subscriptions on close and refuses work afterwards', async () => {
      const topic = await newTopic(1);
      const received: Received[] = [];
      await subscribe({ groupId: uniqueName('group'), topic, handler: collect(received) });
      await bus.produce(topic, [message('k', 0)]);
      await until(() => expect(received).toHaveLength(1));
      await bus.close();
      await expect(bus.produce(topic, [message('k', 1)])).rejects.toThrow(/closed/);
      await expect(bus.ping()).rejects.toThrow(/closed/);
      await expect(bus.subscribe({ groupId: uniqueName('group'), topic, handler: collect([]) })).rejects.toThrow(/closed/);
    });
  });
}

describe('KafkaBus when the cluster cannot be reached', () => {
  let bus: KafkaBus;

  beforeEach(async () => {
    bus = new KafkaBus({ brokers: [`127.0.0.1:${await freePort()}`], clientId: uniqueName('unreachable'), fetch: KAFKA_FETCH_DEFAULTS });
  });

  afterEach(async () => {
    await bus.close();
  });

  it('fails ping within the readiness budget', async () => {
    const started = Date.now();
    await expect(bus.ping()).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('rejects produce within seconds instead of retrying for minutes', async () => {
    const started = Date.now();
    await expect(bus.produce('any-topic', [message('k', 0)])).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(8000);
  });
});

describe('KafkaBus: a consumer that crashed', () => {
  /** A bus that records the consumers it replaced, and its log. */
  function recordingBus(): { bus: KafkaBus; replaced: string[]; lines: () => string[] } {
    const replaced: string[] = [];
    const { logger, lines } = capturingLogger();
    const bus = new KafkaBus({
      brokers: stackEnv().kafkaBrokers,
      clientId: uniqueName('bus_crash'),
      fetch: KAFKA_FETCH_DEFAULTS,
      logger,
      metrics: {
        produced: () => undefined,
        produceFailed: () => undefined,
        consumerLag: () => undefined,
        partitionsAssigned: () => undefined,
        consumerReplaced: (topic) => replaced.push(topic),
      },
    });
    return { bus, replaced, lines };
  }

  it('is replaced by a new one, which takes up the failed batch where it started', { timeout: 120_000 }, async () => {
    const { bus, replaced, lines } = recordingBus();
    let subscription: Subscription | undefined;
    try {
      const topic = uniqueName('test_crash');
      await bus.ensureTopic(topic, 1);
      await bus.produce(topic, spread(5, 1));
      // The fetch loop tries a batch 6 times (once, then its 5 retries) before the consumer crashes.
      // Failing 7 times makes the replacement fail once too before it succeeds.
      const attempts: number[] = [];
      const done: Received[] = [];
      subscription = await bus.subscribe({
        groupId: uniqueName('group'),
        topic,
        handler: (batch) => {
          const messages = decode(batch);
          attempts.push(messages[0]!.offset);
          if (attempts.length <= 7) return Promise.reject(new Error('simulated failure'));
          done.push(...messages);
          return Promise.resolve();
        },
      });

      await until(() => expect(done).toHaveLength(5), 90_000);
      expect(replaced).toEqual([topic]);
      expect(lines().filter((line) => line.includes('Kafka consumer crashed; a new one takes its place'))).toHaveLength(1);
      expect(lines().some((line) => line.includes('Kafka consumer replaced; consuming again'))).toBe(true);
      // Every attempt started at the batch's first message, and nothing was skipped or doubled.
      expect(new Set(attempts)).toEqual(new Set([0]));
      expect(done.map((r) => r.seq)).toEqual([0, 1, 2, 3, 4]);
    } finally {
      await subscription?.stop();
      await bus.close();
    }
  });

  it('leaves no consumer behind when stopped while its replacement is under way', { timeout: 120_000 }, async () => {
    const { bus, replaced } = recordingBus();
    const otherClientId = uniqueName('bus_successor');
    const other = new KafkaBus({ brokers: stackEnv().kafkaBrokers, clientId: otherClientId, fetch: KAFKA_FETCH_DEFAULTS });
    let successor: Subscription | undefined;
    try {
      const topic = uniqueName('test_crash');
      const groupId = uniqueName('group');
      await bus.ensureTopic(topic, 1);
      await bus.produce(topic, spread(5, 1));
      let failing = 0;
      const crashing = await bus.subscribe({
        groupId,
        topic,
        handler: () => {
          failing += 1;
          return Promise.reject(new Error('simulated failure'));
        },
      });
      await until(() => expect(replaced).toEqual([topic]), 60_000);
      await crashing.stop();
      const failingWhenStopped = failing;

      // A member of the same group that succeeds gets the partition and everything in it.
      const done: Received[] = [];
      successor = await other.subscribe({ groupId, topic, handler: collect(done) });
      await until(() => expect(done).toHaveLength(5), 60_000);
      expect(done.map((r) => r.seq)).toEqual([0, 1, 2, 3, 4]);

      // A replacement left running would join the group within about a second of the crash (its
      // backoff, then a join). Absence takes a window to show: the group is watched for three
      // seconds, and it must hold the successor alone all along.
      const admin = new Kafka({ brokers: stackEnv().kafkaBrokers, clientId: uniqueName('bus_crash_admin'), logLevel: logLevel.NOTHING }).admin();
      await admin.connect();
      try {
        const watchUntil = Date.now() + 3000;
        while (Date.now() < watchUntil) {
          const [group] = (await admin.describeGroups([groupId])).groups;
          expect(group?.members.map((m) => m.clientId)).toEqual([otherClientId]);
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      } finally {
        await admin.disconnect();
      }
      expect(failing).toBe(failingWhenStopped);
      expect(replaced).toEqual([topic]);
    } finally {
      await successor?.stop();
      await Promise.all([bus.close(), other.close()]);
    }
  });
});

describe("KafkaBus: a throughput subscriber's fetch waits for its minimum bytes or its longest wait", () => {
  const WAIT_MS = 4000;
  /** 20 messages of about 40 bytes, each its own produce call: a little under 1 KiB in the log. */
  const COUNT = 20;

  /** Time from joining to the first batch, for a bus whose fetch waits for `minBytes` or WAIT_MS, and that batch. */
  async function firstBatchAfterJoining(minBytes: number): Promise<{ ms: number; received: Received[] }> {
    const bus = new KafkaBus({ brokers: stackEnv().kafkaBrokers, clientId: uniqueName('bus_fetch'), fetch: { minBytes, maxWaitMs: WAIT_MS } });
    let subscription: Subscription | undefined;
    try {
      const topic = uniqueName('test_fetch');
      await bus.ensureTopic(topic, 1);
      for (let seq = 0; seq < COUNT; seq++) await bus.produce(topic, [message('k', seq)]);
      const batches: Received[][] = [];
      subscription = await bus.subscribe({
        groupId: uniqueName('group'),
        topic,
        handler: (batch) => {
          batches.push(decode(batch));
          return Promise.resolve();
        },
      });
      const joined = performance.now();
      await until(() => expect(batches.length).toBeGreaterThan(0));
      return { ms: performance.now() - joined, received: batches[0]! };
    } finally {
      await subscription?.stop();
      await bus.close();
    }
  }

  it('holds a fetch with less than its minimum until the wait is over, and then brings all of it', async () => {
    const { ms, received } = await firstBatchAfterJoining(64 * 1024);
    expect(ms).toBeGreaterThanOrEqual(WAIT_MS - 1000);
    expect(received.map((r) => r.seq)).toEqual(Array.from({ length: COUNT }, (_, i) => i));
  });

  it('answers a fetch at once when its minimum is there', async () => {
    const { ms, received } = await firstBatchAfterJoining(256);
    expect(ms).toBeLessThan(WAIT_MS - 1500);
    expect(received.length).toBeGreaterThan(0);
  });
});

describe("KafkaBus: a latency subscriber's batches under a stream of messages", () => {
  interface Timed {
    readonly bus: KafkaBus;
    readonly topic: string;
    /** When each batch was handed over, and the batches. */
    readonly starts: number[];
    readonly batches: ConsumedBatch[];
    readonly subscribe: () => Promise<void>;
  }

  /** A bus that spaces latency batches by `gapMs`, a topic of one partition, and a latency subscriber to it that notes its batches. */
  async function withTimedSubscriber(gapMs: number, body: (timed: Timed) => Promise<void>): Promise<void> {
    const bus = new KafkaBus({ brokers: stackEnv().kafkaBrokers, clientId: uniqueName('bus_gap'), fetch: KAFKA_FETCH_DEFAULTS, latencyGapMs: gapMs });
    let subscription: Subscription | undefined;
    try {
      const topic = uniqueName('test_gap');
      await bus.ensureTopic(topic, 1);
      const starts: number[] = [];
      const batches: ConsumedBatch[] = [];
      const handler: BatchHandler = (batch) => {
        starts.push(performance.now());
        batches.push(batch);
        return Promise.resolve();
      };
      await body({
        bus,
        topic,
        starts,
        batches,
        subscribe: async () => {
          subscription = await bus.subscribe({ groupId: uniqueName('group'), topic, batching: 'latency', handler });
        },
      });
    } finally {
      await subscription?.stop();
      await bus.close();
    }
  }

  it('hand over a message after a quiet spell at once, then start at most once per gap, with what arrived meanwhile', async () => {
    const GAP_MS = 1000;
    await withTimedSubscriber(GAP_MS, async ({ bus, topic, starts, batches, subscribe }) => {
      await subscribe();
      const received = (): Received[] => batches.flatMap(decode);
      const producedAt = performance.now();
      await bus.produce(topic, [message('k', 0)]);
      await until(() => expect(received()).toHaveLength(1));
      expect(starts[0]! - producedAt).toBeLessThan(GAP_MS);
      // A stream: each message its own produce call, sent once the one before was acknowledged.
      const COUNT = 30;
      for (let seq = 1; seq < COUNT; seq++) await bus.produce(topic, [message('k', seq)]);
      await until(() => expect(received()).toHaveLength(COUNT));
      expect(received().map((r) => r.seq)).toEqual(Array.from({ length: COUNT }, (_, i) => i));
      expect(starts.length).toBeLessThan(COUNT);
      // A timer may fire a moment early against performance.now(); a fetch per produce call would be milliseconds apart.
      for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(GAP_MS - 5);
    });
  });

  it('fetch again at once while they are behind on a backlog', async () => {
    const GAP_MS = 5000;
    await withTimedSubscriber(GAP_MS, async ({ bus, topic, starts, batches, subscribe }) => {
      // 20 MiB in messages of 1 MiB: more than one fetch brings (8 MiB a partition).
      const COUNT = 20;
      for (let seq = 0; seq < COUNT; seq++) await bus.produce(topic, [{ key: 'k', value: Buffer.alloc(1024 * 1024, seq) }]);
      await subscribe();
      await until(() => expect(batches.reduce((n, batch) => n + batch.messages.length, 0)).toBe(COUNT));
      expect(starts.length).toBeGreaterThan(1);
      expect(starts[starts.length - 1]! - starts[0]!).toBeLessThan(GAP_MS);
    });
  });
});

/** kafkajs's per-connection request queue, whose pushes show which requests the bus sends. */
const kafkajsRequestQueue = createRequire(import.meta.url)(KAFKAJS_REQUEST_QUEUE_MODULE) as { prototype: { push(pushed: { entry: { apiName: string } }): void } };

describe('KafkaBus: idle connections', () => {
  it('run no timer loop while nothing is produced or waiting', async () => {
    const bus = new KafkaBus({ brokers: stackEnv().kafkaBrokers, clientId: uniqueName('bus_idle'), fetch: { minBytes: 1024 * 1024, maxWaitMs: 500 } });
    let subscription: Subscription | undefined;
    try {
      const topic = uniqueName('test_idle');
      await bus.ensureTopic(topic, 1);
      const received: Received[] = [];
      subscription = await bus.subscribe({ groupId: uniqueName('group'), topic, handler: collect(received) });
      await bus.produce(topic, [message('k', 0)]);
      await until(() => expect(received).toHaveLength(1));
      // Every connection (the producer's, the consumer's, its coordinator's) has had its responses by
      // now. While the consumer's next two fetches wait out their 500 ms on the broker, the bus may time
      // its fetches and heartbeats; kafkajs's idle loop scheduled a check per connection every millisecond.
      const shortTimers = vi.spyOn(globalThis, 'setTimeout');
      const requests = vi.spyOn(kafkajsRequestQueue.prototype, 'push');
      try {
        await until(() => expect(requests.mock.calls.filter(([pushed]) => pushed.entry.apiName === 'Fetch').length).toBeGreaterThanOrEqual(2));
        const loopLike = shortTimers.mock.calls.filter(([, ms]) => typeof ms !== 'number' || ms < 10);
        expect(loopLike.length).toBeLessThan(50);
      } finally {
        requests.mockRestore();
        shortTimers.mockRestore();
      }
    } finally {
      await subscription?.stop();
      await bus.close();
    }
  });
});
