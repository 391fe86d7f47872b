import type { EntityManager } from '@mikro-orm/core';
import { type NotificationRule, NotificationRuleEntity } from '../entities/notification-rule.entity.js';

export type NewNotificationRule = { appId: string } & Pick<NotificationRule, 'name' | 'eventName' | 'enabled' | 'match' | 'conditions' | 'actions' | 'cooldownSeconds'>;

export async function createNotificationRule(em: EntityManager, input: NewNotificationRule): Promise<NotificationRule> {
  const { appId, ...fields } = input;
  const rule = em.create(NotificationRuleEntity, { app: appId, ...fields });
  await em.flush();
  return rule;
}

/** The rule with this id in this app, or null; `id` must have the form of a UUID. */
export async function findNotificationRuleById(em: EntityManager, appId: string, id: string): Promise<NotificationRule | null> {
  return em.findOne(NotificationRuleEntity, { id, app: appId });
}

/** A page of an app's rules in creation order (stable offset paging while rules are added). */
export async function listNotificationRules(em: EntityManager, appId: string, page: { limit: number; offset: number }): Promise<NotificationRule[]> {
  return em.find(NotificationRuleEntity, { app: appId }, { orderBy: { createdAt: 'asc', id: 'asc' }, limit: page.limit, offset: page.offset });
}

/** The app's enabled rules, what the worker evaluates events against. */
export async function listEnabledNotificationRules(em: EntityManager, appId: string): Promise<NotificationRule[]> {
  return em.find(NotificationRuleEntity, { app: appId, enabled: true }, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

/**
 * The app's rules with an action on this destination, enabled or not. Actions are JSON, queried
 * differently by each database, so the app's rules are filtered here; an app has tens of rules.
 */
export async function findRulesUsingDestination(em: EntityManager, appId: string, destinationId: string): Promise<NotificationRule[]> {
  const rules = await em.find(NotificationRuleEntity, { app: appId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  return rules.filter((rule) => rule.actions.some((action) => action.destinationId === destinationId));
}

/** True when a row was deleted. */
export async function deleteNotificationRuleById(em: EntityManager, appId: string, id: string): Promise<boolean> {
  return (await em.nativeDelete(NotificationRuleEntity, { id, app: appId })) > 0;
}
