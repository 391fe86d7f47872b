import type {
  AccountRecord,
  AppRecord,
  ClientSecretRecord,
  DeliveryAttemptRecord,
  DeliveryRecord,
  DestinationRecord,
  EventSchemaRecord,
  NotificationRuleRecord,
} from '../../ports/metadata.js';
import type { Account } from './entities/account.entity.js';
import type { App } from './entities/app.entity.js';
import type { ClientSecret } from './entities/client-secret.entity.js';
import type { Delivery } from './entities/delivery.entity.js';
import type { DeliveryAttempt } from './entities/delivery-attempt.entity.js';
import type { Destination } from './entities/destination.entity.js';
import type { EventSchema } from './entities/event-schema.entity.js';
import type { NotificationRule } from './entities/notification-rule.entity.js';

/**
 * Entity → record: references become ids, and the record is a new object rather than the entity, so
 * that no caller can change what the ORM's unit of work would write back. JSON values are shared with
 * the entity; the record types make them readonly.
 */

export function toAccountRecord(account: Account): AccountRecord {
  return { id: account.id, name: account.name, createdAt: account.createdAt };
}

export function toAppRecord(app: App): AppRecord {
  return {
    id: app.id,
    accountId: app.account.id,
    name: app.name,
    slug: app.slug,
    apiKeyDigest: app.apiKeyDigest,
    apiKeyPrefix: app.apiKeyPrefix,
    defaultMetadata: app.defaultMetadata,
    createdAt: app.createdAt,
    updatedAt: app.updatedAt,
  };
}

export function toClientSecretRecord(secret: ClientSecret): ClientSecretRecord {
  return {
    id: secret.id,
    accountId: secret.account.id,
    label: secret.label,
    scopes: secret.scopes,
    digest: secret.digest,
    hint: secret.hint,
    createdAt: secret.createdAt,
    lastUsedAt: secret.lastUsedAt,
    revokedAt: secret.revokedAt,
  };
}

export function toEventSchemaRecord(schema: EventSchema): EventSchemaRecord {
  return {
    id: schema.id,
    appId: schema.app.id,
    eventName: schema.eventName,
    description: schema.description,
    fields: schema.fields,
    metadataFields: schema.metadataFields,
    createdAt: schema.createdAt,
    updatedAt: schema.updatedAt,
  };
}

export function toNotificationRuleRecord(rule: NotificationRule): NotificationRuleRecord {
  return {
    id: rule.id,
    appId: rule.app.id,
    name: rule.name,
    eventName: rule.eventName,
    enabled: rule.enabled,
    match: rule.match,
    conditions: rule.conditions,
    actions: rule.actions,
    cooldownSeconds: rule.cooldownSeconds,
    trigger: rule.trigger,
    snoozedUntil: rule.snoozedUntil ?? null,
    createdAt: rule.createdAt,
    updatedAt: rule.updatedAt,
  };
}

export function toDestinationRecord(destination: Destination): DestinationRecord {
  return {
    id: destination.id,
    appId: destination.app.id,
    type: destination.type,
    label: destination.label,
    url: destination.url,
    email: destination.email,
    signingSecret: destination.signingSecret,
    verified: destination.verified,
    verifiedAt: destination.verifiedAt,
    createdAt: destination.createdAt,
    updatedAt: destination.updatedAt,
  };
}

export function toDeliveryRecord(delivery: Delivery): DeliveryRecord {
  return {
    id: delivery.id,
    appId: delivery.app.id,
    ruleId: delivery.ruleId,
    actionId: delivery.actionId,
    destinationId: delivery.destinationId,
    eventId: delivery.eventId,
    status: delivery.status,
    // The attempts made in all: the column counts only those of the current retry schedule.
    attempts: delivery.earlierAttempts + delivery.attempts,
    lastError: delivery.lastError,
    nextAttemptAt: delivery.nextAttemptAt,
    createdAt: delivery.createdAt,
    updatedAt: delivery.updatedAt,
  };
}

export function toDeliveryAttemptRecord(attempt: DeliveryAttempt): DeliveryAttemptRecord {
  return {
    number: attempt.number,
    startedAt: attempt.startedAt,
    durationMs: attempt.durationMs,
    outcome: attempt.outcome,
    httpStatus: attempt.httpStatus,
    error: attempt.error,
  };
}
