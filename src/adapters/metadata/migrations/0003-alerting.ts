import { SchemaMigration } from './schema-migration.js';

/**
 * Destinations, notification rules and deliveries. Creates empty tables and their indexes only, so it
 * costs nothing on any database size; it runs once, inside the Migrator's transaction. Types and
 * timestamps as in 0001 (see there).
 *
 * Every table hangs off `app` with ON DELETE CASCADE: deleting an app takes everything of it, even
 * outside the ORM. `delivery.rule_id` and `destination_id` are deliberately not foreign keys (see
 * delivery.entity.ts): a rule's delivery history outlives the rule.
 */
export class Migration0003Alerting extends SchemaMigration {
  override up(): void {
    this.addSchema((schema) =>
      schema
        .createTable('destination', (t) => {
          t.uuid('id').notNullable().primary();
          t.uuid('app_id').notNullable().references('id').inTable('app').onDelete('CASCADE');
          t.string('type', 16).notNullable();
          t.string('label', 200).notNullable();
          t.text('url').nullable();
          t.string('email', 320).nullable();
          t.string('signing_secret', 100).nullable();
          t.boolean('verified').notNullable();
          t.timestamp('verified_at', { useTz: true, precision: 3 }).nullable();
          t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable();
          t.timestamp('updated_at', { useTz: true, precision: 3 }).notNullable();
          // Lists by app, and the cascade from app (PostgreSQL does not index foreign keys by itself).
          t.index(['app_id'], 'destination_app_id_index');
        })
        .createTable('notification_rule', (t) => {
          t.uuid('id').notNullable().primary();
          t.uuid('app_id').notNullable().references('id').inTable('app').onDelete('CASCADE');
          t.string('name', 200).notNullable();
          t.string('event_name', 200).notNullable();
          t.boolean('enabled').notNullable();
          t.string('match', 8).notNullable();
          t.jsonb('conditions').notNullable();
          t.jsonb('actions').notNullable();
          t.integer('cooldown_seconds').notNullable();
          t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable();
          t.timestamp('updated_at', { useTz: true, precision: 3 }).notNullable();
          // Leads with app_id, so it also serves the per-app lists and the cascade.
          t.index(['app_id', 'event_name'], 'notification_rule_app_event_name_index');
        })
        .createTable('delivery', (t) => {
          t.uuid('id').notNullable().primary();
          t.uuid('app_id').notNullable().references('id').inTable('app').onDelete('CASCADE');
          t.uuid('rule_id').notNullable();
          t.uuid('action_id').notNullable();
          t.uuid('destination_id').notNullable();
          t.uuid('event_id').notNullable();
          t.string('status', 16).notNullable();
          t.integer('attempts').notNullable();
          t.text('last_error').nullable();
          t.timestamp('next_attempt_at', { useTz: true, precision: 3 }).nullable();
          t.text('payload').notNullable();
          t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable();
          t.timestamp('updated_at', { useTz: true, precision: 3 }).notNullable();
          // A redelivered event can never create a second delivery of the same action.
          t.unique(['rule_id', 'action_id', 'event_id'], { indexName: 'delivery_rule_action_event_unique' });
          // The list pages newest first by id (UUIDv7) within an app, with or without a rule filter.
          t.index(['app_id', 'id'], 'delivery_app_id_index');
          t.index(['app_id', 'rule_id', 'id'], 'delivery_app_rule_id_index');
          // The retry poller's query: pending deliveries due by now.
          t.index(['status', 'next_attempt_at'], 'delivery_due_index');
        }),
    );
  }
}
