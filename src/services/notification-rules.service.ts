import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { EntityManager } from '@mikro-orm/core';
import type { NotificationRule, StoredRuleAction } from '../adapters/metadata/entities/notification-rule.entity.js';
import type { MetadataStore } from '../adapters/metadata/metadata-store.js';
import { findDestinationsByIds } from '../adapters/metadata/repositories/destination-repository.js';
import {
  createNotificationRule as insertRule,
  deleteNotificationRuleById,
  findNotificationRuleById,
  listNotificationRules as listRuleRows,
} from '../adapters/metadata/repositories/notification-rule-repository.js';
import type { StateStore } from '../adapters/state/state-store.js';
import { ruleStatKeys, type Channel } from '../delivery/delivery-types.js';
import { DomainError, type ErrorDetail } from '../domain/errors.js';
import type { Condition, ConditionInput, MatchMode } from '../domain/rule-conditions.js';
import { isUuid } from '../domain/uuid.js';
import type { Logger } from '../observability/logger.js';
import { notFound, requireApp } from './app-lookup.js';
import { shownTarget } from './destination-target.js';
import { readRuleStats, type RuleStats } from './rule-stats.js';
import type { RuleSetCache } from './rule-set-cache.js';

/**
 * Notification rules. Conditions arrive validated by the route (domain/rule-conditions.ts); here: the
 * app lookup, server-assigned ids, actions checked against the app's destinations, and the trigger
 * statistics the worker keeps in the state store.
 */
export interface RuleActionView {
  readonly id: string;
  readonly destinationId: string;
  readonly channel: Channel;
  /** The destination's masked url or e-mail address; null only if the destination vanished. */
  readonly target: string | null;
  readonly enabled: boolean;
}

export interface RuleView extends RuleStats {
  readonly id: string;
  readonly appId: string;
  readonly name: string;
  readonly eventName: string;
  readonly enabled: boolean;
  readonly match: MatchMode;
  readonly conditions: Condition[];
  readonly actions: RuleActionView[];
  readonly cooldownSeconds: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface RuleActionInput {
  readonly id?: string | undefined;
  readonly destinationId: string;
  readonly channel?: Channel | undefined;
  readonly enabled: boolean;
}

export interface NewRuleInput {
  readonly name: string;
  readonly eventName: string;
  readonly enabled: boolean;
  readonly match: MatchMode;
  readonly conditions: readonly ConditionInput[];
  readonly actions: readonly RuleActionInput[];
  readonly cooldownSeconds: number;
}

export type RuleChanges = { readonly [K in keyof NewRuleInput]?: NewRuleInput[K] | undefined };

export interface NotificationRulesDeps {
  readonly metadata: MetadataStore;
  readonly state: StateStore;
  readonly logger: Logger;
  /** Told about every change, so every worker evaluates the new rules from its next event. */
  readonly ruleSets: Pick<RuleSetCache, 'invalidate'>;
}

type Targets = ReadonlyMap<string, string | null>;

export async function createNotificationRule(deps: NotificationRulesDeps, accountId: string, appIdOrSlug: string, input: NewRuleInput): Promise<RuleView> {
  const app = await requireApp(deps.metadata.em(), accountId, appIdOrSlug);
  // In one transaction with the destinations locked FOR SHARE: see deleteDestination.
  const { rule, targets } = await deps.metadata.em().transactional(async (tx) => {
    const resolved = await resolveActions(tx, app.id, input.actions, []);
    const created = await insertRule(tx, {
      appId: app.id,
      name: input.name,
      eventName: input.eventName,
      enabled: input.enabled,
      match: input.match,
      conditions: toConditions(input.conditions, []),
      actions: resolved.actions,
      cooldownSeconds: input.cooldownSeconds,
    });
    return { rule: created, targets: resolved.targets };
  });
  await deps.ruleSets.invalidate();
  return toView(rule, targets, { triggerCount: 0, lastTriggeredAt: null });
}

export async function listNotificationRules(deps: NotificationRulesDeps, accountId: string, appIdOrSlug: string, page: { limit: number; offset: number }): Promise<RuleView[]> {
  const em = deps.metadata.em();
  const app = await requireApp(em, accountId, appIdOrSlug);
  const rules = await listRuleRows(em, app.id, page);
  const [targets, stats] = await Promise.all([targetsOf(em, app.id, rules), readRuleStats(deps.state, rules.map((r) => r.id))]);
  return rules.map((rule, i) => toView(rule, targets, stats[i]!));
}

export async function getNotificationRule(deps: NotificationRulesDeps, accountId: string, appIdOrSlug: string, ruleId: string): Promise<RuleView> {
  const em = deps.metadata.em();
  const app = await requireApp(em, accountId, appIdOrSlug);
  const rule = await requireRule(em, app.id, ruleId);
  const [targets, [stats]] = await Promise.all([targetsOf(em, app.id, [rule]), readRuleStats(deps.state, [rule.id])]);
  return toView(rule, targets, stats!);
}

/** `conditions` and `actions`, when given, replace the old lists; ids sent back are kept (withIds). */
export async function updateNotificationRule(
  deps: NotificationRulesDeps,
  accountId: string,
  appIdOrSlug: string,
  ruleId: string,
  changes: RuleChanges,
): Promise<RuleView> {
  const app = await requireApp(deps.metadata.em(), accountId, appIdOrSlug);
  const { rule, targets, changed } = await deps.metadata.em().transactional(async (tx) => {
    const row = await requireRule(tx, app.id, ruleId);
    const resolved = changes.actions === undefined ? undefined : await resolveActions(tx, app.id, changes.actions, row.actions);
    const next: Partial<NotificationRule> = {
      ...definedOnly({ name: changes.name, eventName: changes.eventName, enabled: changes.enabled, match: changes.match, cooldownSeconds: changes.cooldownSeconds }),
      ...(changes.conditions === undefined ? {} : { conditions: toConditions(changes.conditions, row.conditions) }),
      ...(resolved ? { actions: resolved.actions } : {}),
    };
    // Key order is no difference: PostgreSQL's jsonb returns keys in its own order.
    const differs = (Object.keys(next) as Array<keyof NotificationRule>).some((key) => !isDeepStrictEqual(next[key], row[key]));
    // Only a real change is written, so `updatedAt` means "last changed". Clearing the unit of work
    // keeps the commit's flush from writing the unchanged row back (on SQLite the ORM sees its
    // timestamps as changed after a load).
    if (differs) Object.assign(row, next);
    else tx.clear();
    return { rule: row, targets: resolved?.targets ?? (await targetsOf(tx, app.id, [row])), changed: differs };
  });
  if (changed) await deps.ruleSets.invalidate();
  const [stats] = await readRuleStats(deps.state, [rule.id]);
  return toView(rule, targets, stats!);
}

export async function deleteNotificationRule(deps: NotificationRulesDeps, accountId: string, appIdOrSlug: string, ruleId: string): Promise<void> {
  const em = deps.metadata.em();
  const app = await requireApp(em, accountId, appIdOrSlug);
  const deleted = isUuid(ruleId) && (await deleteNotificationRuleById(em, app.id, ruleId.toLowerCase()));
  if (!deleted) throw notFound();
  await deps.ruleSets.invalidate();
  // The rule is gone for clients; leftover counters only cost a few bytes, so a failure is logged.
  const keys = ruleStatKeys(ruleId.toLowerCase());
  try {
    // Per-event `fired` records expire by themselves.
    await Promise.all([keys.triggers, keys.lastTriggeredAt, keys.cooldown].map((key) => deps.state.delete(key)));
  } catch (err) {
    deps.logger.warn({ err, ruleId }, 'rule deleted, but removing its trigger counters failed');
  }
}

async function requireRule(em: EntityManager, appId: string, ruleId: string): Promise<NotificationRule> {
  const rule = isUuid(ruleId) ? await findNotificationRuleById(em, appId, ruleId.toLowerCase()) : null;
  if (!rule) throw notFound();
  return rule;
}

/**
 * Checks every action against the app's destinations (locked FOR SHARE until the transaction ends):
 * the destination must be the app's, and `channel`, when sent, must be its type.
 * All problems are reported at once, each with its path (`actions.1.destinationId`).
 */
async function resolveActions(
  tx: EntityManager,
  appId: string,
  inputs: readonly RuleActionInput[],
  current: readonly StoredRuleAction[],
): Promise<{ actions: StoredRuleAction[]; targets: Targets }> {
  const ids = [...new Set(inputs.map((a) => a.destinationId.toLowerCase()))];
  const destinations = new Map((await findDestinationsByIds(tx, appId, ids, 'share')).map((d) => [d.id, d]));
  const details: ErrorDetail[] = [];
  inputs.forEach((action, i) => {
    const destination = destinations.get(action.destinationId.toLowerCase());
    if (!destination) details.push({ path: `actions.${i}.destinationId`, message: 'must be the id of a destination of this app' });
    else if (action.channel !== undefined && action.channel !== destination.type) {
      details.push({ path: `actions.${i}.channel`, message: `must be "${destination.type}", the type of the destination` });
    }
  });
  if (details.length > 0) throw new DomainError('validation_failed', `${details[0]!.path}: ${details[0]!.message}`, { details });
  const withDestination = withIds(inputs, current);
  const actions = withDestination.map((action) => {
    const destination = destinations.get(action.destinationId.toLowerCase())!;
    return { id: action.id, destinationId: destination.id, channel: destination.type, enabled: action.enabled };
  });
  return { actions, targets: new Map([...destinations.values()].map((d) => [d.id, shownTarget(d)])) };
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
function toConditions(inputs: readonly ConditionInput[], current: readonly Condition[]): Condition[] {
  return withIds(inputs, current).map(({ id, field, operator, value }) => ({ id, field, operator, ...(value === undefined ? {} : { value }) }));
}

/** Each action's shown target, from one query for all the destinations the rules use. */
async function targetsOf(em: EntityManager, appId: string, rules: readonly NotificationRule[]): Promise<Targets> {
  const ids = [...new Set(rules.flatMap((rule) => rule.actions.map((a) => a.destinationId)))];
  return new Map((await findDestinationsByIds(em, appId, ids)).map((d) => [d.id, shownTarget(d)]));
}

function definedOnly<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function toView(rule: NotificationRule, targets: Targets, stats: RuleStats): RuleView {
  return {
    id: rule.id,
    appId: rule.app.id,
    name: rule.name,
    eventName: rule.eventName,
    enabled: rule.enabled,
    match: rule.match,
    conditions: rule.conditions.map(({ id, field, operator, value }) => ({ id, field, operator, ...(value === undefined ? {} : { value }) })),
    actions: rule.actions.map((a) => ({ id: a.id, destinationId: a.destinationId, channel: a.channel, target: targets.get(a.destinationId) ?? null, enabled: a.enabled })),
    cooldownSeconds: rule.cooldownSeconds,
    ...stats,
    createdAt: rule.createdAt.toISOString(),
    updatedAt: rule.updatedAt.toISOString(),
  };
}
