import type { ConsumedBatch, MessageBus, Subscription } from '../ports/message-bus.js';
import type { EventStore } from '../ports/event-store.js';
import type { StateStore } from '../ports/state-store.js';
import { EVENT_PARTITIONS, type Topics } from '../domain/messages/topics.js';
import type { Logger } from '../observability/logger.js';
import type { ServiceMetrics } from '../observability/service-metrics.js';
import type { AppRuleSet } from '../services/rule-set-cache.js';
import type { StoredEvent } from '../domain/events.js';
import type { DeliveryQueue } from './delivery-queue.js';
import { decodeBatch, type DecodedBatch } from './steps/decode-batch.js';
import { deadLetterStep, type DeadLettered } from './steps/dead-letter.js';
import { enqueueDeliveriesStep, type Enqueued } from './steps/enqueue-deliveries.js';
import { evaluateRulesStep, type Evaluated } from './steps/evaluate-rules.js';
import { eventsByApp, storeEventsStep, type StoredBatch } from './steps/store-events.js';

/** What each step of one batch did, in order: the chain's record of the batch. */
export type BatchOutcomes = readonly [DecodedBatch, DeadLettered, StoredBatch, Evaluated, Enqueued];

/** The steps after decoding, each built with what it needs; decoding is pure and needs nothing. */
export interface EventSteps {
  readonly deadLetter: (dead: DecodedBatch['dead']) => Promise<DeadLettered>;
  readonly store: (decoded: DecodedBatch) => Promise<StoredBatch>;
  readonly evaluate: (byApp: ReadonlyMap<string, readonly StoredEvent[]>) => Promise<Evaluated>;
  readonly enqueue: (jobs: Evaluated['jobs']) => Promise<Enqueued>;
}

/**
 * The worker, top to bottom: a consumed batch is decoded, what cannot be understood is
 * dead-lettered, and then two things run side by side: the events are stored in one insert, and
 * they are evaluated against each app's rules and the deliveries of what fired are enqueued. Each
 * step returns its outcome; a step that throws fails the batch, once both sides have settled. Only the
 * consumer loop commits offsets, and only after this resolves, so everything here is durable before a
 * batch counts as done; a batch that failed, or was cut off by a crash or a rebalance, is consumed
 * again, and every step is idempotent (storing by event id, triggers by rule and event, deliveries by
 * rule action and event).
 *
 * Alerting does not wait for the store: an alert is not held up by the ClickHouse insert (it may reach
 * its receiver a moment before its event is readable), and while ClickHouse is down the batch fails and
 * is retried, but its alerts have gone out on the first try; the retries find the triggers recorded.
 */
export function eventChain(steps: EventSteps): (batch: ConsumedBatch) => Promise<BatchOutcomes> {
  return async (batch) => {
    const decoded = decodeBatch(batch);
    // Dead letters first: once they are durable in their own topic, committing past them loses nothing.
    const deadLettered = await steps.deadLetter(decoded.dead);
    const alerting = async (): Promise<readonly [Evaluated, Enqueued]> => {
      const evaluated = await steps.evaluate(eventsByApp(decoded.events));
      return [evaluated, await steps.enqueue(evaluated.jobs)];
    };
    const [stored, [evaluated, enqueued]] = await allOrFirstFailure(steps.store(decoded), alerting());
    return [decoded, deadLettered, stored, evaluated, enqueued];
  };
}

/**
 * Both results once both settled; otherwise the first failure (in argument order). Unlike Promise.all,
 * it never leaves one side running after the batch has failed: a retry of the batch must not race it.
 */
async function allOrFirstFailure<A, B>(a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  const [first, second] = await Promise.allSettled([a, b]);
  if (first.status === 'rejected') throw first.reason;
  if (second.status === 'rejected') throw second.reason;
  return [first.value, second.value];
}

export interface EventWorkerDeps {
  readonly bus: MessageBus;
  readonly events: EventStore;
  readonly state: StateStore;
  readonly topics: Topics;
  readonly ruleSets: { forApp(appId: string): Promise<AppRuleSet> };
  readonly deliveries: DeliveryQueue;
  /** The process's logger; each step logs under its own component. */
  readonly logger: Logger;
  readonly metrics?: Pick<ServiceMetrics, 'eventsDeadLettered' | 'ruleEvaluations' | 'ruleTriggers'>;
}

/** The event chain's steps for this process's bus, stores and rules. */
export function eventSteps(deps: EventWorkerDeps): EventSteps {
  return {
    deadLetter: deadLetterStep({ bus: deps.bus, topic: deps.topics.eventsDeadLetter, logger: deps.logger.child({ component: 'pipeline' }), metrics: deps.metrics }),
    store: storeEventsStep({ events: deps.events }),
    evaluate: evaluateRulesStep({ ruleSets: deps.ruleSets, state: deps.state, logger: deps.logger.child({ component: 'rules' }), metrics: deps.metrics }),
    enqueue: enqueueDeliveriesStep(deps.deliveries),
  };
}

/** The events topic's consumer group member that runs the chain on every batch. */
export class EventWorker {
  readonly #deps: EventWorkerDeps;
  readonly #chain: (batch: ConsumedBatch) => Promise<BatchOutcomes>;
  #subscription: Subscription | undefined;

  constructor(deps: EventWorkerDeps) {
    this.#deps = deps;
    this.#chain = eventChain(eventSteps(deps));
  }

  async start(): Promise<void> {
    const { bus, topics } = this.#deps;
    await bus.ensureTopic(topics.eventsDeadLetter, EVENT_PARTITIONS);
    this.#subscription = await bus.subscribe({
      groupId: topics.workerGroup,
      topic: topics.events,
      handler: async (batch) => {
        await this.#chain(batch);
      },
      fromBeginning: true,
    });
  }

  /** Stops fetching and waits for the batch in progress to finish its chain and be committed. */
  async stop(): Promise<void> {
    await this.#subscription?.stop();
    this.#subscription = undefined;
  }
}
