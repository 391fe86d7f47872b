import { v7 as uuidv7 } from 'uuid';
import type { EventStore } from '../ports/event-store.js';
import type { MetadataStore, StoredRuleAction } from '../ports/metadata.js';
import { DomainError } from '../domain/errors.js';
import type { EventLevel, StoredEvent } from '../domain/events.js';
import type { Channel } from '../domain/alerting.js';
import { compileConditions } from '../domain/rule-conditions.js';
import { toConditions, resolveActions, type NewRuleInput } from './notification-rules.service.js';
import { requireApp } from './app-lookup.js';
import { groupReader } from './rule-set-cache.js';
import { absenceAlert, alertOf, ruleEventOf, triggerSpecOf, type AlertRule } from '../domain/rule-alerts.js';
import { RuleMemory, fireDueAbsences } from '../domain/rule-decision.js';
import { plainTemplate } from '../domain/alert-template.js';
import { renderedMessage } from '../delivery/alert-message.js';
import { findStoredEvent } from './events-query.service.js';

/** A dry run covers at most this range. */
export const MAX_DRY_RUN_DAYS = 31;
const DAY_MS = 86_400_000;
/** Events replayed at most; a range holding more must be narrowed. */
export const MAX_DRY_RUN_EVENTS = 200_000;
const FIRST_TRIGGERS = 100;
const PAGE = 1000;

/** An event given to the preview, as ingest takes it (already validated). */
export interface GivenEvent {
  readonly event: string;
  readonly level: EventLevel;
  readonly data: Record<string, unknown>;
  readonly customer_id?: string | undefined;
  readonly metadata?: Record<string, string | number | boolean> | undefined;
  readonly timestamp?: string | undefined;
}

export interface PreviewInput {
  readonly rule: NewRuleInput;
  readonly eventId?: string | undefined;
  readonly event?: GivenEvent | undefined;
}

export interface PreviewMessage {
  readonly destinationId: string;
  readonly type: Channel;
  readonly title: string;
  readonly body: string;
}

export interface PreviewResult {
  readonly matched: boolean;
  readonly eventId: string | null;
  readonly messages: PreviewMessage[];
}

export interface DryRunInput {
  readonly rule: NewRuleInput;
  readonly from?: string | undefined;
  readonly to?: string | undefined;
}

export interface DryRunTrigger {
  readonly eventId: string | null;
  readonly timestamp: string;
  readonly group: string | null;
}

export interface DryRunResult {
  readonly evaluatedEvents: number;
  readonly matchedEvents: number;
  readonly triggers: number;
  readonly firstTriggers: DryRunTrigger[];
}

export interface RuleTrialsDeps {
  readonly metadata: MetadataStore;
  readonly events: EventStore;
  readonly now?: () => number;
}

/** The id a rule under trial goes by in its private decision state. */
const TRIAL_RULE_ID = 'trial';

/**
 * Trying a rule before saving it: what each action would send for an event (preview), and how often
 * it would have triggered over the stored events of a range (dry-run). Neither sends nor stores
 * anything. The dry-run replays the events through RuleMemory, the decision code the embedded state
 * store runs and the Redis scripts mirror (both pass the same contract), with each event's timestamp
 * as the clock: what the workers would have decided had the events arrived at their timestamps.
 */
export class RuleTrialsService {
  readonly #now: () => number;

  constructor(private readonly deps: RuleTrialsDeps) {
    this.#now = deps.now ?? Date.now;
  }

  async preview(accountId: string, appIdOrSlug: string, input: PreviewInput): Promise<PreviewResult> {
    const app = await requireApp(this.deps.metadata.apps, accountId, appIdOrSlug);
    const { actions } = await resolveActions(this.deps.metadata.destinations, app.id, input.rule.actions, [], 'none');
    const stored = input.event === undefined ? await this.#storedEvent(app.id, input) : undefined;
    const event = stored ?? givenEvent(app.id, input.event ?? { event: input.rule.eventName, level: 'info', data: {} }, this.#now());
    const rule = trialRule(input.rule);
    const subject = ruleEventOf(event);
    const group = groupReader(rule.trigger)(subject);
    const matched = event.event === rule.eventName && compileConditions(toConditions(input.rule.conditions, []), input.rule.match)(subject) && group !== undefined;
    const alertApp = { appId: app.id, appName: app.name };
    const alert =
      rule.trigger.type === 'absence'
        ? absenceAlert(alertApp, rule, uuidv7(), this.#now())
        : alertOf(alertApp, rule, event, {
            kind: rule.trigger.type === 'threshold' ? 'threshold' : 'match',
            count: rule.trigger.type === 'threshold' ? rule.trigger.count : 1,
            group: group ?? '',
          });
    const messages = actions.map((action: StoredRuleAction) => {
      const template = plainTemplate(action.template);
      const message = renderedMessage(action.channel, template ? { ...alert, template } : alert);
      return { destinationId: action.destinationId, type: action.channel, title: message.title, body: message.body };
    });
    return { matched, eventId: stored?.id ?? null, messages };
  }

  async dryRun(accountId: string, appIdOrSlug: string, input: DryRunInput): Promise<DryRunResult> {
    const app = await requireApp(this.deps.metadata.apps, accountId, appIdOrSlug);
    await resolveActions(this.deps.metadata.destinations, app.id, input.rule.actions, [], 'none');
    const { from, to } = dryRunRange(input, this.#now());
    const events = await this.#eventsOf(app.id, input.rule.eventName, from, to);
    const rule = trialRule(input.rule);
    const matches = compileConditions(toConditions(input.rule.conditions, []), input.rule.match);
    const groupOf = groupReader(rule.trigger);
    const grouped = rule.trigger.type === 'threshold' && rule.trigger.groupBy !== undefined;
    const trigger = triggerSpecOf(rule.trigger);
    const memory = new RuleMemory();
    const result = { evaluatedEvents: 0, matchedEvents: 0, triggers: 0, firstTriggers: [] as DryRunTrigger[] };
    const record = (found: DryRunTrigger) => {
      result.triggers++;
      if (result.firstTriggers.length < FIRST_TRIGGERS) result.firstTriggers.push(found);
    };
    // Silences that end by `atMs`: the deadline passes, the worker claims and alerts.
    const absencesUntil = (atMs: number) => {
      if (trigger.type !== 'absence') return;
      for (const claim of fireDueAbsences(memory, atMs)) record({ eventId: null, timestamp: new Date(claim.deadlineMs).toISOString(), group: null });
    };
    if (trigger.type === 'absence') memory.armAbsence(TRIAL_RULE_ID, app.id, from.getTime() + trigger.windowMs);
    for (const event of events) {
      const t = event.timestamp.getTime();
      absencesUntil(t);
      result.evaluatedEvents++;
      const subject = ruleEventOf(event);
      if (!matches(subject)) continue;
      const group = groupOf(subject);
      if (group === undefined) continue;
      result.matchedEvents++;
      const outcome = memory.recordMatch({
        ruleId: TRIAL_RULE_ID,
        appId: app.id,
        eventId: event.id,
        eventTimeMs: t,
        nowMs: t,
        trigger,
        group,
        cooldownMs: rule.cooldownSeconds * 1000,
        snoozed: false,
      });
      if (outcome.outcome === 'fired' && outcome.kind !== 'recovered') record({ eventId: event.id, timestamp: event.timestamp.toISOString(), group: grouped ? group : null });
    }
    absencesUntil(Math.min(to.getTime(), this.#now()));
    return result;
  }

  async #storedEvent(appId: string, input: PreviewInput): Promise<StoredEvent | undefined> {
    if (input.eventId !== undefined) {
      const found = await findStoredEvent(this.deps.events, appId, input.eventId);
      if (!found) throw new DomainError('validation_failed', 'eventId: must be the id of a stored event of this app', { details: [{ path: 'eventId', message: 'must be the id of a stored event of this app' }] });
      return found;
    }
    const [latest] = await this.deps.events.query({ appId, type: input.rule.eventName, limit: 1 });
    return latest;
  }

  /** The stored events of the name in [from, to), oldest first (timestamp, then id). */
  async #eventsOf(appId: string, eventName: string, from: Date, to: Date): Promise<StoredEvent[]> {
    const newestFirst: StoredEvent[] = [];
    for (;;) {
      const last = newestFirst.at(-1);
      const page = await this.deps.events.query({ appId, type: eventName, from, to, limit: PAGE, ...(last ? { after: { timestamp: last.timestamp, id: last.id } } : {}) });
      newestFirst.push(...page);
      if (newestFirst.length > MAX_DRY_RUN_EVENTS) {
        const message = `the range holds more than ${MAX_DRY_RUN_EVENTS.toLocaleString('en-US')} events of ${eventName}; narrow it`;
        throw new DomainError('validation_failed', `from: ${message}`, { details: [{ path: 'from', message }] });
      }
      if (page.length < PAGE) return newestFirst.reverse();
    }
  }
}

function trialRule(input: NewRuleInput): AlertRule & { readonly cooldownSeconds: number } {
  return { id: TRIAL_RULE_ID, name: input.name, eventName: input.eventName, trigger: input.trigger, cooldownSeconds: input.cooldownSeconds };
}

function dryRunRange(input: DryRunInput, nowMs: number): { from: Date; to: Date } {
  const to = input.to === undefined ? new Date(nowMs) : new Date(input.to);
  const from = input.from === undefined ? new Date(to.getTime() - DAY_MS) : new Date(input.from);
  const problem = (path: string, message: string) => new DomainError('validation_failed', `${path}: ${message}`, { details: [{ path, message }] });
  if (from.getTime() >= to.getTime()) throw problem('from', 'must be before to');
  if (to.getTime() - from.getTime() > MAX_DRY_RUN_DAYS * DAY_MS) throw problem('from', `must be at most ${MAX_DRY_RUN_DAYS} days before to`);
  return { from, to };
}


/** A given event as it would be stored; it keeps no default metadata (nothing is ingested). */
function givenEvent(appId: string, given: GivenEvent, nowMs: number): StoredEvent {
  return {
    id: uuidv7(),
    appId,
    event: given.event,
    level: given.level,
    customerId: given.customer_id ?? null,
    data: given.data,
    metadata: given.metadata ?? {},
    timestamp: given.timestamp === undefined ? new Date(nowMs) : new Date(given.timestamp),
    ingestedAt: new Date(nowMs),
  };
}
