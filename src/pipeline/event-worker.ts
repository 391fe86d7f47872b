import type { ConsumedBatch, MessageBus, SubscribeOptions, Subscription } from '../ports/message-bus.js';
import type { EventStore } from '../ports/event-store.js';
import type { StateStore } from '../ports/state-store.js';
import { EVENT_PARTITIONS, type Topics } from '../domain/messages/topics.js';
import type { Logger } from '../observability/logger.js';
import type { ServiceMetrics } from '../observability/service-metrics.js';
import type { AppRuleSet } from '../services/rule-set-cache.js';
import type { StoredEvent } from '../domain/events.js';
import type { DeliveryQueue } from './delivery-queue.js';
import { decodeBatch, type DecodedBatch, type DecodedTally } from './steps/decode-batch.js';
import { deadLetterStep, type DeadLettered } from './steps/dead-letter.js';
import { enqueueDeliveriesStep, type Enqueued } from './steps/enqueue-deliveries.js';
import { evaluateRulesStep, type Evaluated } from './steps/evaluate-rules.js';
import { eventsByApp, storeEventsStep, type StoredBatch } from './steps/store-events.js';
import { CANONICAL_UUID } from '../domain/uuid.js';

/** What each step of one batch did in the storing group, in order: the chain's record of the batch. */
export type StoreOutcomes = readonly [DecodedTally, DeadLettered, StoredBatch];
/** The same for the rules group: what was decoded (the events of apps with rules), evaluated, enqueued. */
export type AlertOutcomes = readonly [DecodedBatch, Evaluated, Enqueued];

/** The steps after decoding, each built with what it needs; decoding is pure and needs nothing. */
export interface EventSteps {
  readonly deadLetter: (dead: DecodedBatch['dead']) => Promise<DeadLettered>;
  readonly store: (decoded: DecodedBatch) => Promise<StoredBatch>;
  /** Whether the app has an enabled rule; the others' events are not even decoded for evaluation. */
  readonly hasRules: (appId: string) => Promise<boolean>;
  readonly evaluate: (byApp: ReadonlyMap<string, readonly StoredEvent[]>) => Promise<Evaluated>;
  readonly enqueue: (jobs: Evaluated['jobs']) => Promise<Enqueued>;
}

/**
 * The worker consumes the events topic in two consumer groups, each at its own pace, and this is the
 * storing group's chain: a consumed batch is decoded, what cannot be understood is dead-lettered, and
 * the events are stored in one insert. Its fetches wait for a good amount of data (large inserts are
 * what ClickHouse wants). Each step returns its outcome; a step that throws fails the batch. Only the
 * consumer loop commits offsets, and only after this resolves, so everything here is durable before a
 * batch counts as done; a batch that failed, or was cut off by a crash or a rebalance, is consumed
 * again, and storing is idempotent by event id.
 */
export function storeChain(steps: Pick<EventSteps, 'deadLetter' | 'store'>): (batch: ConsumedBatch) => Promise<StoreOutcomes> {
  return async (batch) => {
    const decoded = decodeBatch(batch);
    // Dead letters first: once they are durable in their own topic, committing past them loses nothing.
    const deadLettered = await steps.deadLetter(decoded.dead);
    const tally: DecodedTally = { step: 'decoded', events: decoded.events.length, deadLetters: decoded.dead.length };
    // The insert's promise returned, not awaited: an async function keeps its variables until it
    // returns, and the batch's decoded events are no use once their rows are built (EventStore's SQL
    // insert says why that matters).
    return steps.store(decoded).then((stored): StoreOutcomes => [tally, deadLettered, stored]);
  };
}

/**
 * The rules group's chain: the events of apps that have rules are evaluated against them, and the
 * deliveries of what fired are enqueued. Its fetches hand over what is there at once, so an alert
 * waits neither for a fetch to fill up nor for the ClickHouse insert of its event (it may reach its
 * receiver a moment before its event is readable). The two groups do not hold each other up: while
 * ClickHouse is down alerts still go out, and while Redis is down events are still stored. What cannot
 * be decoded is left to the storing group, which dead-letters it. Evaluation is idempotent (triggers
 * are recorded per rule and event, deliveries are unique per rule action and event), so a batch
 * consumed again fires nothing twice.
 *
 * Messages are keyed by app id (the edge's produce), so a message whose key names an app without
 * enabled rules is skipped undecoded; a key that is not an app id is decoded and evaluated by the
 * app ids of its events.
 */
export function alertChain(steps: Pick<EventSteps, 'hasRules' | 'evaluate' | 'enqueue'>): (batch: ConsumedBatch) => Promise<AlertOutcomes> {
  return async (batch) => {
    const skipped = new Set<string>();
    const keys = new Set(batch.messages.map((message) => message.key).filter((key) => CANONICAL_UUID.test(key)));
    await Promise.all(
      [...keys].map(async (key) => {
        if (!(await steps.hasRules(key))) skipped.add(key);
      }),
    );
    const decoded = decodeBatch(skipped.size === 0 ? batch : { ...batch, messages: batch.messages.filter((message) => !skipped.has(message.key)) });
    const evaluated = await steps.evaluate(eventsByApp(decoded.events));
    return [decoded, evaluated, await steps.enqueue(evaluated.jobs)];
  };
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
    hasRules: async (appId) => (await deps.ruleSets.forApp(appId)).rulesByEvent.size > 0,
    evaluate: evaluateRulesStep({ ruleSets: deps.ruleSets, state: deps.state, logger: deps.logger.child({ component: 'rules' }), metrics: deps.metrics }),
    enqueue: enqueueDeliveriesStep(deps.deliveries),
  };
}

/**
 * Batches of one partition the storing group may be inserting at once. The events of an app share a
 * partition, so with one at a time a slow insert (the store busy merging, or starved of CPU) held
 * back every batch after it; now the next one goes in beside it. Storing is idempotent by event id
 * and does not depend on order, and offsets still commit in order. The Kafka bus inserts one batch
 * per partition at a time; its partitions are many, and each insert is on a ClickHouse server.
 */
const STORE_BATCHES_IN_FLIGHT = 2;

/** The events topic's two consumer group members: one stores the events, one runs the rules. */
export class EventWorker {
  readonly #deps: EventWorkerDeps;
  readonly #steps: EventSteps;
  readonly #subscriptions: Subscription[] = [];

  constructor(deps: EventWorkerDeps) {
    this.#deps = deps;
    this.#steps = eventSteps(deps);
  }

  async start(): Promise<void> {
    const { bus, topics } = this.#deps;
    await bus.ensureTopic(topics.eventsDeadLetter, EVENT_PARTITIONS);
    const groups: Array<Pick<SubscribeOptions, 'groupId' | 'startAtGroup' | 'batching' | 'batchesInFlight'> & { chain: (batch: ConsumedBatch) => Promise<unknown> }> = [
      // A deployment that had one group doing both takes the rules up where that group was, instead
      // of evaluating the whole retained log against today's rules. First, so that it takes them up
      // before this process's storing member moves that group on.
      { groupId: topics.rulesGroup, chain: alertChain(this.#steps), startAtGroup: topics.workerGroup, batching: 'latency' },
      { groupId: topics.workerGroup, chain: storeChain(this.#steps), batchesInFlight: STORE_BATCHES_IN_FLIGHT },
    ];
    for (const { chain, ...group } of groups) {
      const handler = async (batch: ConsumedBatch): Promise<void> => {
        await chain(batch);
      };
      this.#subscriptions.push(await bus.subscribe({ ...group, topic: topics.events, fromBeginning: true, handler }));
    }
  }

  /** Stops fetching and waits for the batches in progress to finish their chains and be committed. */
  async stop(): Promise<void> {
    await Promise.all(this.#subscriptions.splice(0).map((subscription) => subscription.stop()));
  }
}
