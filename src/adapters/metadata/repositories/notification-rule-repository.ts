import type { NewNotificationRule, NotificationRuleChanges, NotificationRuleRecord, NotificationRuleRepository, Page } from '../../../ports/metadata.js';
import { NotificationRuleEntity } from '../entities/notification-rule.entity.js';
import { toNotificationRuleRecord } from '../records.js';
import { createRow, DETACHED, inCreationOrder, updateById, type EntityManagerSource } from '../unit-of-work.js';

export class OrmNotificationRuleRepository implements NotificationRuleRepository {
  constructor(private readonly em: EntityManagerSource) {}

  async create(input: NewNotificationRule): Promise<NotificationRuleRecord> {
    const { appId, conditions, actions, ...fields } = input;
    return createRow(this.em(), NotificationRuleEntity, { ...fields, app: appId, conditions: [...conditions], actions: [...actions] }, toNotificationRuleRecord);
  }

  async findById(appId: string, id: string): Promise<NotificationRuleRecord | null> {
    const rule = await this.em().findOne(NotificationRuleEntity, { id, app: appId }, DETACHED);
    return rule && toNotificationRuleRecord(rule);
  }

  async list(appId: string, page: Page): Promise<NotificationRuleRecord[]> {
    return (await this.em().find(NotificationRuleEntity, { app: appId }, inCreationOrder(page))).map(toNotificationRuleRecord);
  }

  async listEnabled(appId: string): Promise<NotificationRuleRecord[]> {
    return (await this.em().find(NotificationRuleEntity, { app: appId, enabled: true }, inCreationOrder())).map(toNotificationRuleRecord);
  }

  /**
   * Actions are JSON, queried differently by each database, so the app's rules are filtered here; an
   * app has tens of rules.
   */
  async listUsingDestination(appId: string, destinationId: string): Promise<NotificationRuleRecord[]> {
    const rules = await this.em().find(NotificationRuleEntity, { app: appId }, inCreationOrder());
    return rules.filter((rule) => rule.actions.some((action) => action.destinationId === destinationId)).map(toNotificationRuleRecord);
  }

  async update(id: string, changes: NotificationRuleChanges): Promise<NotificationRuleRecord | null> {
    return updateById(this.em(), NotificationRuleEntity, id, changes, toNotificationRuleRecord);
  }

  async delete(appId: string, id: string): Promise<boolean> {
    return (await this.em().nativeDelete(NotificationRuleEntity, { id, app: appId })) > 0;
  }
}
