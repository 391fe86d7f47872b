import { SchemaMigration } from './schema-migration.js';

/** Service-wide generated values (see service-setting.entity.ts). One empty table: free, runs once. */
export class Migration0002ServiceSettings extends SchemaMigration {
  override up(): void {
    this.addSchema((schema) =>
      schema.createTable('service_setting', (t) => {
        t.string('name', 100).notNullable().primary();
        t.text('value').notNullable();
        t.timestamp('created_at', { useTz: true, precision: 3 }).notNullable();
      }),
    );
  }
}
