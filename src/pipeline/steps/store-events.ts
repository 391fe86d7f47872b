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
 * again after a crash or a rebalance never shows an event twice. Not an async function, so that the
 * events are not held here while the insert is on its way (EventStore's SQL insert says why).
 */
export function storeEventsStep(deps: { readonly events: Pick<EventStore, 'insert'> }): (decoded: DecodedBatch) => Promise<StoredBatch> {
  return ({ events }) => {
    const inserted = events.length;
    const done = (): StoredBatch => ({ step: 'stored', inserted });
    return inserted === 0 ? Promise.resolve(done()) : deps.events.insert(events).then(done);
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
