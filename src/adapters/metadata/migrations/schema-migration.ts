import { Migration } from '@mikro-orm/migrations';

type SchemaBuilder = ReturnType<Migration['getKnex']>['schema'];

/**
 * Base of every metadata migration. A migration describes its tables once with knex's schema
 * builder; the builder belongs to the connection the Migrator runs on, so it renders the DDL of
 * that database (uuid/timestamptz/jsonb on PostgreSQL, char(36)/datetime/json on SQLite). The
 * statements are only rendered here and then queued with `addSql`, so they run inside the
 * Migrator's transaction, never on a separate connection.
 *
 * Stick to what knex renders as plain statements on both dialects: create table/index, add a
 * nullable column, drop table. Altering or dropping a column on SQLite makes knex rebuild the table
 * through its own connection, which would escape the transaction; do that as create-copy-drop by hand.
 */
export abstract class SchemaMigration extends Migration {
  protected addSchema(build: (schema: SchemaBuilder) => SchemaBuilder): void {
    const knex = this.getKnex();
    for (const { sql, bindings } of build(knex.schema).toSQL()) {
      this.addSql(knex.raw(sql, bindings));
    }
  }
}
