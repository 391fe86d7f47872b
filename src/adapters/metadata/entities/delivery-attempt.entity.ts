import { EntitySchema, type PrimaryKeyProp } from '@mikro-orm/core';
import type { DeliveryAttemptOutcome } from '../../../domain/alerting.js';

/**
 * One attempt of one delivery (migration 0005). Inserted `in_progress` by the claim that starts the
 * attempt, completed by the worker's finish, or marked `abandoned` by the claim of the next attempt
 * when its worker never finished it.
 *
 * The delivery is named by id, not as a relation: the rows are only ever written by bulk statements
 * and read by delivery id. The database holds the foreign key (ON DELETE CASCADE), so a delivery's
 * attempts go with it, and with its app.
 */
export interface DeliveryAttempt {
  [PrimaryKeyProp]?: ['deliveryId', 'number'];
  deliveryId: string;
  /** From 1, across the delivery's life: `delivery.earlier_attempts + delivery.attempts` at its claim. */
  number: number;
  appId: string;
  startedAt: Date;
  durationMs: number | null;
  outcome: DeliveryAttemptOutcome;
  httpStatus: number | null;
  error: string | null;
}

export const DeliveryAttemptEntity = new EntitySchema<DeliveryAttempt>({
  name: 'DeliveryAttempt',
  tableName: 'delivery_attempt',
  properties: {
    deliveryId: { type: 'uuid', primary: true },
    number: { type: 'integer', primary: true },
    appId: { type: 'uuid' },
    startedAt: { type: 'datetime' },
    durationMs: { type: 'integer', nullable: true },
    outcome: { type: 'string', length: 16 },
    httpStatus: { type: 'integer', nullable: true },
    error: { type: 'text', nullable: true },
  },
});
