import { SchemaMigration } from './schema-migration.js';

/**
 * Rule triggers and snooze: `notification_rule.trigger` (JSON, see domain/rule-trigger.ts; existing
 * rules become `{"type":"every"}`, what they did before) and `snoozed_until` (null: not snoozed).
 * Action templates live inside the `actions` JSON and need no column. Adding a column with a constant
 * default rewrites nothing on PostgreSQL 11+ or SQLite, so this costs nothing on any database size.
 */
export class Migration0006RuleTriggers extends SchemaMigration {
  override up(): void {
    this.addSchema((schema) =>
      schema.alterTable('notification_rule', (t) => {
        t.jsonb('trigger').notNullable().defaultTo('{"type":"every"}');
        t.timestamp('snoozed_until', { useTz: true, precision: 3 }).nullable();
      }),
    );
  }
}
