import type { Logger } from '../../observability/logger.js';
import type { ConsumedBatch, MessageBus, SubscribeOptions, Subscription } from '../../ports/message-bus.js';
import type { OutgoingMessage } from '../../domain/messages/outgoing-message.js';

/**
 * Embedded mode's bus: Kafka's semantics in process memory, so the pipeline cannot tell the two apart
 * (both pass test/contract/bus.contract.test.ts).
 *
 * - Each topic is a set of partitioned logs; a key always maps to the same partition.
 * - Each consumer group keeps a committed offset per partition. One loop per group and partition hands
 *   out batches from that offset, one at a time unless the subscriber allows more in flight, and moves
 *   the offset past a batch only after the handler returned for it and for every batch before it. A
 *   handler that throws gets the same batch again (to whichever member owns the partition then), so
 *   the delivery is at-least-once and in order.
 * - Members of one group split the partitions (partition p goes to member p mod n, in join order);
 *   every group receives every message.
 * - Memory stays bounded by consumption: messages below the lowest committed offset of all groups of
 *   the topic are dropped. Until a first group subscribes nothing is dropped, so a worker that starts
 *   after the API has accepted events still gets them. Like Kafka, a group keeps its offsets after its
 *   members leave, so a group that never comes back keeps the log from shrinking (embedded mode uses a
 *   fixed set of groups, all started with the process).
 *
 * `produce` resolves once the messages are in the log. With a journal (embedded mode: sqlite-journal.ts)
 * they are also written to it by then, so they survive the process; committed offsets are written
 * there too, and a bus opened again on the same journal starts where the last one stopped: every
 * message not yet committed by every group is delivered again. Without one the bus forgets everything
 * with the process (tests).
 */

/**
 * Where a durable bus keeps its messages and offsets. Calls are synchronous and each is atomic: when
 * one returns, what it wrote survives the process; when it throws, nothing of it was written.
 */
export interface BusJournal {
  /**
   * The topic as journaled: its partition count (`partitions` when the topic is new; a journaled
   * topic keeps its own, as Kafka keeps a topic's), its retained messages and every group's offsets.
   */
  openTopic(topic: string, partitions: number): JournaledTopic;
  /** Messages appended to the topic's partitions, at the offsets given. */
  append(topic: string, messages: readonly JournaledMessage[]): void;
  /** A group's committed offset on one partition; messages below `retainFrom` are no longer needed. */
  commit(topic: string, groupId: string, partition: number, offset: number, retainFrom: number): void;
  close(): void;
}

export interface RetainedMessage {
  readonly key: string;
  readonly value: Buffer;
  readonly headers: Readonly<Record<string, string>>;
}

export interface JournaledMessage extends RetainedMessage {
  readonly partition: number;
  readonly offset: number;
}

export interface JournaledTopic {
  readonly partitions: number;
  /** Per partition: the offset of its first retained message, and the retained messages in order. */
  readonly retained: readonly { readonly startOffset: number; readonly messages: readonly RetainedMessage[] }[];
  /** Per group that ever committed: the next offset to deliver, per partition. */
  readonly committed: ReadonlyMap<string, readonly number[]>;
}

export interface MemoryBusOptions {
  /** Most messages handed to a handler at once (default 500, the same order as a Kafka fetch). */
  readonly maxBatchSize?: number;
  /**
   * Most bytes of message values handed to a handler at once, though never fewer than one message
   * (default 4 MiB, as a Kafka fetch of one partition: kafka-bus.ts).
   */
  readonly maxBatchBytes?: number;
  /**
   * How a fetch of a `throughput` subscription waits for more, as a Kafka fetch does (fetch.min.bytes,
   * fetch.max.wait.ms): once a partition has something for the group, the batch is handed over when it
   * holds `minBytes` of values (or the most a batch may hold), or `maxWaitMs` after its first message
   * was produced, whichever comes first. Default: no wait, each batch is what is there. Few large
   * batches are what a columnar store wants: each INSERT is a part on disk for its merges to fold.
   *
   * The wait counts from the first message's produce, not from the fetch: messages that arrived while
   * the handler worked on the batch before have waited already, so a busy consumer takes them at once
   * and a message waits at most `maxWaitMs` plus one batch's handling, never that plus another wait.
   * Messages restored from the journal at start count as having waited.
   */
  readonly fetchWait?: { readonly minBytes: number; readonly maxWaitMs: number };
  /**
   * How long a batch of a `latency` subscription may wait for more after its first message was
   * produced, counted as for `fetchWait` (default: none, each batch is what is there). A few
   * milliseconds gather the produce calls of a busy edge into one batch, and so into one handler call
   * and one journaled commit, instead of one per produce call; an alert waits that much longer.
   */
  readonly latencyWaitMs?: number;
  /** Makes the bus durable: see BusJournal. */
  readonly journal?: BusJournal;
  /**
   * Most bytes of message values a topic retains (produced, not yet committed by every group); a
   * produce that would pass it is refused (BusFullError), so that a consumer stuck for long (its
   * store down) bounds the process's memory and journal instead of exhausting them. Default: no bound.
   */
  readonly maxRetainedBytesPerTopic?: number;
  /**
   * Wait before a failed batch is delivered again: `initialMs`, doubled after each consecutive
   * failure up to `maxMs` (default 100 ms to 2 s). Short enough that a transient failure (a store
   * restarting) costs little latency, long enough that a persistent one does not spin a CPU core.
   */
  readonly retryBackoff?: { readonly initialMs: number; readonly maxMs: number };
  /** Receives handler failures (each one is retried, so this is a warning, not an error). */
  readonly logger?: Pick<Logger, 'warn'>;
}

/** A produce refused because the topic already retains as much as the bus may hold for it. */
export class BusFullError extends Error {
  constructor(topic: string, retainedBytes: number) {
    super(`topic ${topic} holds ${retainedBytes} bytes its consumers have not finished; refusing more until they catch up`);
    this.name = 'BusFullError';
  }
}

export class MemoryBus implements MessageBus {
  readonly #topics = new Map<string, Topic>();
  readonly #subscriptions = new Set<Subscription>();
  readonly #maxBatchSize: number;
  readonly #maxBatchBytes: number;
  readonly #fetchWait: MemoryBusOptions['fetchWait'];
  readonly #latencyWait: MemoryBusOptions['fetchWait'];
  readonly #journal: BusJournal | undefined;
  readonly #maxRetainedBytes: number;
  readonly #backoff: { readonly initialMs: number; readonly maxMs: number };
  readonly #logger: Pick<Logger, 'warn'> | undefined;
  #closed = false;

  constructor(options: MemoryBusOptions = {}) {
    this.#maxBatchSize = options.maxBatchSize ?? 500;
    this.#maxBatchBytes = options.maxBatchBytes ?? 4 * 1024 * 1024;
    this.#fetchWait = options.fetchWait;
    this.#latencyWait = options.latencyWaitMs === undefined ? undefined : { minBytes: Number.POSITIVE_INFINITY, maxWaitMs: options.latencyWaitMs };
    this.#journal = options.journal;
    this.#maxRetainedBytes = options.maxRetainedBytesPerTopic ?? Number.POSITIVE_INFINITY;
    this.#backoff = options.retryBackoff ?? { initialMs: 100, maxMs: 2000 };
    this.#logger = options.logger;
  }

  ensureTopic(topic: string, partitions: number): Promise<void> {
    return attempt(() => {
      this.#assertOpen();
      if (!Number.isInteger(partitions) || partitions < 1) throw new RangeError(`partitions must be a positive integer, got ${partitions}`);
      // Like Kafka's CreateTopics on an existing topic: nothing changes, not even the partition count.
      if (!this.#topics.has(topic)) this.#topics.set(topic, new Topic(topic, this.#journal?.openTopic(topic, partitions) ?? { partitions, retained: [], committed: new Map() }));
    });
  }

  produce(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    return attempt(() => {
      this.#assertOpen();
      const log = this.#topic(topic);
      const bytes = messages.reduce((sum, message) => sum + message.value.length, 0);
      const retained = log.partitions.reduce((sum, partition) => sum + partition.retainedBytes, 0);
      if (retained > 0 && retained + bytes > this.#maxRetainedBytes) throw new BusFullError(topic, retained);
      const ends = log.partitions.map((partition) => partition.endOffset);
      const producedAt = performance.now();
      const appended = messages.map((message): JournaledMessage => {
        const partition = partitionOf(message.key, log.partitions.length);
        // Copies, so that a caller reusing its buffer or headers object cannot change what was produced.
        return { partition, offset: ends[partition]!++, key: message.key, value: Buffer.from(message.value), headers: Object.freeze({ ...message.headers }) };
      });
      // On disk first: when the journal refuses, the messages were not produced.
      this.#journal?.append(topic, appended);
      for (const { partition, key, value, headers } of appended) log.partitions[partition]!.append({ key, value, headers }, producedAt);
      if (messages.length > 0) log.appended.notify();
    });
  }

  subscribe(options: SubscribeOptions): Promise<Subscription> {
    return attempt(() => {
      this.#assertOpen();
      const topic = this.#topic(options.topic);
      const group = topic.group(options.groupId, options.fromBeginning ?? true, options.startAtGroup);
      const batchesInFlight = options.batchesInFlight ?? 1;
      if (!Number.isInteger(batchesInFlight) || batchesInFlight < 1) throw new RangeError(`batchesInFlight must be a positive integer, got ${batchesInFlight}`);
      const member = new Member(options.handler, options.batching ?? 'throughput', batchesInFlight);
      group.members.push(member);
      group.membershipChanged.notify();
      for (let partition = 0; partition < topic.partitions.length; partition++) {
        group.loops[partition] ??= this.#consume(topic, group, partition);
      }
      let stopping: Promise<void> | undefined;
      const subscription: Subscription = {
        stop: () =>
          (stopping ??= (async () => {
            group.members.splice(group.members.indexOf(member), 1);
            this.#subscriptions.delete(subscription);
            // Wakes the loops: this member's partitions go to the others, or wait for a new member.
            group.membershipChanged.notify();
            await member.idle();
          })()),
      };
      this.#subscriptions.add(subscription);
      return subscription;
    });
  }

  ping(): Promise<void> {
    return attempt(() => this.#assertOpen());
  }

  async close(): Promise<void> {
    this.#closed = true;
    // Each stop waits for its member's batch in progress; the loops end once their group is empty.
    await Promise.all([...this.#subscriptions].map((subscription) => subscription.stop()));
    this.#journal?.close();
  }

  /**
   * The loop of one group on one partition. It runs while the group has members and is the only code
   * that hands out this partition's batches to this group, which is what keeps them ordered, and never
   * concurrent beyond what the owner allows (SubscribeOptions.batchesInFlight), whatever the
   * membership does meanwhile.
   *
   * Batches handed out together commit in order: each one's commit waits for the one before it, and
   * fails when that one failed. So after a failure nothing past the failed batch is committed, and once
   * every batch in flight has settled the loop starts again from the committed offset.
   */
  async #consume(topic: Topic, group: Group, partition: number): Promise<void> {
    const log = topic.partitions[partition]!;
    let failures = 0;
    let next = group.committed[partition]!;
    /** The batches handed out and not yet settled (handled and committed, or failed), and how many are still in the handler. */
    const inFlight = new Set<Promise<void>>();
    let handling = 0;
    /** The member the batches in flight went to. */
    let holder: Member | undefined;
    /** The latest batch handed out: the next one's commit waits for it. */
    let latest: Promise<void> = Promise.resolve();
    const drained = (): Promise<unknown> => Promise.all([...inFlight].map((delivery) => delivery.catch(() => undefined)));
    let failure: { readonly error: unknown; readonly offset: number } | undefined;
    const settled = new Signal();
    for (;;) {
      if (group.members.length === 0 || this.#closed) {
        // The loop ends with nothing in flight, in the same step as this check, so that a member
        // joining later starts a loop of its own that never runs beside batches of this one.
        if (inFlight.size === 0) break;
        await drained();
        continue;
      }
      if (failure !== undefined) {
        await drained();
        failures++;
        const delayMs = Math.min(this.#backoff.initialMs * 2 ** (failures - 1), this.#backoff.maxMs);
        this.#logger?.warn(
          { err: failure.error, topic: topic.name, partition, offset: String(failure.offset), groupId: group.id, failures, retryInMs: delayMs },
          'batch handler failed; the batch will be delivered again',
        );
        failure = undefined;
        // A membership change ends the wait early: the batch goes to the partition's new owner.
        await waitForAny([group.membershipChanged], delayMs);
        next = group.committed[partition]!;
        latest = Promise.resolve();
        continue;
      }
      const owner = group.members[partition % group.members.length]!;
      // A new owner gets the partition once the batches of the one before have settled.
      if (handling >= owner.batchesInFlight || (inFlight.size > 0 && holder !== owner)) {
        await waitForAny([settled, group.membershipChanged]);
        continue;
      }
      const from = next;
      let messages = log.read(from, this.#maxBatchSize, this.#maxBatchBytes);
      if (messages.length === 0) {
        // Registered in the same synchronous step as the read, so no append can slip in between.
        await waitForAny([topic.appended, group.membershipChanged, settled]);
        continue;
      }
      const wait = owner.batching === 'throughput' ? this.#fetchWait : this.#latencyWait;
      if (wait !== undefined) {
        messages = await this.#fillBatch(topic, group, partition, from, messages, wait);
        if (group.members.length === 0 || this.#closed || failure !== undefined) continue;
        if (group.members[partition % group.members.length] !== owner) continue;
      }
      const batch: ConsumedBatch = {
        topic: topic.name,
        partition,
        messages: messages.map((message, i) => ({
          topic: topic.name,
          partition,
          offset: String(from + i),
          key: message.key,
          // A fresh buffer per delivery: a handler that changes its input cannot alter a redelivery.
          value: Buffer.from(message.value),
          headers: message.headers,
        })),
      };
      const end = from + messages.length;
      const before = latest;
      handling++;
      const delivery = owner.deliver(
        batch,
        (error) => {
          handling--;
          if (error !== undefined) failure ??= { error: error.reason, offset: from };
          settled.notify();
        },
        async () => {
          // Rejects when the batch before failed: then this one counts as failed too.
          await before;
          // Journaled first: if that fails the handler's work counts as failed and is delivered again.
          this.#journal?.commit(topic.name, group.id, partition, end, topic.lowestCommitted(partition, { groupId: group.id, offset: end }));
          group.committed[partition] = end;
          log.trimBelow(topic.lowestCommitted(partition));
        },
      );
      next = end;
      latest = delivery;
      holder = owner;
      inFlight.add(delivery);
      delivery.then(
        () => {
          failures = 0;
        },
        (error: unknown) => {
          failure ??= { error, offset: from };
        },
      ).finally(() => {
        inFlight.delete(delivery);
        settled.notify();
      });
    }
    group.loops[partition] = undefined;
  }

  /**
   * The batch from `from` once it holds `wait.minBytes` or the most a batch may, or once `wait.maxWaitMs`
   * passed since its first message was produced, woken by each append; a change of membership ends the
   * wait (the batch may have a new owner).
   */
  async #fillBatch(topic: Topic, group: Group, partition: number, from: number, first: RetainedMessage[], wait: { minBytes: number; maxWaitMs: number }): Promise<RetainedMessage[]> {
    const log = topic.partitions[partition]!;
    const until = log.producedAt(from) + wait.maxWaitMs;
    const members = group.members.length;
    let messages = first;
    for (;;) {
      const full = messages.length >= this.#maxBatchSize || messages.reduce((sum, m) => sum + m.value.length, 0) >= Math.min(wait.minBytes, this.#maxBatchBytes);
      const left = until - performance.now();
      if (full || left <= 0 || this.#closed || group.members.length !== members) return messages;
      await waitForAny([topic.appended, group.membershipChanged], left);
      messages = log.read(from, this.#maxBatchSize, this.#maxBatchBytes);
    }
  }

  #topic(name: string): Topic {
    const topic = this.#topics.get(name);
    if (!topic) throw new Error(`unknown topic ${name}: ensureTopic first`);
    return topic;
  }

  #assertOpen(): void {
    if (this.#closed) throw new Error('message bus is closed');
  }
}

/** One subscriber: its handler and the batches it is handling now. */
class Member {
  readonly #inFlight = new Set<Promise<void>>();

  constructor(
    private readonly handler: (batch: ConsumedBatch) => Promise<void>,
    readonly batching: 'throughput' | 'latency',
    readonly batchesInFlight: number,
  ) {}

  /**
   * Runs the handler, calls `handled` once it returned (with nothing) or threw (with what it threw),
   * then `commit` if it succeeded. Both count as in flight, so that `stop()` resolves only after the
   * batches in progress are committed (or have failed).
   */
  async deliver(batch: ConsumedBatch, handled: (failed?: { readonly reason: unknown }) => void, commit: () => void | Promise<void>): Promise<void> {
    // Through a microtask, so that a handler throwing synchronously is a rejection like any other.
    const delivery = Promise.resolve()
      .then(() => this.handler(batch))
      .then(
        () => handled(),
        (reason: unknown) => {
          handled({ reason });
          throw reason;
        },
      )
      .then(commit);
    const settled = delivery.then(
      () => undefined,
      () => undefined,
    );
    this.#inFlight.add(settled);
    try {
      await delivery;
    } finally {
      this.#inFlight.delete(settled);
    }
  }

  async idle(): Promise<void> {
    await Promise.all(this.#inFlight);
  }
}

class Topic {
  readonly partitions: PartitionLog[];
  readonly appended = new Signal();
  readonly #groups = new Map<string, Group>();

  constructor(
    readonly name: string,
    journaled: JournaledTopic,
  ) {
    this.partitions = Array.from({ length: journaled.partitions }, (_, p) => new PartitionLog(journaled.retained[p]));
    // Groups known from the journal hold their messages from the start, members or not, as in Kafka.
    for (const [id, committed] of journaled.committed) {
      this.#groups.set(id, { id, members: [], committed: [...committed], loops: [], membershipChanged: new Signal() });
    }
  }

  /** The group's state on this topic, created on its first subscription. */
  group(id: string, fromBeginning: boolean, startAtGroup?: string): Group {
    let group = this.#groups.get(id);
    if (!group) {
      // Without a committed offset a group starts where `startAtGroup` is, if that group exists, or
      // else at the oldest retained message, or at the end.
      const other = startAtGroup === undefined ? undefined : this.#groups.get(startAtGroup);
      const committed = other ? [...other.committed] : this.partitions.map((log) => (fromBeginning ? log.startOffset : log.endOffset));
      group = { id, members: [], committed, loops: [], membershipChanged: new Signal() };
      this.#groups.set(id, group);
    }
    return group;
  }

  /** The lowest committed offset of every group on the partition, counting `instead`'s offset for its group. */
  lowestCommitted(partition: number, instead?: { groupId: string; offset: number }): number {
    let lowest = Number.POSITIVE_INFINITY;
    for (const group of this.#groups.values()) lowest = Math.min(lowest, group.id === instead?.groupId ? instead.offset : group.committed[partition]!);
    return lowest;
  }
}

interface Group {
  readonly id: string;
  /** Subscribers in join order; partition p belongs to members[p % members.length]. */
  readonly members: Member[];
  /** Next offset to deliver, per partition: everything below it was handled. */
  readonly committed: number[];
  /** The running loop per partition, if any. */
  readonly loops: (Promise<void> | undefined)[];
  readonly membershipChanged: Signal;
}

/**
 * One partition's retained messages. Offsets keep counting after trimming; the array is compacted
 * only when its dropped head is at least half of it, so trimming costs O(1) amortised per message.
 */
class PartitionLog {
  #messages: RetainedMessage[];
  /** performance.now() of each message's produce, indexed as #messages; -Infinity for those restored from the journal. */
  #producedAt: number[];
  /** Bytes of the retained messages' values. */
  #retainedBytes = 0;
  /** Index in #messages of the oldest retained message. */
  #head = 0;
  /** Offset of the oldest retained message. */
  #startOffset: number;

  constructor(retained?: { readonly startOffset: number; readonly messages: readonly RetainedMessage[] }) {
    this.#messages = [...(retained?.messages ?? [])];
    this.#producedAt = this.#messages.map(() => Number.NEGATIVE_INFINITY);
    this.#startOffset = retained?.startOffset ?? 0;
    for (const message of this.#messages) this.#retainedBytes += message.value.length;
  }

  get retainedBytes(): number {
    return this.#retainedBytes;
  }

  get startOffset(): number {
    return this.#startOffset;
  }

  get endOffset(): number {
    return this.#startOffset + this.#messages.length - this.#head;
  }

  append(message: RetainedMessage, producedAt: number): void {
    this.#messages.push(message);
    this.#producedAt.push(producedAt);
    this.#retainedBytes += message.value.length;
  }

  /** When the message at `offset` was produced (as read(), an offset below the retained ones means the oldest). */
  producedAt(offset: number): number {
    return this.#producedAt[this.#head + Math.max(0, offset - this.#startOffset)]!;
  }

  /** Up to `max` messages from `fromOffset`, and no more than `maxBytes` of values unless one alone is. */
  read(fromOffset: number, max: number, maxBytes: number): RetainedMessage[] {
    const start = this.#head + Math.max(0, fromOffset - this.#startOffset);
    const end = Math.min(start + max, this.#messages.length);
    let bytes = 0;
    let count = 0;
    while (start + count < end) {
      bytes += this.#messages[start + count]!.value.length;
      if (count > 0 && bytes > maxBytes) break;
      count++;
    }
    return this.#messages.slice(start, start + count);
  }

  trimBelow(offset: number): void {
    const drop = Math.min(offset, this.endOffset) - this.#startOffset;
    if (drop <= 0) return;
    for (let i = this.#head; i < this.#head + drop; i++) this.#retainedBytes -= this.#messages[i]!.value.length;
    this.#head += drop;
    this.#startOffset += drop;
    if (this.#head * 2 >= this.#messages.length) {
      this.#messages = this.#messages.slice(this.#head);
      this.#producedAt = this.#producedAt.slice(this.#head);
      this.#head = 0;
    }
  }
}

/**
 * A reusable wake-up. Waiters register a callback and remove it once woken by any source, so a
 * signal that never fires does not collect one reaction per wait (as racing its promise would).
 */
class Signal {
  readonly #waiters = new Set<() => void>();

  add(waiter: () => void): void {
    this.#waiters.add(waiter);
  }

  remove(waiter: () => void): void {
    this.#waiters.delete(waiter);
  }

  notify(): void {
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const waiter of waiters) waiter();
  }
}

/** Resolves on the first notify of any of the signals, or after `timeoutMs` if given. */
function waitForAny(signals: readonly Signal[], timeoutMs?: number): Promise<void> {
  return new Promise<void>((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const wake = (): void => {
      for (const signal of signals) signal.remove(wake);
      clearTimeout(timer);
      resolve();
    };
    for (const signal of signals) signal.add(wake);
    if (timeoutMs !== undefined) timer = setTimeout(wake, timeoutMs);
  });
}

/**
 * Kafka assigns a key to a partition by hashing it; any stable hash gives the property the contract
 * asks for (same key, same partition, so per-key order). FNV-1a over the key's UTF-8 bytes.
 */
export function partitionOf(key: string, partitions: number): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(key, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % partitions;
}

function attempt<T>(operation: () => T): Promise<T> {
  try {
    return Promise.resolve(operation());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}
