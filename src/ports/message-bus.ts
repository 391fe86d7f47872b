import type { OutgoingMessage } from '../domain/messages/outgoing-message.js';

/**
 * The event bus port. Distributed mode: Kafka (kafka-bus.ts). Embedded mode: an in-process log with
 * the same semantics, journaled to a SQLite file (memory-bus.ts, sqlite-journal.ts). All pass
 * test/contract/bus.contract.test.ts.
 *
 * Semantics every implementation keeps:
 * - `produce` resolves only once the messages are durable (Kafka: acks -1, all in-sync replicas), and
 *   rejects otherwise, within seconds; a caller that got a resolve may tell its client "accepted". A
 *   rejection means "not known to be durable": the messages may still have been written, so a retry
 *   may duplicate them.
 * - Messages with the same key go to the same partition, so they are consumed in produce order.
 * - A consumer group delivers each partition's messages in order, one batch at a time unless the
 *   subscriber allows more (SubscribeOptions.batchesInFlight). Offsets are committed only for batches
 *   the handler finished, in order; when the handler throws, nothing from that batch on is committed
 *   and the batch is delivered again after a short backoff (at-least-once). A handler
 *   that keeps failing holds its partition back until it succeeds: deciding to skip is the caller's.
 * - Delivery is at-least-once in every case: a process that dies mid-batch, or a commit lost in a
 *   Kafka rebalance, means a finished batch is handled again. Handlers must be idempotent.
 */

export interface ConsumedMessage {
  readonly topic: string;
  readonly partition: number;
  /** Kafka offset as a decimal string (offsets are 64-bit). */
  readonly offset: string;
  readonly key: string;
  readonly value: Buffer;
  readonly headers: Readonly<Record<string, string>>;
}

export interface ConsumedBatch {
  readonly topic: string;
  readonly partition: number;
  readonly messages: readonly ConsumedMessage[];
}

/** Finishing without throwing means "done": the batch's offsets are committed after it returns. */
export type BatchHandler = (batch: ConsumedBatch) => Promise<void>;

export interface SubscribeOptions {
  /** Consumer group id; processes sharing it split the partitions between them. */
  readonly groupId: string;
  readonly topic: string;
  readonly handler: BatchHandler;
  /**
   * Where a group without a committed offset starts: the earliest retained message (true, the
   * default), or the end of the log (false). The end is taken at the member's first fetch, which with
   * Kafka may come a moment after `subscribe` resolved: messages produced right then may or may not
   * be delivered.
   */
  readonly fromBeginning?: boolean;
  /**
   * A group that has no committed offsets yet starts where this other group of the same topic is,
   * partition by partition (and as `fromBeginning` says where that group has none either). It lets a
   * new group take over from an existing one without reading the whole log again, as when a deployment
   * adds a consumer group to a topic that has been consumed for a while.
   */
  readonly startAtGroup?: string;
  /**
   * `throughput` (the default) lets a fetch wait briefly for more data, so that batches are large;
   * `latency` hands over each message as soon as it is there (rule evaluation, alert deliveries; the
   * in-process bus may gather for a few milliseconds first, MemoryBusOptions.latencyWaitMs, and the
   * Kafka bus may space a busy subscriber's batches, KafkaBusOptions.latencyGapMs).
   */
  readonly batching?: 'throughput' | 'latency';
  /**
   * How many batches of one partition the handler may be running at once (default 1). With more, the
   * next batch may be handed over while the one before it is still being handled, so a slow batch does
   * not hold back the ones after it; only for handlers whose work does not depend on the order of
   * batches (storing events, idempotent by id). Offsets still commit in order: a batch's once it and
   * every batch before it succeeded. After a failure, every batch from the failed one on is delivered
   * again.
   * An implementation may hand over fewer: the Kafka bus hands over one at a time per partition, as
   * kafkajs fetches a partition's next batch only once the one before was handled.
   */
  readonly batchesInFlight?: number;
}

export interface Subscription {
  /** Stops fetching, waits for the batch in progress to finish and commit, then leaves the group. */
  stop(): Promise<void>;
}

export interface MessageBus {
  /** Creates the topic if missing (idempotent). */
  ensureTopic(topic: string, partitions: number): Promise<void>;
  produce(topic: string, messages: readonly OutgoingMessage[]): Promise<void>;
  /** Resolves once the member has joined its group and holds its share of the partitions. */
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /** Resolves when the bus answers now; rejects with the reason otherwise (readiness). */
  ping(): Promise<void>;
  /** Flushes and disconnects producers and stops every subscription. */
  close(): Promise<void>;
}
