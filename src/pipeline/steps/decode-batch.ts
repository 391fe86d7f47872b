import type { ConsumedBatch, ConsumedMessage } from '../../ports/message-bus.js';
import { ALREADY_STORED_HEADER, decodeEventMessage } from '../../domain/messages/event-message.js';
import type { StoredEvent } from '../../domain/events.js';

/** A message the worker cannot take, with the reason it goes to the dead-letter topic. */
export interface DeadLetter {
  readonly message: ConsumedMessage;
  readonly reason: string;
}

/** The first step's outcome: the batch's events in partition order, and what cannot be understood. */
export interface DecodedBatch {
  readonly step: 'decoded';
  readonly events: readonly StoredEvent[];
  /** Ids of `events` the edge already wrote to the store (embedded mode): storing skips them. */
  readonly alreadyStored: ReadonlySet<string>;
  readonly dead: readonly DeadLetter[];
}

/**
 * Validates every message of a consumed batch again (every boundary validates): a message that does
 * not parse, or an entry of it that does not, becomes a dead letter, never an event half understood.
 * Pure: no I/O, so it cannot fail the batch.
 */
export function decodeBatch(batch: ConsumedBatch): DecodedBatch {
  const events: StoredEvent[] = [];
  const alreadyStored = new Set<string>();
  const dead: DeadLetter[] = [];
  for (const message of batch.messages) {
    const decoded = decodeEventMessage(message.value);
    if (!decoded.ok) {
      dead.push({ message, reason: decoded.reason });
      continue;
    }
    const skipInsert = message.headers[ALREADY_STORED_HEADER] === '1';
    for (const event of decoded.events) {
      events.push(event);
      if (skipInsert) alreadyStored.add(event.id);
    }
    for (const entry of decoded.invalid) dead.push({ message: { ...message, value: entry.value }, reason: entry.reason });
  }
  return { step: 'decoded', events, alreadyStored, dead };
}
