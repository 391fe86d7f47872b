import { AccountEntity } from './account.entity.js';
import { AppEntity } from './app.entity.js';
import { ClientSecretEntity } from './client-secret.entity.js';
import { DeliveryEntity } from './delivery.entity.js';
import { DeliveryAttemptEntity } from './delivery-attempt.entity.js';
import { DestinationEntity } from './destination.entity.js';
import { EventSchemaEntity } from './event-schema.entity.js';
import { NotificationRuleEntity } from './notification-rule.entity.js';
import { ServiceSettingEntity } from './service-setting.entity.js';

/**
 * Every entity of the metadata database, handed to MikroORM explicitly so discovery never globs
 * the file system (the same list works from src under vitest/tsx and from dist).
 */
export const metadataEntities = [
  AccountEntity,
  ClientSecretEntity,
  AppEntity,
  EventSchemaEntity,
  ServiceSettingEntity,
  DestinationEntity,
  NotificationRuleEntity,
  DeliveryEntity,
  DeliveryAttemptEntity,
];
