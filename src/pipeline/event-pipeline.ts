import type { ConsumedBatch, ConsumedMessage, MessageBus, Subscription } from '../adapters/bus/message-bus.js';
import type { EventStore, StoredEvent } from '../adapters/event-store/event-store.js';
import type { Logger } from '../observability/logger.js';
import type { ServiceMetrics } from '../observability/service-metrics.js';
import { ALREADY_STORED_HEADER } from '../services/event-sink.js';
import { decodeEventMessage } from './event-message.js';
import { EVENT_PARTITIONS, type Topics } from './topics.js';

/** Called with each batch's stored events, grouped by app in ingest order (rule evaluation hooks in here). */
export type StoredEventsHandler = (eventsByApp: ReadonlyMap<string, readonly StoredEvent[]>) => Promise<void>;

export interface EventPipelineDeps {
  readonly bus: MessageBus;
  readonly events: EventStore;
  readonly topics: Topics;
  readonly logger: Logger;
  readonly afterStored?: StoredEventsHandler;
  readonly metrics?: Pick<ServiceMetrics, 'eventsDeadLettered'>;
}

export const DEAD_LETTER_REASON_HEADER = 'x-dead-letter-reason';

/**
 * The worker: consume a partition's batch → dead-letter what cannot be understood → store the rest in
 * one insert → hand them on per app. It returns only when all of that is durable; the bus then
 * commits the batch's offsets (only the consumer loop commits). Any throw means the whole batch is
 * delivered again: storing is idempotent by event id, so a redelivery after a crash or a rebalance
 * never shows an event twice.
 */
export class EventPipeline {
  readonly #deps: EventPipelineDeps;
  #subscription: Subscription | undefined;

  constructor(deps: EventPipelineDeps) {
    this.#deps = deps;
  }

  async start(): Promise<void> {
    const { bus, topics } = this.#deps;
    await bus.ensureTopic(topics.eventsDeadLetter, EVENT_PARTITIONS);
    this.#subscription = await bus.subscribe({
      groupId: topics.workerGroup,
      topic: topics.events,
      handler: (batch) => this.handleBatch(batch),
      fromBeginning: true,
    });
  }

  /** Stops fetching and waits for the batch in progress to be stored and committed. */
  async stop(): Promise<void> {
    await this.#subscription?.stop();
    this.#subscription = undefined;
  }

  async handleBatch(batch: ConsumedBatch): Promise<void> {
    const stored: StoredEvent[] = [];
    /** Of `stored`, those the edge already wrote (embedded mode, see event-sink.ts). */
    const alreadyStored = new Set<string>();
    const dead: Array<{ message: ConsumedMessage; reason: string }> = [];
    for (const message of batch.messages) {
      const decoded = decodeEventMessage(message.value);
      if (!decoded.ok) {
        dead.push({ message, reason: decoded.reason });
        continue;
      }
      const skipInsert = message.headers[ALREADY_STORED_HEADER] === '1';
      for (const event of decoded.events) {
        stored.push(event);
        if (skipInsert) alreadyStored.add(event.id);
      }
      for (const entry of decoded.invalid) dead.push({ message: { ...message, value: entry.value }, reason: entry.reason });
    }

    // Dead letters first: once they are durable in their own topic, committing past them loses nothing.
    if (dead.length > 0) {
      await this.#deps.bus.produce(
        this.#deps.topics.eventsDeadLetter,
        dead.map(({ message, reason }) => ({
          key: message.key,
          value: message.value,
          headers: {
            ...message.headers,
            [DEAD_LETTER_REASON_HEADER]: reason,
            'x-original-topic': message.topic,
            'x-original-partition': String(message.partition),
            'x-original-offset': message.offset,
          },
        })),
      );
      this.#deps.metrics?.eventsDeadLettered.inc(dead.length);
      for (const { message, reason } of dead) {
        this.#deps.logger.warn({ topic: message.topic, partition: message.partition, offset: message.offset, reason }, 'event message dead-lettered');
      }
    }

    if (stored.length === 0) return;
    const toInsert = stored.filter((event) => !alreadyStored.has(event.id));
    if (toInsert.length > 0) await this.#deps.events.insert(toInsert);

    if (this.#deps.afterStored) {
      // The app is the actor: its events stay in partition (= ingest) order within its group.
      const byApp = new Map<string, StoredEvent[]>();
      for (const event of stored) {
        const list = byApp.get(event.appId);
        if (list) list.push(event);
        else byApp.set(event.appId, [event]);
      }
      await this.#deps.afterStored(byApp);
    }
  }
}
