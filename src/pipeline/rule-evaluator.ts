import type { StoredEvent } from '../adapters/event-store/event-store.js';
import type { StateStore, TriggerOutcome } from '../adapters/state/state-store.js';
import { ruleStatKeys, type AlertContent } from '../delivery/delivery-types.js';
import type { RuleEvent } from '../domain/rule-conditions.js';
import type { Logger } from '../observability/logger.js';
import type { ServiceMetrics } from '../observability/service-metrics.js';
import type { AppRuleSet, RuleSetRule } from '../services/rule-set-cache.js';
import type { DeliveryQueue, NewDeliveryJob } from './delivery-queue.js';

/**
 * How long the record "this rule already triggered on this event" is kept. It must outlive any
 * redelivery of the event: Kafka redelivers within seconds to minutes (a crash, a rebalance, a
 * ClickHouse outage holding a batch back); a day covers any realistic backlog.
 */
const FIRED_TTL_MS = 24 * 60 * 60 * 1000;

export interface RuleEvaluatorDeps {
  readonly ruleSets: { forApp(appId: string): Promise<AppRuleSet> };
  readonly state: StateStore;
  readonly deliveries: DeliveryQueue;
  readonly logger: Logger;
  readonly now?: () => number;
  readonly metrics?: Pick<ServiceMetrics, 'ruleEvaluations' | 'ruleTriggers'>;
}

/**
 * Rule evaluation, the pipeline step after storing: each stored event against its app's enabled rules
 * for that event name.
 *
 * Exactly once per (rule, event), across redeliveries and concurrent workers: the trigger is recorded
 * in the state store in one atomic step (StateStore.recordTrigger), which also counts it and starts
 * the cooldown. A redelivered event finds its record (`again`) and only makes sure its deliveries
 * exist: when the first run crashed after recording the trigger but before creating them, the
 * redelivery creates them; otherwise that is a no-op, because a delivery is unique per rule action and
 * event. Deliveries are created before this step returns, so before the batch's offsets are committed.
 *
 * Each app is an actor: its events are evaluated in ingest order (cooldowns depend on order). The
 * trigger records of one app go out in order on one connection without waiting for each other, and
 * Redis runs them in that order, so order is kept without a round trip per event. Apps run side by side.
 */
export class RuleEvaluator {
  readonly #deps: RuleEvaluatorDeps;
  readonly #now: () => number;

  constructor(deps: RuleEvaluatorDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  /** The pipeline's `afterStored` hook. */
  async evaluate(eventsByApp: ReadonlyMap<string, readonly StoredEvent[]>): Promise<void> {
    const jobs = (await Promise.all([...eventsByApp].map(([appId, events]) => this.#evaluateApp(appId, events)))).flat();
    if (jobs.length > 0) await this.#deps.deliveries.enqueue(jobs);
  }

  async #evaluateApp(appId: string, events: readonly StoredEvent[]): Promise<NewDeliveryJob[]> {
    const ruleSet = await this.#deps.ruleSets.forApp(appId);
    if (ruleSet.rulesByEvent.size === 0) return [];
    const matches: Array<{ rule: RuleSetRule; event: StoredEvent }> = [];
    let evaluated = 0;
    for (const event of events) {
      const rules = ruleSet.rulesByEvent.get(event.event);
      if (!rules) continue;
      const subject = ruleEventOf(event);
      evaluated += rules.length;
      for (const rule of rules) if (rule.matches(subject)) matches.push({ rule, event });
    }
    this.#deps.metrics?.ruleEvaluations.inc(evaluated);
    if (matches.length === 0) return [];

    const nowMs = this.#now();
    // Issued together in order, awaited together: see the class comment.
    const outcomes: TriggerOutcome[] = await Promise.all(
      matches.map(({ rule, event }) => {
        const keys = ruleStatKeys(rule.id);
        return this.#deps.state.recordTrigger({
          onceKey: keys.fired(event.id),
          onceTtlMs: FIRED_TTL_MS,
          cooldownKey: rule.cooldownSeconds > 0 ? keys.cooldown : null,
          cooldownMs: rule.cooldownSeconds * 1000,
          counterKey: keys.triggers,
          lastTriggeredKey: keys.lastTriggeredAt,
          nowMs,
        });
      }),
    );

    const jobs: NewDeliveryJob[] = [];
    matches.forEach(({ rule, event }, i) => {
      const outcome = outcomes[i]!;
      this.#deps.metrics?.ruleTriggers.inc({ outcome });
      if (outcome === 'cooldown') return;
      if (outcome === 'fired') this.#deps.logger.debug({ appId, ruleId: rule.id, eventId: event.id }, 'rule triggered');
      const alert = alertOf(ruleSet, rule, event);
      for (const action of rule.actions) {
        jobs.push({ appId, ruleId: rule.id, actionId: action.id, destinationId: action.destination.id, eventId: event.id, alert });
      }
    });
    return jobs;
  }
}

function ruleEventOf(event: StoredEvent): RuleEvent {
  return { event: event.event, level: event.level, customerId: event.customerId, data: event.data, metadata: event.metadata };
}

function alertOf(ruleSet: AppRuleSet, rule: RuleSetRule, event: StoredEvent): AlertContent {
  return {
    appId: ruleSet.appId,
    appName: ruleSet.appName,
    ruleId: rule.id,
    ruleName: rule.name,
    eventId: event.id,
    eventName: event.event,
    level: event.level,
    customerId: event.customerId,
    timestamp: event.timestamp.toISOString(),
    data: event.data,
    metadata: event.metadata,
    test: false,
  };
}
