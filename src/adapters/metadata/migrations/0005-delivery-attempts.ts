import { SchemaMigration } from './schema-migration.js';

/**
 * Delivery attempts: one row per attempt of a delivery (when it started, how long it took, how it
 * ended, the receiver's HTTP status and the error), and `delivery.earlier_attempts`, the attempts
 * made before the delivery was last retried by hand (`POST …/deliveries/{id}/retry`). A retry starts
 * a fresh schedule (`delivery.attempts` back to 0) while the attempts go on numbering from there:
 * attempt number = earlier_attempts + attempts.
 *
 * The primary key (delivery_id, number) leads with the delivery: it is the index that reads one
 * delivery's attempts in order and that the cascade from `delivery` uses. `app_id` is a plain column
 * (the delivery's cascade already takes the rows when the app goes), there to scope reads by app.
 *
 * Cost: creates an empty table, and adds a column with a constant default, which rewrites nothing on
 * PostgreSQL 11+ or SQLite: nothing on any database size. Deliveries attempted before this migration
 * have no attempt rows; their attempts count as made all the same. Runs once, inside the Migrator's
 * transaction.
 */
export class Migration0005DeliveryAttempts extends SchemaMigration {
  override up(): void {
    this.addSchema((schema) =>
      schema
        .alterTable('delivery', (t) => {
          t.integer('earlier_attempts').notNullable().defaultTo(0);
        })
        .createTable('delivery_attempt', (t) => {
          t.uuid('delivery_id').notNullable().references('id').inTable('delivery').onDelete('CASCADE');
          t.integer('number').notNullable();
          t.uuid('app_id').notNullable();
          t.timestamp('started_at', { useTz: true, precision: 3 }).notNullable();
          // Null while the attempt is in progress, and for one abandoned by its worker.
          t.integer('duration_ms').nullable();
          t.string('outcome', 16).notNullable();
          t.integer('http_status').nullable();
          t.text('error').nullable();
          t.primary(['delivery_id', 'number'], 'delivery_attempt_pkey');
        }),
    );
  }
}
