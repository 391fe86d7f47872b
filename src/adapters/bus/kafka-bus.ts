// Before kafkajs produces anything: its record batches' checksum, computed natively, and its request
// queues without their idle timer loop.
import './kafka-checksum.js';
import './kafka-request-queue.js';
import { setTimeout as delay } from 'node:timers/promises';
import {
  Kafka,
  Partitioners,
  logLevel,
  type Consumer,
  type ConsumerRunConfig,
  type EachBatchPayload,
  type IHeaders,
  type KafkaMessage,
  type LogEntry,
  type Producer,
  type RetryOptions,
} from 'kafkajs';
import type { Logger } from '../../observability/logger.js';
import type { KafkaBusMetrics } from '../../observability/service-metrics.js';
import type { ConsumedMessage, MessageBus, SubscribeOptions, Subscription } from '../../ports/message-bus.js';
import { withDeadline } from '../../lib/deadline.js';
import type { OutgoingMessage } from '../../domain/messages/outgoing-message.js';

/**
 * Distributed mode's bus, on kafkajs. The numbers below are chosen for one property each; kafkajs's
 * defaults (up to 30 s between retries, retried at several nested layers) would make a call during a
 * Kafka outage hang for minutes, which turns an outage into piled-up HTTP requests instead of errors.
 */

/** TCP connect to a broker. A broker on a reachable host answers in milliseconds. */
const CONNECTION_TIMEOUT_MS = 1000;
/**
 * One request. acks=-1 waits for the in-sync replicas, milliseconds on a healthy cluster; a broker that
 * accepts connections but does not answer is treated as down after this long. (kafkajs lengthens it
 * by itself for the requests that may wait longer: fetch long-polls and group joins.)
 */
const REQUEST_TIMEOUT_MS = 3000;
/**
 * Retries of a produce: about 1.5 s of backoff in all (200 + 400 + 800 ms), enough to ride out a
 * leader election, then the caller gets an error it can answer with 503. Measured against a killed
 * broker, a produce rejects after 1 to 3.5 s.
 */
const PRODUCER_RETRY: RetryOptions = { retries: 3, initialRetryTime: 200, maxRetryTime: 1000, factor: 0.2, multiplier: 2 };
/**
 * The hard bound on one produce call, whatever happens below: a broker that accepts connections but
 * does not answer would otherwise cost every retry a full request timeout (about 13 s measured).
 */
const PRODUCE_TIMEOUT_MS = 5000;
/**
 * Retries of the consumer loop. A batch handler that throws goes through this too: the loop restarts
 * from the last resolved offset, i.e. the same batch, after 0.3, 0.6, 1.2, 2.4, 4.8 s; after that the
 * consumer crashes, the bus starts a new one in its place (GroupMember: rejoin, offsets read back from
 * the group), and the cycle repeats. kafkajs itself never restarts it (restartOnFailure): it would do
 * so for retriable errors only, and the bus restarts after any.
 */
const CONSUMER_RETRY: RetryOptions = {
  retries: 5,
  initialRetryTime: 300,
  maxRetryTime: 5000,
  factor: 0.2,
  multiplier: 2,
  restartOnFailure: () => Promise.resolve(false),
};
/**
 * The wait before a crashed consumer's replacement starts: 1 s, doubled after each replacement that
 * failed to join (the cluster still down), up to 10 s, so that consuming resumes within seconds of
 * the cluster's return.
 */
const REPLACEMENT_BACKOFF = { initialMs: 1000, maxMs: 10_000 };
/** Readiness must answer within the probe's own timeout: no retries, one overall deadline. */
const PING_TIMEOUT_MS = 2500;
/**
 * What one partition may bring to a fetch: twice the minimum, and at least 8 MiB (kafkajs's default
 * is 1 MiB). An edge's record holds a whole produce call's events of one app (docs/decisions/0011), up
 * to about 1 MiB, so the default let a fetch carry one record, and the worker made an INSERT of each: at
 * 40,000 events/s that was over a dozen INSERTs a second, each a new part for ClickHouse to merge.
 * A fetch brings this much only when the worker is behind (otherwise it returns at the minimum or the
 * wait), and then larger INSERTs let it catch up sooner: with 8 MiB instead of the 4 MiB of twice the
 * default minimum, a worker stored a backlog of one app about 14 % faster, ClickHouse spent a fifth
 * less CPU per event on it and the worker a tenth more, and the worker's peak RSS rose by about
 * 120 MiB, to under 600 MiB (bench/NOTES.md).
 */
function fetchBytesPerPartition(minBytes: number): number {
  return Math.max(8 * 1024 * 1024, 2 * minBytes);
}
/** kafkajs's default for a whole fetch, raised when partitions may bring more than it. */
const FETCH_MAX_BYTES_DEFAULT = 10 * 1024 * 1024;
/**
 * How often a member tells the coordinator it is alive, also while a handler runs (see handleBatch).
 * A second means a new member joins within about a second.
 */
const HEARTBEAT_INTERVAL_MS = 1000;
/**
 * How long a member may go without a heartbeat before the coordinator evicts it. Also how long a
 * group waits for a member that died without leaving (a killed process, or the member a consumer had
 * before the bus replaced it after a crash) before its partitions move: 10 s instead of
 * kafkajs's 30 s. The heartbeat keeps going while a handler runs, so slow batches do not count.
 */
const SESSION_TIMEOUT_MS = 10_000;
/** The same kafkajs message is logged at most once per this window (a down broker repeats it often). */
const LOG_REPEAT_WINDOW_MS = 10_000;
/** How long `subscribe` waits for the member to join its group and get its partitions. */
const JOIN_TIMEOUT_MS = 60_000;
/** How long `ensureTopic` and `subscribe` wait for a freshly created topic to become known to the brokers. */
const SUBSCRIBE_WAIT_MS = 15_000;

export interface KafkaBusOptions {
  readonly brokers: string[];
  readonly clientId: string;
  /** Receives kafkajs's own warnings and errors (nothing is written to the console). */
  readonly logger?: Pick<Logger, 'error' | 'warn' | 'info' | 'debug'>;
  /**
   * How many partitions one subscriber handles at the same time (default 4). Batches of one partition
   * are always handled one after the other.
   */
  readonly partitionsConsumedConcurrently?: number;
  /** Produce latency, messages and errors; consumer lag per partition (docs/metrics.md). */
  readonly metrics?: KafkaBusMetrics;
  /**
   * What a throughput subscriber's fetch waits for: it returns once it has `minBytes` of a partition
   * or once it waited `maxWaitMs`, whichever comes first (the service's settings KAFKA_FETCH_MIN_BYTES
   * and KAFKA_FETCH_MAX_WAIT_MS; config.ts says why they default to what they do).
   */
  readonly fetch: { readonly minBytes: number; readonly maxWaitMs: number };
  /**
   * Least time from the start of one batch of a latency subscriber to the start of its next (default
   * 0: none). After a batch that reached the end of its partition, the subscriber's next fetch waits
   * for what is left of it, so that a steady stream of messages comes in one batch per gap, with one
   * offset commit, instead of a fetch and a commit for nearly every produce call. A message after a
   * quiet spell still comes at once (the wait follows a batch and never precedes one), and a
   * subscriber behind on a backlog fetches again at once.
   */
  readonly latencyGapMs?: number;
}

export class KafkaBus implements MessageBus {
  readonly #kafka: Kafka;
  /** A second client for ping only: same brokers, but no retries, so that readiness fails fast. */
  readonly #pingKafka: Kafka;
  readonly #logger: KafkaBusOptions['logger'];
  readonly #concurrency: number;
  readonly #metrics: KafkaBusMetrics | undefined;
  readonly #fetch: { readonly minBytes: number; readonly maxWaitMs: number };
  readonly #latencyGapMs: number;
  readonly #subscriptions = new Set<Subscription>();
  readonly #producing = new Set<Promise<unknown>>();
  /** When each distinct kafkajs message was last logged (see #log). */
  readonly #lastLogged = new Map<string, number>();
  #producer: Promise<Producer> | undefined;
  #closed = false;

  constructor(options: KafkaBusOptions) {
    this.#logger = options.logger;
    this.#concurrency = options.partitionsConsumedConcurrently ?? 4;
    this.#metrics = options.metrics;
    this.#fetch = options.fetch;
    this.#latencyGapMs = options.latencyGapMs ?? 0;
    const common = {
      brokers: options.brokers,
      clientId: options.clientId,
      connectionTimeout: CONNECTION_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      logLevel: this.#logger ? logLevel.WARN : logLevel.NOTHING,
      logCreator: () => (entry: LogEntry) => this.#log(entry),
    };
    this.#kafka = new Kafka({ ...common, retry: PRODUCER_RETRY });
    this.#pingKafka = new Kafka({ ...common, retry: { retries: 0 } });
  }

  async ensureTopic(topic: string, partitions: number): Promise<void> {
    const admin = this.#kafka.admin();
    await admin.connect();
    try {
      // Creating an existing topic is a no-op (false), also when another process created it first.
      // The replication factor is the cluster's default.replication.factor.
      await untilTopicKnown(() => admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true }));
    } finally {
      await admin.disconnect();
    }
  }

  async produce(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    if (this.#closed) {
      this.#metrics?.produceFailed(topic);
      throw new Error('message bus is closed');
    }
    if (messages.length === 0) return;
    const started = process.hrtime.bigint();
    const sending = this.#send(topic, messages);
    this.#producing.add(sending);
    try {
      await sending;
    } catch (error) {
      this.#metrics?.produceFailed(topic);
      throw error;
    } finally {
      this.#producing.delete(sending);
    }
    this.#metrics?.produced(topic, messages.length, Number(process.hrtime.bigint() - started) / 1e9);
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    if (this.#closed) throw new Error('message bus is closed');
    const bytesPerPartition = fetchBytesPerPartition(this.#fetch.minBytes);
    const handle = (payload: EachBatchPayload): Promise<void> => handleBatch(options, payload, this.#metrics);
    const member = new GroupMember(options, {
      consumer: () =>
        this.#kafka.consumer({
          groupId: options.groupId,
          retry: CONSUMER_RETRY,
          sessionTimeout: SESSION_TIMEOUT_MS,
          heartbeatInterval: HEARTBEAT_INTERVAL_MS,
          minBytes: options.batching === 'latency' ? 1 : this.#fetch.minBytes,
          maxBytesPerPartition: bytesPerPartition,
          maxBytes: Math.max(FETCH_MAX_BYTES_DEFAULT, 2 * bytesPerPartition),
          maxWaitTimeInMs: this.#fetch.maxWaitMs,
          allowAutoTopicCreation: false,
        }),
      run: {
        eachBatchAutoResolve: false,
        // With neither a threshold nor an interval, kafkajs's commitOffsetsIfNecessary() commits nothing;
        // a threshold of 1 makes it commit whatever was resolved, i.e. the batch just finished.
        autoCommitThreshold: 1,
        partitionsConsumedConcurrently: this.#concurrency,
        eachBatch: options.batching === 'latency' && this.#latencyGapMs > 0 ? (payload) => spaced(this.#latencyGapMs, payload, handle(payload)) : handle,
      },
      logger: this.#logger,
      metrics: this.#metrics,
      stopped: (subscription) => this.#subscriptions.delete(subscription),
    });
    if (options.startAtGroup !== undefined) await this.#startAtGroup(options.groupId, options.topic, options.startAtGroup);
    await member.start();
    this.#subscriptions.add(member);
    return member;
  }

  /**
   * Gives `groupId`, if it has no committed offset on `topic`, the committed offsets of `from` (where
   * `from` has them). Two processes may do this at once: both write the same offsets, and the one
   * that comes second finds the group running (the first has joined), which means it was done.
   */
  async #startAtGroup(groupId: string, topic: string, from: string): Promise<void> {
    const admin = this.#kafka.admin();
    await admin.connect();
    try {
      const committed = async (group: string) =>
        (await admin.fetchOffsets({ groupId: group, topics: [topic] })).flatMap((t) => t.partitions).filter((p) => Number(p.offset) >= 0);
      if ((await untilTopicKnown(() => committed(groupId))).length > 0) return;
      const partitions = (await committed(from)).map(({ partition, offset }) => ({ partition, offset }));
      if (partitions.length === 0) return;
      try {
        // Refused while the group has members.
        await admin.setOffsets({ groupId, topic, partitions });
      } catch (error) {
        const [group] = (await admin.describeGroups([groupId])).groups;
        if (group && group.state !== 'Empty' && group.state !== 'Dead') return;
        throw error;
      }
      this.#logger?.info({ topic, groupId, from, partitions: partitions.length }, 'New consumer group starts where an existing one is');
    } finally {
      await admin.disconnect();
    }
  }

  async ping(): Promise<void> {
    if (this.#closed) throw new Error('message bus is closed');
    // A fresh admin per ping: it proves that a new connection can be made now (a kept one could look
    // fine while the cluster is gone, or stay broken after it came back), and it leaves no
    // reconnect loop behind. One ping per readiness probe is a negligible load.
    const admin = this.#pingKafka.admin();
    const check = (async () => {
      await admin.connect();
      await admin.describeCluster();
    })();
    try {
      await withDeadline(check, PING_TIMEOUT_MS, `Kafka did not answer within ${PING_TIMEOUT_MS} ms`);
    } finally {
      // Not awaited: closing a connection to a hung broker may itself take a while.
      admin.disconnect().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await Promise.allSettled([...this.#producing]);
    await Promise.allSettled([...this.#subscriptions].map((subscription) => subscription.stop()));
    const producer = this.#producer;
    this.#producer = undefined;
    if (producer) await producer.then((p) => p.disconnect()).catch(() => undefined);
  }

  async #send(topic: string, messages: readonly OutgoingMessage[]): Promise<void> {
    const producer = this.#connectedProducer();
    const sent = producer.then((p) =>
      p.send({
        topic,
        acks: -1,
        messages: messages.map((m) => ({ key: m.key, value: m.value, headers: m.headers ? { ...m.headers } : undefined })),
      }),
    );
    try {
      await withDeadline(sent, PRODUCE_TIMEOUT_MS, `no acknowledgement within ${PRODUCE_TIMEOUT_MS} ms`);
    } catch (error) {
      // A failed or timed-out send may still have been written: the caller must treat the failure as
      // "unknown", and a retry may duplicate (consumers are at-least-once anyway).
      //
      // The producer is replaced: disconnecting it ends whatever it was still retrying, so that a send
      // the caller was told had failed is not written later behind its back.
      producer.then((p) => this.#discardProducer(p)).catch(() => undefined);
      throw new Error(`Kafka produce to ${topic} failed: ${errorMessage(error)}`, { cause: error });
    }
  }

  /** The shared producer, connected on first use; a failed connection is retried by the next call. */
  async #connectedProducer(): Promise<Producer> {
    let connecting = this.#producer;
    if (!connecting) {
      const producer = this.#kafka.producer({
        // Not idempotent, so that two sends are in flight to a broker at once: kafkajs sends an
        // idempotent producer's requests to a broker one at a time, and the edge then waited on each
        // acknowledgement with its requests queued behind it (decision 0029). What idempotence would
        // add, a retried send written once, every consumer gives already: events are stored and
        // evaluated by id, delivery jobs claimed by id. Two, the edge's calls in flight (event-sink.ts).
        idempotent: false,
        maxInFlightRequests: 2,
        retry: PRODUCER_RETRY,
        createPartitioner: Partitioners.DefaultPartitioner,
        // Topics are created explicitly (ensureTopic); a typo must fail, not create a topic.
        allowAutoTopicCreation: false,
      });
      const started = producer.connect().then(() => producer);
      started.catch(() => {
        if (this.#producer === started) this.#producer = undefined;
      });
      this.#producer = connecting = started;
    }
    return connecting;
  }

  #discardProducer(producer: Producer): void {
    const current = this.#producer;
    current
      ?.then((p) => {
        // Only if it is still the shared producer: a concurrent failure may have replaced it already.
        if (p === producer && this.#producer === current) this.#producer = undefined;
      })
      .catch(() => undefined);
    // Sends still in flight on it fail and are reported to their callers as failed.
    producer.disconnect().catch(() => undefined);
  }

  #log({ namespace, level, log }: LogEntry): void {
    const logger = this.#logger;
    if (!logger) return;
    const { message, timestamp: _timestamp, ...fields } = log;
    // While a broker is down kafkajs logs each failed connection attempt, several per second.
    const now = Date.now();
    const key = `${namespace}\u0000${message}`;
    const last = this.#lastLogged.get(key);
    if (last !== undefined && now - last < LOG_REPEAT_WINDOW_MS) return;
    this.#lastLogged.set(key, now);
    if (this.#lastLogged.size > 1000) this.#lastLogged.clear();
    const entry = { kafkajs: namespace, ...fields };
    if (level === logLevel.ERROR) logger.error(entry, message);
    else if (level === logLevel.WARN) logger.warn(entry, message);
    else if (level === logLevel.INFO) logger.info(entry, message);
    else logger.debug(entry, message);
  }
}

interface GroupMemberParts {
  /** A new kafkajs consumer, with the subscription's settings. */
  readonly consumer: () => Consumer;
  readonly run: ConsumerRunConfig;
  readonly logger: KafkaBusOptions['logger'];
  readonly metrics: KafkaBusMetrics | undefined;
  /** Told once the member has stopped. */
  readonly stopped: (member: GroupMember) => void;
}

/**
 * One subscription: a kafkajs consumer in its group, and a new one in its place whenever it crashes.
 *
 * kafkajs restarts a crashed consumer by itself only when the error is retriable. A non-retriable one
 * (the group coordinator not found while a restarted broker is still loading its groups, say) would
 * end consuming for good, while the process went on answering 202 with nothing behind it. Here every
 * crash after the member first joined is followed by a fresh consumer, after REPLACEMENT_BACKOFF,
 * again and again until one joins: consuming resumes once the cluster is back, however it failed.
 */
class GroupMember implements Subscription {
  readonly #options: SubscribeOptions;
  readonly #parts: GroupMemberParts;
  #consumer: Consumer | undefined;
  #cancelJoin: (() => void) | undefined;
  #replacementTimer: NodeJS.Timeout | undefined;
  #failedReplacements = 0;
  #stopping: Promise<void> | undefined;

  constructor(options: SubscribeOptions, parts: GroupMemberParts) {
    this.#options = options;
    this.#parts = parts;
  }

  /** Starts the first consumer. Rejects, with the consumer disconnected, if it does not join. */
  start(): Promise<void> {
    return this.#startConsumer();
  }

  stop(): Promise<void> {
    return (this.#stopping ??= this.#stop());
  }

  async #stop(): Promise<void> {
    clearTimeout(this.#replacementTimer);
    // A replacement still joining is not waited for: a join can take as long as the group's rebalance
    // (members of a restarted broker's group that have not come back are waited for). It is
    // cancelled, and its consumer disconnected now, which ends the join; should the join succeed all
    // the same, the start disconnects the consumer again when it sees the cancellation.
    this.#cancelJoin?.();
    try {
      // kafkajs's disconnect stops fetching, waits for the batches in progress (which commit their own
      // offsets before returning), leaves the group so the partitions move at once, then disconnects.
      await this.#consumer?.disconnect();
    } catch (error) {
      // Not a failed stop: a batch whose commit did not reach Kafka is fetched again by the member that
      // gets its partition (every step is idempotent), and a member that could not say goodbye (the
      // coordinator moved, as after a broker restart) is dropped by the group after its session timeout.
      const { topic, groupId } = this.#options;
      this.#parts.logger?.warn({ err: error, topic, groupId }, 'Kafka consumer did not leave its group cleanly; its partitions move once the group drops it');
    } finally {
      this.#parts.stopped(this);
      this.#parts.metrics?.partitionsAssigned(this.#options.topic, this.#options.groupId, []);
    }
  }

  async #startConsumer(): Promise<void> {
    const { topic } = this.#options;
    const consumer = this.#parts.consumer();
    this.#consumer = consumer;
    const joined = untilJoined(consumer, this.#options);
    this.#cancelJoin = joined.cancel;
    let hasJoined = false;
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      hasJoined = true;
      // A rebalance may take partitions away: their lag is now another member's to report.
      this.#parts.metrics?.partitionsAssigned(topic, this.#options.groupId, payload.memberAssignment[topic] ?? []);
    });
    // Before the first join a crash rejects the join instead (untilJoined).
    consumer.on(consumer.events.CRASH, ({ payload: { error } }) => {
      if (hasJoined) this.#crashed(consumer, error);
    });
    try {
      await consumer.connect();
      await untilTopicKnown(() => consumer.subscribe({ topic, fromBeginning: this.#options.fromBeginning ?? true }));
      await consumer.run(this.#parts.run);
      await joined.promise;
    } catch (error) {
      joined.cancel();
      await consumer.disconnect().catch(() => undefined);
      throw error;
    }
  }

  /** kafkajs has disconnected `consumer` by the time it reports the crash. */
  #crashed(consumer: Consumer, error: Error): void {
    if (this.#stopping || consumer !== this.#consumer) return;
    const { topic, groupId } = this.#options;
    this.#parts.metrics?.partitionsAssigned(topic, groupId, []);
    this.#parts.metrics?.consumerReplaced(topic, groupId);
    this.#parts.logger?.error({ err: error, topic, groupId }, 'Kafka consumer crashed; a new one takes its place');
    this.#replaceLater();
  }

  #replaceLater(): void {
    const { topic, groupId } = this.#options;
    const delay = Math.min(REPLACEMENT_BACKOFF.initialMs * 2 ** Math.min(this.#failedReplacements, 10), REPLACEMENT_BACKOFF.maxMs);
    this.#replacementTimer = setTimeout(() => {
      if (this.#stopping) return;
      this.#startConsumer().then(
        () => {
          this.#failedReplacements = 0;
          this.#parts.logger?.info({ topic, groupId }, 'Kafka consumer replaced; consuming again');
        },
        (error: unknown) => {
          if (this.#stopping) return;
          this.#failedReplacements += 1;
          this.#parts.logger?.warn({ err: error, topic, groupId }, 'A new Kafka consumer could not join its group; trying again');
          this.#replaceLater();
        },
      );
    }, delay);
  }
}

/**
 * Settles as the batch's `work` does, but not before `gapMs` from now when the batch reached the end
 * of its partition: a subscriber at the head of a stream waits for more, one catching up on a backlog
 * does not. A failure is not held back.
 */
async function spaced(gapMs: number, payload: EachBatchPayload, work: Promise<void>): Promise<void> {
  const until = performance.now() + gapMs;
  await work;
  const left = until - performance.now();
  if (left > 0 && Number(payload.batch.offsetLag()) === 0) await delay(left);
}

/** Handler failures are retried (wrapped so kafkajs's retrier does not treat a TypeError as fatal). */
class BatchHandlerError extends Error {
  override readonly name = 'BatchHandlerError';
  readonly retriable = true;
}

/**
 * One batch of one partition. kafkajs fetches a partition from the last *resolved* offset, so the
 * rules are: resolve only after the handler returned, commit right after, and on failure resolve
 * nothing and throw. The throw ends this fetch round; kafkajs's retrier starts a new one after a
 * backoff, which fetches the same messages again. kafkajs never fetches a partition again before its
 * batch in progress is done, so a partition's batches are handled in order, one at a time.
 */
async function handleBatch(options: SubscribeOptions, payload: EachBatchPayload, metrics: KafkaBusMetrics | undefined): Promise<void> {
  const { batch } = payload;
  // Stopping, or the position was moved: leave the batch for whoever fetches this partition next.
  if (!payload.isRunning() || payload.isStale()) return;
  const last = batch.messages[batch.messages.length - 1];
  if (!last) return;
  // What is left behind this batch: the log end (high watermark) minus the batch's last offset, minus 1.
  metrics?.consumerLag(batch.topic, options.groupId, batch.partition, Number(batch.offsetLag()));
  // kafkajs heartbeats only between batches; a handler slower than the session timeout would get the
  // member evicted and its partition handed to another member while this one still works on it.
  // (A rebalance still waits at most the rebalance timeout, 60 s, for this batch to end before it
  // moves the partition on: no handler should take that long.)
  const keepAlive = setInterval(() => void payload.heartbeat().catch(() => undefined), HEARTBEAT_INTERVAL_MS);
  try {
    await options.handler({
      topic: batch.topic,
      partition: batch.partition,
      messages: batch.messages.map((message) => toConsumed(batch.topic, batch.partition, message)),
    });
  } catch (error) {
    throw new BatchHandlerError(
      `batch handler failed on ${batch.topic}/${batch.partition} at offset ${batch.firstOffset() ?? last.offset}; it will be delivered again`,
      { cause: error },
    );
  } finally {
    clearInterval(keepAlive);
  }
  payload.resolveOffset(last.offset);
  // A failed commit throws like a failed handler: the batch comes again (at-least-once).
  await payload.commitOffsetsIfNecessary();
}

function toConsumed(topic: string, partition: number, message: KafkaMessage): ConsumedMessage {
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key?.toString('utf8') ?? '',
    value: message.value ?? Buffer.alloc(0),
    headers: decodeHeaders(message.headers),
  };
}

function decodeHeaders(headers: IHeaders | undefined): Record<string, string> {
  const decoded: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) decoded[name] = first.toString();
  }
  return decoded;
}

/**
 * Resolves when the consumer joins its group (so the caller knows it holds partitions); rejects if
 * it crashes before that or the join takes longer than JOIN_TIMEOUT_MS.
 */
function untilJoined(consumer: Consumer, options: SubscribeOptions): { promise: Promise<void>; cancel: () => void } {
  let resolveJoin: () => void = () => undefined;
  let rejectJoin: (error: Error) => void = () => undefined;
  const promise = new Promise<void>((resolve, reject) => {
    resolveJoin = resolve;
    rejectJoin = reject;
  });
  // Rejections after a cancel have nobody waiting; they must not surface as unhandled.
  promise.catch(() => undefined);
  const timer = setTimeout(
    () => rejectJoin(new Error(`consumer of ${options.topic} did not join group ${options.groupId} within ${JOIN_TIMEOUT_MS} ms`)),
    JOIN_TIMEOUT_MS,
  );
  const stopWaiting = consumer.on(consumer.events.GROUP_JOIN, () => resolveJoin());
  const stopWatching = consumer.on(consumer.events.CRASH, ({ payload: { error } }) => rejectJoin(error));
  void promise
    .finally(() => {
      clearTimeout(timer);
      stopWaiting();
      stopWatching();
    })
    .catch(() => undefined);
  return { promise, cancel: () => rejectJoin(new Error('subscribe cancelled')) };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A topic created a moment ago (by this process or another) can still be unknown to the broker that
 * answers a metadata request ("This server does not host this topic-partition"), more so on a loaded
 * machine. kafkajs marks that error retriable but gives up after its own few retries (or, waiting for
 * a new topic's leaders, not at all); topic creation is not an error worth failing a process start
 * for, so `call` is repeated while it fails that way, bounded, and its answer returned.
 */
async function untilTopicKnown<T>(call: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + SUBSCRIBE_WAIT_MS;
  for (let delay = 100; ; delay = Math.min(delay * 2, 1_000)) {
    try {
      return await call();
    } catch (error) {
      // By shape, not `instanceof KafkaJSError`: kafkajs is CommonJS and Node's ESM loader does not
      // see that class as a named export.
      const retriable = typeof error === 'object' && error !== null && (error as { retriable?: unknown }).retriable === true;
      if (!retriable || Date.now() + delay > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
