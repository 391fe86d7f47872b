import { EntitySchema, type Opt, type Ref } from '@mikro-orm/core';
import { v7 as uuidv7 } from 'uuid';
import type { Condition, MatchMode } from '../../../domain/rule-conditions.js';
import type { RuleTrigger } from '../../../domain/rule-trigger.js';
import { type App, AppEntity } from './app.entity.js';
import { timestampProperties } from './timestamps.js';
import type { StoredRuleAction } from '../../../ports/metadata.js';

/**
 * A notification rule. Conditions and actions are JSON columns: they are always read and written with
 * their rule, never queried on their own, and the worker loads an app's enabled rules in one query
 * through the (app_id, event_name) index.
 *
 * Actions refer to destinations by id inside the JSON, so the database cannot refuse the deletion of
 * a destination in use; the destinations service checks and serialises that (destinations.service.ts).
 * `triggerCount` and `lastTriggeredAt` are not here: the worker counts in the state store
 * (`ruleStatKeys`), where increments are atomic across processes without a row lock per trigger.
 */
export interface NotificationRule {
  id: Opt<string>;
  app: Ref<App>;
  name: string;
  eventName: string;
  enabled: boolean;
  match: MatchMode;
  conditions: Condition[];
  actions: StoredRuleAction[];
  cooldownSeconds: number;
  trigger: RuleTrigger;
  snoozedUntil: Date | null;
  createdAt: Opt<Date>;
  updatedAt: Opt<Date>;
}

export const NotificationRuleEntity = new EntitySchema<NotificationRule>({
  name: 'NotificationRule',
  tableName: 'notification_rule',
  indexes: [{ name: 'notification_rule_app_event_name_index', properties: ['app', 'eventName'] }],
  properties: {
    id: { type: 'uuid', primary: true, onCreate: () => uuidv7() },
    app: { kind: 'm:1', entity: () => AppEntity, ref: true, deleteRule: 'cascade' },
    name: { type: 'string', length: 200 },
    eventName: { type: 'string', length: 200 },
    enabled: { type: 'boolean' },
    match: { type: 'string', length: 8 },
    conditions: { type: 'json' },
    actions: { type: 'json' },
    cooldownSeconds: { type: 'integer' },
    trigger: { type: 'json' },
    snoozedUntil: { type: 'datetime', nullable: true },
    ...timestampProperties<NotificationRule>(),
  },
});
