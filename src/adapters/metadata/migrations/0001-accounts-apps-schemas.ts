import { SchemaMigration } from './schema-migration.js';

/**
 * Accounts, client secrets, apps and event schemas. Creates empty tables only, so it costs nothing
 * on any database size; it runs once (the Migrator records it) inside one transaction.
 *
 * Timestamps are `timestamptz(3)` on PostgreSQL (a JS Date has millisecond precision, so values
 * round-trip exactly) and `datetime` on SQLite, where MikroORM stores epoch milliseconds. None has a
 * database default: the ORM sets them, because SQLite's CURRENT_TIMESTAMP would write text, not the
 * number the ORM reads back.
 */
export class Migration0001AccountsAppsSchemas extends SchemaMigration {
  override up(): void {
    this.addSchema((schema) =>
      schema
        .createTable('account', (t) => {
          t.uuid('id').notNullable().primary();
          t.string('name', 200).notNullable();
          t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable();
        })
        .createTable('client_secret', (t) => {
          t.uuid('id').notNullable().primary();
          t.uuid('account_id').notNullable().references('id').inTable('account').onDelete('CASCADE');
          t.string('label', 200).notNullable();
          t.jsonb('scopes').notNullable();
          t.string('digest', 64).notNullable().unique({ indexName: 'client_secret_digest_unique' });
          t.string('hint', 32).notNullable();
          t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable();
          t.timestamp('last_used_at', { useTz: true, precision: 3 }).nullable();
          t.timestamp('revoked_at', { useTz: true, precision: 3 }).nullable();
          t.index(['account_id'], 'client_secret_account_id_index');
        })
        .createTable('app', (t) => {
          t.uuid('id').notNullable().primary();
          // No separate index on account_id: the (account_id, slug) unique index leads with it.
          t.uuid('account_id').notNullable().references('id').inTable('account').onDelete('CASCADE');
          t.string('name', 200).notNullable();
          t.string('slug', 63).notNullable();
          t.string('api_key_digest', 64).notNullable().unique({ indexName: 'app_api_key_digest_unique' });
          t.string('api_key_prefix', 32).notNullable();
          t.jsonb('default_metadata').notNullable();
          t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable();
          t.timestamp('updated_at', { useTz: true, precision: 3 }).notNullable();
          t.unique(['account_id', 'slug'], { indexName: 'app_account_slug_unique' });
        })
        .createTable('event_schema', (t) => {
          t.uuid('id').notNullable().primary();
          t.uuid('app_id').notNullable().references('id').inTable('app').onDelete('CASCADE');
          t.string('event_name', 200).notNullable();
          t.text('description').notNullable();
          t.jsonb('fields').notNullable();
          t.jsonb('metadata_fields').notNullable();
          t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable();
          t.timestamp('updated_at', { useTz: true, precision: 3 }).notNullable();
          t.unique(['app_id', 'event_name'], { indexName: 'event_schema_app_event_name_unique' });
        }),
    );
  }
}
