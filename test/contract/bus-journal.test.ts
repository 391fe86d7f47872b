import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryBus } from '../../src/adapters/bus/memory-bus.js';
import { SqliteBusJournal } from '../../src/adapters/bus/sqlite-journal.js';
import type { BatchHandler, ConsumedMessage } from '../../src/ports/message-bus.js';
import { temporaryJournalPath } from '../helpers/bus-journal.js';

/**
 * The in-process bus with its SQLite journal (embedded mode's durability) across restarts. A crash is
 * a second bus opened on the same journal while the first one is stuck in its handlers, never closed:
 * only what the first one wrote to the journal can reach the second.
 */
const buses: MemoryBus[] = [];
const releases: Array<() => void> = [];

function openBus(path: string, maxRetainedBytesPerTopic?: number): MemoryBus {
  const bus = new MemoryBus({ retryBackoff: { initialMs: 20, maxMs: 200 }, journal: new SqliteBusJournal(path), maxRetainedBytesPerTopic });
  buses.push(bus);
  return bus;
}

afterEach(async () => {
  for (const release of releases.splice(0)) release();
  await Promise.all(buses.splice(0).map((bus) => bus.close()));
});

/** Finishes batches whose every message is below `seq` `finishBelow`; holds any other batch forever (until the test ends). */
function finishingBelow(finishBelow: number, done: ConsumedMessage[]): BatchHandler {
  return (batch) => {
    if (batch.messages.every((m) => seqOf(m) < finishBelow)) {
      done.push(...batch.messages);
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => releases.push(resolve));
  };
}

function collect(into: ConsumedMessage[]): BatchHandler {
  return (batch) => {
    into.push(...batch.messages);
    return Promise.resolve();
  };
}

/** Each value: the seq as a byte, then bytes that are not UTF-8, so a text round trip would show. */
function value(seq: number): Buffer {
  return Buffer.from([seq, 0xff, 0x00, 0xfe]);
}

function seqOf(message: ConsumedMessage): number {
  return message.value[0]!;
}

const until = (assertion: () => void): Promise<void> => vi.waitFor(assertion, { timeout: 10_000, interval: 10 });

describe('MemoryBus with a SQLite journal, across restarts', () => {
  it('delivers every message a group had not finished, at its offset and byte for byte, and keeps the topic as it was', async () => {
    const path = temporaryJournalPath();
    const first = openBus(path);
    await first.ensureTopic('events', 2);
    const finishedA: ConsumedMessage[] = [];
    const finishedB: ConsumedMessage[] = [];
    await first.subscribe({ groupId: 'a', topic: 'events', handler: finishingBelow(5, finishedA) });
    await first.subscribe({ groupId: 'b', topic: 'events', handler: finishingBelow(2, finishedB) });
    // One at a time while the handlers finish them, so that batches hold what each test step expects.
    for (let seq = 0; seq < 10; seq++) {
      await first.produce('events', [{ key: 'app-1', value: value(seq), headers: { seq: String(seq) } }]);
      if (seq < 5) await until(() => expect(finishedA).toHaveLength(seq + 1));
      if (seq < 2) await until(() => expect(finishedB).toHaveLength(seq + 1));
    }

    // The first bus is stuck in its handlers and never closed: a crash, as far as the journal knows.
    const second = openBus(path);
    // A journaled topic keeps its partition count, so a key keeps its partition.
    await second.ensureTopic('events', 8);
    const againA: ConsumedMessage[] = [];
    await second.subscribe({ groupId: 'a', topic: 'events', handler: collect(againA) });
    await until(() => expect(againA).toHaveLength(5));
    expect(againA.map(seqOf)).toEqual([5, 6, 7, 8, 9]);
    const partition = finishedA[0]!.partition;
    for (const message of againA) {
      expect(message.partition).toBe(partition);
      expect(message.offset).toBe(String(seqOf(message)));
      expect(message.value.equals(value(seqOf(message)))).toBe(true);
      expect(message.headers).toEqual({ seq: String(seqOf(message)) });
      expect(message.key).toBe('app-1');
    }

    // Group b, known only from the journal, held its messages while group a finished them all.
    const againB: ConsumedMessage[] = [];
    await second.subscribe({ groupId: 'b', topic: 'events', handler: collect(againB) });
    await until(() => expect(againB).toHaveLength(8));
    expect(againB.map(seqOf)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('goes on counting offsets after a restart that found every message finished', async () => {
    const path = temporaryJournalPath();
    const first = openBus(path);
    await first.ensureTopic('events', 1);
    const done: ConsumedMessage[] = [];
    await first.subscribe({ groupId: 'a', topic: 'events', handler: collect(done) });
    await first.produce('events', [0, 1, 2].map((seq) => ({ key: 'k', value: value(seq) })));
    await until(() => expect(done).toHaveLength(3));
    await first.close();

    const second = openBus(path);
    await second.ensureTopic('events', 1);
    const afterRestart: ConsumedMessage[] = [];
    const newGroup: ConsumedMessage[] = [];
    await second.subscribe({ groupId: 'a', topic: 'events', handler: collect(afterRestart) });
    await second.subscribe({ groupId: 'new', topic: 'events', handler: collect(newGroup) });
    await second.produce('events', [{ key: 'k', value: value(3) }]);
    await until(() => expect(afterRestart).toHaveLength(1));
    await until(() => expect(newGroup).toHaveLength(1));
    // Offsets are never reused: 0–2 were finished and trimmed, so the next message is 3 for every group.
    expect(afterRestart.map((m) => [m.offset, seqOf(m)])).toEqual([['3', 3]]);
    expect(newGroup.map((m) => [m.offset, seqOf(m)])).toEqual([['3', 3]]);
  });

  it('refuses a produce past its retention bound, writes nothing of it, and accepts again once the group caught up', async () => {
    const path = temporaryJournalPath();
    // Four values of 4 bytes fit; the fifth does not.
    const bus = openBus(path, 16);
    await bus.ensureTopic('events', 1);
    for (let seq = 0; seq < 4; seq++) await bus.produce('events', [{ key: 'k', value: value(seq) }]);
    await expect(bus.produce('events', [{ key: 'k', value: value(4) }])).rejects.toThrow(/holds 16 bytes its consumers have not finished/);

    const done: ConsumedMessage[] = [];
    await bus.subscribe({ groupId: 'a', topic: 'events', handler: collect(done) });
    await until(() => expect(done).toHaveLength(4));
    // Accepted once the group's commit has released the four (just after its handler returned).
    await vi.waitFor(() => bus.produce('events', [{ key: 'k', value: value(5) }]), { timeout: 10_000, interval: 10 });
    await until(() => expect(done).toHaveLength(5));
    // The refused message never reached the journal: offsets run on without a gap.
    expect(done.map((m) => [m.offset, seqOf(m)])).toEqual([['0', 0], ['1', 1], ['2', 2], ['3', 3], ['4', 5]]);
  });
});
