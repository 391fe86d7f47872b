import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { DestinationRepository, MetadataStore, NotificationRuleChanges, NotificationRuleRecord, StoredRuleAction } from '../ports/metadata.js';
import type { StateStore } from '../ports/state-store.js';
import { DomainError, type ErrorDetail } from '../domain/errors.js';
import type { Condition, ConditionInput } from '../domain/rule-conditions.js';
import type { Logger } from '../observability/logger.js';
import { deleteById, notFound, requireApp, requireById } from './app-lookup.js';
import { shownTarget } from './destination-target.js';
import { readRuleStats, type RuleStats } from './rule-stats.js';
import type { RuleSetCache } from './rule-set-cache.js';
import type { AlertTemplate, Channel } from '../domain/alerting.js';
import { definedOnly } from '../lib/defined-only.js';
import { plainTemplate } from '../domain/alert-template.js';
import { plainTrigger } from '../domain/rule-trigger.js';

export interface RuleActionView {
  readonly id: string;
  readonly destinationId: string;
  readonly channel: Channel;
  /** The destination's masked url or e-mail address; null only if the destination vanished. */
  readonly target: string | null;
  readonly enabled: boolean;
  readonly template?: AlertTemplate;
}

export interface RuleView extends RuleStats, Pick<NotificationRuleRecord, 'id' | 'appId' | 'name' | 'eventName' | 'enabled' | 'match' | 'cooldownSeconds' | 'trigger'> {
  readonly conditions: Condition[];
  readonly actions: RuleActionView[];
  readonly snoozedUntil: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface RuleActionInput {
  readonly id?: string | undefined;
  readonly destinationId: string;
  readonly channel?: Channel | undefined;
  readonly enabled: boolean;
  readonly template?: AlertTemplate | undefined;
}

export interface NewRuleInput extends Pick<NotificationRuleRecord, 'name' | 'eventName' | 'enabled' | 'match' | 'cooldownSeconds' | 'trigger'> {
  readonly conditions: readonly ConditionInput[];
  readonly actions: readonly RuleActionInput[];
}

export type RuleChanges = { readonly [K in keyof NewRuleInput]?: NewRuleInput[K] | undefined };

export interface NotificationRulesDeps {
  readonly metadata: MetadataStore;
  readonly state: StateStore;
  readonly logger: Logger;
  /** Told about every change, so every worker evaluates the new rules from its next event. */
  readonly ruleSets: Pick<RuleSetCache, 'invalidate'>;
  readonly now?: () => number;
}

type Targets = ReadonlyMap<string, string | null>;

/**
 * Notification rules. Conditions arrive validated by the route (domain/rule-conditions.ts); here: the
 * app lookup, server-assigned ids, actions checked against the app's destinations, and the trigger
 * statistics the worker keeps in the state store.
 */
export class NotificationRulesService {
  readonly #now: () => number;

  constructor(private readonly deps: NotificationRulesDeps) {
    this.#now = deps.now ?? Date.now;
  }

  async create(accountId: string, appIdOrSlug: string, input: NewRuleInput): Promise<RuleView> {
    const app = await requireApp(this.deps.metadata.apps, accountId, appIdOrSlug);
    // In one transaction with the destinations locked FOR SHARE: see DestinationsService.delete.
    const { rule, targets } = await this.deps.metadata.transaction(async (tx) => {
      const resolved = await resolveActions(tx.destinations, app.id, input.actions, []);
      const created = await tx.rules.create({
        appId: app.id,
        name: input.name,
        eventName: input.eventName,
        enabled: input.enabled,
        match: input.match,
        conditions: toConditions(input.conditions, []),
        actions: resolved.actions,
        cooldownSeconds: input.cooldownSeconds,
        trigger: plainTrigger(input.trigger),
      });
      return { rule: created, targets: resolved.targets };
    });
    await this.deps.ruleSets.invalidate();
    await this.#restartClock(rule);
    return toView(rule, targets, { triggerCount: 0, suppressedCount: 0, lastTriggeredAt: null });
  }

  async list(accountId: string, appIdOrSlug: string, page: { limit: number; offset: number }): Promise<RuleView[]> {
    const { apps, rules: repository, destinations } = this.deps.metadata;
    const app = await requireApp(apps, accountId, appIdOrSlug);
    const rules = await repository.list(app.id, page);
    const [targets, stats] = await Promise.all([targetsOf(destinations, app.id, rules), readRuleStats(this.deps.state, rules.map((r) => r.id))]);
    return rules.map((rule, i) => toView(rule, targets, stats[i]!));
  }

  async get(accountId: string, appIdOrSlug: string, ruleId: string): Promise<RuleView> {
    const { apps, rules, destinations } = this.deps.metadata;
    const app = await requireApp(apps, accountId, appIdOrSlug);
    const rule = await requireById(ruleId, (id) => rules.findById(app.id, id));
    return this.#viewOne(destinations, rule);
  }

  /** `conditions` and `actions`, when given, replace the old lists; ids sent back are kept (withIds). */
  async update(accountId: string, appIdOrSlug: string, ruleId: string, changes: RuleChanges): Promise<RuleView> {
    const app = await requireApp(this.deps.metadata.apps, accountId, appIdOrSlug);
    const { rule, before, targets, changed } = await this.deps.metadata.transaction(async (tx) => {
      const row = await requireById(ruleId, (id) => tx.rules.findById(app.id, id));
      const resolved = changes.actions === undefined ? undefined : await resolveActions(tx.destinations, app.id, changes.actions, row.actions);
      const next: NotificationRuleChanges = {
        ...definedOnly({ name: changes.name, eventName: changes.eventName, enabled: changes.enabled, match: changes.match, cooldownSeconds: changes.cooldownSeconds }),
        ...(changes.trigger === undefined ? {} : { trigger: plainTrigger(changes.trigger) }),
        ...(changes.conditions === undefined ? {} : { conditions: toConditions(changes.conditions, row.conditions) }),
        ...(resolved ? { actions: resolved.actions } : {}),
      };
      // Key order is no difference: PostgreSQL's jsonb returns keys in its own order. Only a real
      // change is written, so `updatedAt` means "last changed".
      const differs = (Object.keys(next) as Array<keyof NotificationRuleChanges>).some((key) => !isDeepStrictEqual(next[key], row[key]));
      const updated = differs ? await tx.rules.update(row.id, next) : row;
      if (!updated) throw notFound();
      return { rule: updated, before: row, targets: resolved?.targets ?? (await targetsOf(tx.destinations, app.id, [row])), changed: differs };
    });
    if (changed) await this.deps.ruleSets.invalidate();
    // An absence clock restarts when the rule is enabled or its trigger changes.
    if (changed && (rule.enabled !== before.enabled || !isDeepStrictEqual(rule.trigger, before.trigger))) await this.#restartClock(rule);
    const [stats] = await readRuleStats(this.deps.state, [rule.id]);
    return toView(rule, targets, stats!);
  }

  async delete(accountId: string, appIdOrSlug: string, ruleId: string): Promise<void> {
    const app = await requireApp(this.deps.metadata.apps, accountId, appIdOrSlug);
    await deleteById(ruleId, (id) => this.deps.metadata.rules.delete(app.id, id));
    await this.deps.ruleSets.invalidate();
    // The rule is gone for clients; leftover state only costs a few bytes (and an absence deadline of
    // a deleted rule is dropped when it comes due), so a failure is logged.
    try {
      await this.deps.state.forgetRule(ruleId.toLowerCase());
    } catch (err) {
      this.deps.logger.warn({ err, ruleId }, 'rule deleted, but removing its state failed');
    }
  }

  /**
   * Snoozes the rule until `until`, or ends a snooze (`null`). While snoozed, the rule keeps its state
   * and counts its triggers (as suppressed too) but creates no delivery.
   */
  async snooze(accountId: string, appIdOrSlug: string, ruleId: string, until: Date | null): Promise<RuleView> {
    const app = await requireApp(this.deps.metadata.apps, accountId, appIdOrSlug);
    const rule = await this.deps.metadata.transaction(async (tx) => {
      const row = await requireById(ruleId, (id) => tx.rules.findById(app.id, id));
      const updated = await tx.rules.update(row.id, { snoozedUntil: until });
      if (!updated) throw notFound();
      return updated;
    });
    await this.deps.ruleSets.invalidate();
    return this.#viewOne(this.deps.metadata.destinations, rule);
  }

  /** One rule as the API shows it: its actions' targets and its trigger statistics, read together. */
  async #viewOne(destinations: Pick<DestinationRepository, 'findByIds'>, rule: NotificationRuleRecord): Promise<RuleView> {
    const [targets, [stats]] = await Promise.all([targetsOf(destinations, rule.appId, [rule]), readRuleStats(this.deps.state, [rule.id])]);
    return toView(rule, targets, stats!);
  }

  /**
   * Starts an enabled absence rule's clock from now, or forgets the clock of any other rule. A failure
   * is logged, not answered: the rule is saved, and its next matching event starts the clock anyway.
   */
  async #restartClock(rule: NotificationRuleRecord): Promise<void> {
    try {
      if (rule.enabled && rule.trigger.type === 'absence') await this.deps.state.armAbsence(rule.id, rule.appId, this.#now() + rule.trigger.windowSeconds * 1000);
      else await this.deps.state.disarmAbsence(rule.id);
    } catch (err) {
      this.deps.logger.error({ err, ruleId: rule.id }, 'rule saved, but starting its absence clock failed; its next matching event starts it');
    }
  }
}

/**
 * Checks every action against the app's destinations (inside a transaction that saves the rule,
 * locked FOR SHARE until it ends; `lock: 'none'` for a rule that is only tried, never saved): the
 * destination must be the app's, and `channel`, when sent, must be its type.
 * All problems are reported at once, each with its path (`actions.1.destinationId`).
 */
export async function resolveActions(
  destinations: Pick<DestinationRepository, 'findByIds'>,
  appId: string,
  inputs: readonly RuleActionInput[],
  current: readonly StoredRuleAction[],
  lock: 'share' | 'none' = 'share',
): Promise<{ actions: StoredRuleAction[]; targets: Targets }> {
  const ids = [...new Set(inputs.map((a) => a.destinationId.toLowerCase()))];
  const found = new Map((await (lock === 'share' ? destinations.findByIds(appId, ids, 'share') : destinations.findByIds(appId, ids))).map((d) => [d.id, d]));
  const details: ErrorDetail[] = [];
  inputs.forEach((action, i) => {
    const destination = found.get(action.destinationId.toLowerCase());
    if (!destination) details.push({ path: `actions.${i}.destinationId`, message: 'must be the id of a destination of this app' });
    else if (action.channel !== undefined && action.channel !== destination.type) {
      details.push({ path: `actions.${i}.channel`, message: `must be "${destination.type}", the type of the destination` });
    }
  });
  if (details.length > 0) throw new DomainError('validation_failed', `${details[0]!.path}: ${details[0]!.message}`, { details });
  const withDestination = withIds(inputs, current);
  const actions = withDestination.map((action) => {
    const destination = found.get(action.destinationId.toLowerCase())!;
    const template = plainTemplate(action.template);
    return { id: action.id, destinationId: destination.id, channel: destination.type, enabled: action.enabled, ...(template ? { template } : {}) };
  });
  return { actions, targets: new Map([...found.values()].map((d) => [d.id, shownTarget(d)])) };
}

/**
 * Server-assigned condition and action ids. An id sent back from a read is kept when it names an item
 * of the list being replaced, so a client that PATCHes what it read keeps stable ids; deliveries are
 * unique per action id, so a re-sent action must not look like a new one. Any other id, or a second
 * use of one, gets a new UUID.
 */
function withIds<T extends { readonly id?: string | undefined }>(items: readonly T[], current: readonly { readonly id: string }[]): Array<T & { id: string }> {
  const known = new Set(current.map((item) => item.id));
  const used = new Set<string>();
  return items.map((item) => {
    const id = item.id !== undefined && known.has(item.id) && !used.has(item.id) ? item.id : randomUUID();
    used.add(id);
    return { ...item, id };
  });
}

/** Stored conditions: ids assigned, and no `value` key at all where none was given (`exists`). */
export function toConditions(inputs: readonly ConditionInput[], current: readonly Condition[]): Condition[] {
  return withIds(inputs, current).map(plainCondition);
}

/** A condition with exactly its own keys: `value` is left out rather than undefined. */
function plainCondition({ id, field, operator, value }: Condition): Condition {
  return { id, field, operator, ...(value === undefined ? {} : { value }) };
}

/** Each action's shown target, from one query for all the destinations the rules use. */
async function targetsOf(destinations: Pick<DestinationRepository, 'findByIds'>, appId: string, rules: readonly NotificationRuleRecord[]): Promise<Targets> {
  const ids = [...new Set(rules.flatMap((rule) => rule.actions.map((a) => a.destinationId)))];
  return new Map((await destinations.findByIds(appId, ids)).map((d) => [d.id, shownTarget(d)]));
}

function toView(rule: NotificationRuleRecord, targets: Targets, stats: RuleStats): RuleView {
  return {
    id: rule.id,
    appId: rule.appId,
    name: rule.name,
    eventName: rule.eventName,
    enabled: rule.enabled,
    match: rule.match,
    conditions: rule.conditions.map(plainCondition),
    actions: rule.actions.map((a) => ({
      id: a.id,
      destinationId: a.destinationId,
      channel: a.channel,
      target: targets.get(a.destinationId) ?? null,
      enabled: a.enabled,
      ...(a.template ? { template: a.template } : {}),
    })),
    cooldownSeconds: rule.cooldownSeconds,
    trigger: plainTrigger(rule.trigger),
    snoozedUntil: rule.snoozedUntil?.toISOString() ?? null,
    ...stats,
    createdAt: rule.createdAt.toISOString(),
    updatedAt: rule.updatedAt.toISOString(),
  };
}
