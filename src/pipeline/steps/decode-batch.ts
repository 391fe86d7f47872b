import type { ConsumedBatch, ConsumedMessage } from '../../ports/message-bus.js';
import { decodeEventMessage } from '../../domain/messages/event-message.js';
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
  readonly dead: readonly DeadLetter[];
}

/** What decoding found, counted: the storing chain's record, which keeps no event once they are stored. */
export interface DecodedTally {
  readonly step: 'decoded';
  readonly events: number;
  readonly deadLetters: number;
}

/**
 * Validates every message of a consumed batch again (every boundary validates): a message that does
 * not parse, or an entry of it that does not, becomes a dead letter, never an event half understood.
 * Pure: no I/O, so it cannot fail the batch.
 */
export function decodeBatch(batch: ConsumedBatch): DecodedBatch {
  const events: StoredEvent[] = [];
  const dead: DeadLetter[] = [];
  for (const message of batch.messages) {
    const decoded = decodeEventMessage(message.value);
    if (!decoded.ok) {
      dead.push({ message, reason: decoded.reason });
      continue;
    }
    events.push(...decoded.events);
    for (const entry of decoded.invalid) dead.push({ message: { ...message, value: entry.value }, reason: entry.reason });
  }
  return { step: 'decoded', events, dead };
}
