import type { EventStore } from '../../ports/event-store.js';
import type { StoredEvent } from '../../domain/events.js';
import type { DecodedBatch } from './decode-batch.js';
import { entryOf } from '../../lib/map-entry.js';

export interface StoredBatch {
  readonly step: 'stored';
  /** How many this step inserted. */
  readonly inserted: number;
}

/**
 * Stores the batch's events in one insert. Inserting is idempotent by event id, so a batch consumed
 * again after a crash or a rebalance never shows an event twice.
 */
export function storeEventsStep(deps: { readonly events: Pick<EventStore, 'insert'> }): (decoded: DecodedBatch) => Promise<StoredBatch> {
  return async ({ events }) => {
    if (events.length > 0) await deps.events.insert(events);
    return { step: 'stored', inserted: events.length };
  };
}

/**
 * The events grouped by app, each app's in the order given (partition order: the app's ingest order).
 * The app is the actor of rule evaluation, which takes them so.
 */
export function eventsByApp(events: readonly StoredEvent[]): Map<string, StoredEvent[]> {
  const byApp = new Map<string, StoredEvent[]>();
  for (const event of events) entryOf(byApp, event.appId, () => []).push(event);
  return byApp;
}
