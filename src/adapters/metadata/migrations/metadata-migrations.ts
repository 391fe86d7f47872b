import type { MigrationObject } from '@mikro-orm/core';
import { Migration0001AccountsAppsSchemas } from './0001-accounts-apps-schemas.js';
import { Migration0002ServiceSettings } from './0002-service-settings.js';
import { Migration0003Alerting } from './0003-alerting.js';
import { Migration0004DeliveryEventIndex } from './0004-delivery-event-index.js';
import { Migration0005DeliveryAttempts } from './0005-delivery-attempts.js';
import { Migration0006RuleTriggers } from './0006-rule-triggers.js';

/**
 * Every metadata migration, in the order they run. Listed as classes (MikroORM's `migrationsList`)
 * rather than found by globbing a folder, so the same code works from src (vitest, tsx) and from a
 * compiled dist. The name is what the migrations table records: set it explicitly so bundling or
 * minifying class names can never make a migration look new. Never rename, reorder or edit an
 * entry that has shipped; add a new one at the end.
 */
export const metadataMigrations: readonly MigrationObject[] = [
  { name: '0001-accounts-apps-schemas', class: Migration0001AccountsAppsSchemas },
  { name: '0002-service-settings', class: Migration0002ServiceSettings },
  { name: '0003-alerting', class: Migration0003Alerting },
  { name: '0004-delivery-event-index', class: Migration0004DeliveryEventIndex },
  { name: '0005-delivery-attempts', class: Migration0005DeliveryAttempts },
  { name: '0006-rule-triggers', class: Migration0006RuleTriggers },
];
