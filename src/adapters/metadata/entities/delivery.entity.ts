import { EntitySchema, type Opt, type Ref } from '@mikro-orm/core';
import { v7 as uuidv7 } from 'uuid';
import { type App, AppEntity } from './app.entity.js';
import type { DeliveryStatus } from '../../../domain/alerting.js';
import { timestampProperties } from './timestamps.js';

/**
 * One alert of one rule action for one event, with its attempt count (each attempt's details:
 * delivery-attempt.entity.ts).
 *
 * The id is a UUIDv7, so ordering by id is ordering by creation: the list pages on (app_id, id)
 * alone. (rule_id, action_id, event_id) is unique: the pipeline is at-least-once, and a redelivered
 * event must find the delivery it already made instead of alerting twice.
 *
 * Only the app is a foreign key (ON DELETE CASCADE: an app's deletion takes its deliveries). The
 * rule and the destination are plain ids on purpose: deleting a rule keeps the history of what it
 * sent, and a delivery must never block a destination's deletion once no rule uses it. A pending
 * delivery whose destination is gone fails when it is next attempted.
 */
export interface Delivery {
  id: Opt<string>;
  app: Ref<App>;
  ruleId: string;
  actionId: string;
  destinationId: string;
  eventId: string;
  status: Opt<DeliveryStatus>;
  /** Attempts of the current retry schedule: a retry by hand starts a fresh one at 0. */
  attempts: Opt<number>;
  /** Attempts made before the last retry by hand; an attempt's number is this plus `attempts`. */
  earlierAttempts: Opt<number>;
  lastError: Opt<string | null>;
  /**
   * When a pending delivery is due (again): its first attempt's fallback if the queued job is lost,
   * a retry's time, or the end of the lease of an attempt in progress. Null once it succeeded or
   * failed for good.
   */
  nextAttemptAt: Opt<Date | null>;
  /** The alert content (JSON) every attempt sends: fixed when the rule triggered. */
  payload: string;
  createdAt: Opt<Date>;
  updatedAt: Opt<Date>;
}

export const DeliveryEntity = new EntitySchema<Delivery>({
  name: 'Delivery',
  tableName: 'delivery',
  uniques: [{ name: 'delivery_rule_action_event_unique', properties: ['ruleId', 'actionId', 'eventId'] }],
  indexes: [
    { name: 'delivery_app_id_index', properties: ['app', 'id'] },
    { name: 'delivery_app_rule_id_index', properties: ['app', 'ruleId', 'id'] },
    { name: 'delivery_due_index', properties: ['status', 'nextAttemptAt'] },
  ],
  properties: {
    id: { type: 'uuid', primary: true, onCreate: () => uuidv7() },
    app: { kind: 'm:1', entity: () => AppEntity, ref: true, deleteRule: 'cascade' },
    ruleId: { type: 'uuid' },
    actionId: { type: 'uuid' },
    destinationId: { type: 'uuid' },
    eventId: { type: 'uuid' },
    status: { type: 'string', length: 16, onCreate: () => 'pending' },
    attempts: { type: 'integer', onCreate: () => 0 },
    earlierAttempts: { type: 'integer', onCreate: () => 0 },
    lastError: { type: 'text', nullable: true },
    nextAttemptAt: { type: 'datetime', nullable: true },
    // Not selected by the list: the API shows no alert content, and it can be large.
    payload: { type: 'text', lazy: true },
    ...timestampProperties<Delivery>(),
  },
});
