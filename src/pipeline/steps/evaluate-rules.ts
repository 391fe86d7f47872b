import type { StateStore, TriggerOutcome } from '../../ports/state-store.js';
import type { RuleEvent } from '../../domain/rule-conditions.js';
import type { Logger } from '../../observability/logger.js';
import type { ServiceMetrics } from '../../observability/service-metrics.js';
import type { AppRuleSet, RuleSetRule } from '../../services/rule-set-cache.js';
import type { NewDeliveryJob } from '../delivery-queue.js';
import type { StoredEvent } from '../../domain/events.js';
import type { AlertContent } from '../../domain/alerting.js';
import { ruleStatKeys } from '../../domain/rule-state-keys.js';

/**
 * How long the record "this rule already triggered on this event" is kept. It must outlive any
 * redelivery of the event: Kafka redelivers within seconds to minutes (a crash, a rebalance, a
 * ClickHouse outage holding a batch back); a day covers any realistic backlog.
 */
const FIRED_TTL_MS = 24 * 60 * 60 * 1000;

export interface Evaluated {
  readonly step: 'evaluated';
  /** One per action of each rule that fired (or fired before, on a redelivered event). */
  readonly jobs: readonly NewDeliveryJob[];
  /** (rule, event) pairs looked at. */
  readonly evaluations: number;
  /** Matches by what the state store said: fired now, fired before (`again`), or in cooldown. */
  readonly triggers: Readonly<Record<TriggerOutcome, number>>;
}

export interface EvaluateRulesDeps {
  readonly ruleSets: { forApp(appId: string): Promise<AppRuleSet> };
  readonly state: Pick<StateStore, 'recordTrigger'>;
  readonly logger: Logger;
  readonly now?: () => number;
  readonly metrics?: Pick<ServiceMetrics, 'ruleEvaluations' | 'ruleTriggers'>;
}

/**
 * Rule evaluation, the step after storing: each stored event against its app's enabled rules for that
 * event name. It returns the delivery jobs of what fired; the next step creates them.
 *
 * Exactly once per (rule, event), across redeliveries and concurrent workers: the trigger is recorded
 * in the state store in one atomic step (StateStore.recordTrigger), which also counts it and starts
 * the cooldown. A redelivered event finds its record (`again`) and only makes sure its deliveries
 * exist: when the first run crashed after recording the trigger but before creating them, the
 * redelivery creates them; otherwise that is a no-op, because a delivery is unique per rule action and
 * event.
 *
 * Each app is an actor: its events are evaluated in ingest order (cooldowns depend on order). The
 * trigger records of one app go out in order on one connection without waiting for each other, and
 * Redis runs them in that order, so order is kept without a round trip per event. Apps run side by side.
 */
export function evaluateRulesStep(deps: EvaluateRulesDeps): (byApp: ReadonlyMap<string, readonly StoredEvent[]>) => Promise<Evaluated> {
  const now = deps.now ?? Date.now;
  return async (byApp) => {
    const perApp = await Promise.all([...byApp].map(([appId, events]) => evaluateApp(deps, now, appId, events)));
    const triggers: Record<TriggerOutcome, number> = { fired: 0, again: 0, cooldown: 0 };
    let evaluations = 0;
    for (const app of perApp) {
      evaluations += app.evaluations;
      for (const outcome of app.outcomes) triggers[outcome]++;
    }
    return { step: 'evaluated', jobs: perApp.flatMap((app) => app.jobs), evaluations, triggers };
  };
}

interface AppEvaluation {
  readonly jobs: NewDeliveryJob[];
  readonly evaluations: number;
  readonly outcomes: readonly TriggerOutcome[];
}

async function evaluateApp(deps: EvaluateRulesDeps, now: () => number, appId: string, events: readonly StoredEvent[]): Promise<AppEvaluation> {
  const ruleSet = await deps.ruleSets.forApp(appId);
  if (ruleSet.rulesByEvent.size === 0) return { jobs: [], evaluations: 0, outcomes: [] };
  const matches: Array<{ rule: RuleSetRule; event: StoredEvent }> = [];
  let evaluations = 0;
  for (const event of events) {
    const rules = ruleSet.rulesByEvent.get(event.event);
    if (!rules) continue;
    const subject = ruleEventOf(event);
    evaluations += rules.length;
    for (const rule of rules) if (rule.matches(subject)) matches.push({ rule, event });
  }
  deps.metrics?.ruleEvaluations.inc(evaluations);
  if (matches.length === 0) return { jobs: [], evaluations, outcomes: [] };

  const nowMs = now();
  // Issued together in order, awaited together: see the comment above.
  const outcomes: TriggerOutcome[] = await Promise.all(
    matches.map(({ rule, event }) => {
      const keys = ruleStatKeys(rule.id);
      return deps.state.recordTrigger({
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
    deps.metrics?.ruleTriggers.inc({ outcome });
    if (outcome === 'cooldown') return;
    if (outcome === 'fired') deps.logger.debug({ appId, ruleId: rule.id, eventId: event.id }, 'rule triggered');
    const alert = alertOf(ruleSet, rule, event);
    for (const action of rule.actions) {
      jobs.push({ appId, ruleId: rule.id, actionId: action.id, destinationId: action.destination.id, eventId: event.id, alert });
    }
  });
  return { jobs, evaluations, outcomes };
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
