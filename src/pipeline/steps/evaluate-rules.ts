import type { MatchOutcome, MatchOutcomeName, StateStore } from '../../ports/state-store.js';
import type { Logger } from '../../observability/logger.js';
import type { ServiceMetrics } from '../../observability/service-metrics.js';
import type { AppRuleSet, RuleSetRule } from '../../services/rule-set-cache.js';
import type { NewDeliveryJob } from '../delivery-queue.js';
import type { StoredEvent } from '../../domain/events.js';
import type { AlertContent } from '../../domain/alerting.js';
import { alertOf, ruleEventOf, triggerSpecOf } from '../../domain/rule-alerts.js';
import { plainTemplate } from '../../domain/alert-template.js';

export interface Evaluated {
  readonly step: 'evaluated';
  /** One per action of each rule that fired (or fired before, on a redelivered event). */
  readonly jobs: readonly NewDeliveryJob[];
  /** (rule, event) pairs looked at. */
  readonly evaluations: number;
  /** Matches by what the state store said (see MatchOutcome). */
  readonly triggers: Readonly<Record<MatchOutcomeName, number>>;
}

export interface EvaluateRulesDeps {
  readonly ruleSets: { forApp(appId: string): Promise<AppRuleSet> };
  readonly state: Pick<StateStore, 'recordMatch'>;
  readonly logger: Logger;
  readonly now?: () => number;
  readonly metrics?: Pick<ServiceMetrics, 'ruleEvaluations' | 'ruleTriggers'>;
}

/**
 * Rule evaluation, in the rules group's chain (event-worker.ts): each event of the batch against its
 * app's enabled rules for that event name. It returns the delivery jobs of what fired; the next step
 * creates them.
 *
 * Exactly once per (rule, event), across redeliveries and concurrent workers: each match is recorded
 * in the state store in one atomic step (StateStore.recordMatch), which decides the trigger (every
 * match, a threshold reached, a recovery after a silence), counts it and starts the cooldown. A
 * redelivered event that triggered finds its record (`again`) and only makes sure its deliveries
 * exist: when the first run crashed after recording the trigger but before creating them, the
 * redelivery creates them; otherwise that is a no-op, because a delivery is unique per rule action and
 * event. A trigger of a snoozed rule is counted (as suppressed) and creates no delivery.
 *
 * Each app is an actor: its events are evaluated in ingest order (cooldowns depend on order). The
 * trigger records of one app go out in order on one connection without waiting for each other, and
 * Redis runs them in that order, so order is kept without a round trip per event. Apps run side by side.
 */
export function evaluateRulesStep(deps: EvaluateRulesDeps): (byApp: ReadonlyMap<string, readonly StoredEvent[]>) => Promise<Evaluated> {
  const now = deps.now ?? Date.now;
  return async (byApp) => {
    const perApp = await Promise.all([...byApp].map(([appId, events]) => evaluateApp(deps, now, appId, events)));
    const triggers: Record<MatchOutcomeName, number> = { fired: 0, again: 0, cooldown: 0, counted: 0, seen: 0, late: 0 };
    let evaluations = 0;
    for (const app of perApp) {
      evaluations += app.evaluations;
      for (const outcome of app.outcomes) triggers[outcome.outcome]++;
    }
    return { step: 'evaluated', jobs: perApp.flatMap((app) => app.jobs), evaluations, triggers };
  };
}

interface AppEvaluation {
  readonly jobs: NewDeliveryJob[];
  readonly evaluations: number;
  readonly outcomes: readonly MatchOutcome[];
}

async function evaluateApp(deps: EvaluateRulesDeps, now: () => number, appId: string, events: readonly StoredEvent[]): Promise<AppEvaluation> {
  const ruleSet = await deps.ruleSets.forApp(appId);
  if (ruleSet.rulesByEvent.size === 0) return { jobs: [], evaluations: 0, outcomes: [] };
  const matches: Array<{ rule: RuleSetRule; event: StoredEvent; group: string }> = [];
  let evaluations = 0;
  for (const event of events) {
    const rules = ruleSet.rulesByEvent.get(event.event);
    if (!rules) continue;
    const subject = ruleEventOf(event);
    evaluations += rules.length;
    for (const rule of rules) {
      if (!rule.matches(subject)) continue;
      // A threshold rule grouped by a field the event does not have does not count the event.
      const group = rule.groupOf(subject);
      if (group !== undefined) matches.push({ rule, event, group });
    }
  }
  deps.metrics?.ruleEvaluations.inc(evaluations);
  if (matches.length === 0) return { jobs: [], evaluations, outcomes: [] };

  const nowMs = now();
  // Issued together in order, awaited together: see the comment above.
  const outcomes: MatchOutcome[] = await Promise.all(
    matches.map(({ rule, event, group }) =>
      deps.state.recordMatch({
        ruleId: rule.id,
        appId,
        eventId: event.id,
        eventTimeMs: event.timestamp.getTime(),
        nowMs,
        trigger: triggerSpecOf(rule.trigger),
        group,
        cooldownMs: rule.cooldownSeconds * 1000,
        snoozed: rule.snoozedUntilMs > nowMs,
      }),
    ),
  );

  const jobs: NewDeliveryJob[] = [];
  matches.forEach(({ rule, event, group }, i) => {
    const outcome = outcomes[i]!;
    deps.metrics?.ruleTriggers.inc({ outcome: outcome.outcome });
    if (outcome.outcome !== 'fired' && outcome.outcome !== 'again') return;
    if (outcome.outcome === 'fired') deps.logger.debug({ appId, ruleId: rule.id, eventId: event.id, kind: outcome.kind, suppressed: outcome.suppressed }, 'rule triggered');
    if (outcome.suppressed) return;
    const alert = alertOf(ruleSet, rule, event, { kind: outcome.kind, count: outcome.count, group });
    jobs.push(...jobsOf(rule, alert));
  });
  return { jobs, evaluations, outcomes };
}

/** One delivery job per enabled action of the rule, each alert carrying that action's template. */
export function jobsOf(rule: RuleSetRule, alert: AlertContent): NewDeliveryJob[] {
  return rule.actions.map((action) => {
    const template = plainTemplate(action.template);
    return {
      appId: alert.appId,
      ruleId: rule.id,
      actionId: action.id,
      destinationId: action.destination.id,
      eventId: alert.eventId,
      alert: template ? { ...alert, template } : alert,
    };
  });
}


