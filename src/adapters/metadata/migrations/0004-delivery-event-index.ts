import { SchemaMigration } from './schema-migration.js';

/**
 * An index on `delivery.event_id`, for the worker's check of which deliveries of a batch of events
 * exist already. Asked as an OR of (rule, action, event) triples that all share one rule and action,
 * PostgreSQL factored the common pair out and scanned every delivery the rule ever made: the check
 * slowed with the rule's history until the worker fell behind (a 30-minute soak, 520,000 deliveries
 * of one rule: 0.6 s per batch). Asked by event id instead, it reads the few rows of those events.
 *
 * Cost: building the index reads the whole table once and blocks writes to it meanwhile (about a
 * second per million deliveries on a small server). It runs once, inside the Migrator's transaction.
 */
export class Migration0004DeliveryEventIndex extends SchemaMigration {
  override up(): void {
    this.addSchema((schema) =>
      schema.alterTable('delivery', (t) => {
        t.index(['event_id'], 'delivery_event_id_index');
      }),
    );
  }
}
