import type { AlertContent } from './alerting.js';
import type { StoredEvent } from './events.js';
import type { RuleTrigger } from './rule-trigger.js';
import type { TriggerSpec } from './rule-decision.js';
import type { RuleEvent } from './rule-conditions.js';

/**
 * What a rule's trigger says, as alert content and as the state store's trigger spec: shared by the
 * event worker, the absence watcher, and the preview and dry-run of a rule, so that what they show is
 * what the worker sends.
 */

export interface AlertApp {
  readonly appId: string;
  readonly appName: string;
}

export interface AlertRule {
  readonly id: string;
  readonly name: string;
  readonly eventName: string;
  readonly trigger: RuleTrigger;
}

/** The state store's view of a trigger: windows in milliseconds. */
export function triggerSpecOf(trigger: RuleTrigger): TriggerSpec {
  switch (trigger.type) {
    case 'every':
      return { type: 'every' };
    case 'threshold':
      return { type: 'threshold', count: trigger.count, windowMs: trigger.windowSeconds * 1000 };
    case 'absence':
      return { type: 'absence', windowMs: trigger.windowSeconds * 1000 };
  }
}

/** What a trigger on an event says: its kind, and for a threshold the count, window and group. */
export interface TriggerFacts {
  readonly kind: 'match' | 'threshold' | 'recovered';
  readonly count: number;
  /** The threshold group ('' without `groupBy`). */
  readonly group: string;
}

/** The alert of a trigger on an event (a match, a threshold reached, or a recovery). */
export function alertOf(app: AlertApp, rule: AlertRule, event: StoredEvent, facts: TriggerFacts): AlertContent {
  const threshold = rule.trigger.type === 'threshold' && facts.kind === 'threshold' ? rule.trigger : undefined;
  return {
    appId: app.appId,
    appName: app.appName,
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
    kind: facts.kind,
    ...(threshold ? { count: facts.count, windowSeconds: threshold.windowSeconds, group: threshold.groupBy === undefined ? null : facts.group } : {}),
    ...(rule.trigger.type === 'absence' ? { windowSeconds: rule.trigger.windowSeconds } : {}),
  };
}

/**
 * An absence alert: no event, so `eventId` is the id its deliveries are recorded under, `timestamp`
 * the deadline that passed, `level` warning, no data.
 */
export function absenceAlert(app: AlertApp, rule: AlertRule, alertId: string, deadlineMs: number): AlertContent {
  return {
    appId: app.appId,
    appName: app.appName,
    ruleId: rule.id,
    ruleName: rule.name,
    eventId: alertId,
    eventName: rule.eventName,
    level: 'warning',
    customerId: null,
    timestamp: new Date(deadlineMs).toISOString(),
    data: {},
    metadata: {},
    test: false,
    kind: 'absence',
    ...(rule.trigger.type === 'absence' ? { windowSeconds: rule.trigger.windowSeconds } : {}),
  };
}

/** What a rule's conditions and `groupBy` read of a stored event. */
export function ruleEventOf(event: StoredEvent): RuleEvent {
  return { event: event.event, level: event.level, customerId: event.customerId, data: event.data, metadata: event.metadata };
}
