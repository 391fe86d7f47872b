import { z } from 'zod';
import { EVENT_LEVELS, type StoredEvent } from '../adapters/event-store/event-store.js';
import type { OutgoingMessage } from '../adapters/bus/message-bus.js';
import { isWellFormedUnicode } from '../domain/unicode.js';
import { CANONICAL_UUID } from '../domain/uuid.js';

/**
 * The wire form of an accepted event on the bus (Kafka value, JSON). Versioned so that a worker can
 * refuse, rather than misread, a message from a newer producer. Validated again on consume (STYLE
 * habit 6): a message that does not parse is dead-lettered, never stored half-understood.
 */

const metadataValue = z.union([z.string(), z.number(), z.boolean()]);

export const eventMessageSchema = z
  .object({
    v: z.literal(1),
    id: z.string().regex(CANONICAL_UUID),
    appId: z.string().regex(CANONICAL_UUID),
    event: z.string().min(1).max(200),
    customerId: z.string().nullable(),
    level: z.enum(EVENT_LEVELS),
    data: z.record(z.string(), z.unknown()),
    metadata: z.record(z.string(), metadataValue),
    /** Milliseconds since the epoch. */
    timestamp: z.number().int(),
    ingestedAt: z.number().int(),
  })
  .strict();

export type EventMessage = z.infer<typeof eventMessageSchema>;

export function encodeEventMessage(event: StoredEvent): OutgoingMessage {
  const message: EventMessage = {
    v: 1,
    id: event.id,
    appId: event.appId,
    event: event.event,
    customerId: event.customerId,
    level: event.level,
    data: { ...event.data },
    metadata: { ...event.metadata },
    timestamp: event.timestamp.getTime(),
    ingestedAt: event.ingestedAt.getTime(),
  };
  // Keyed by app: one app's events share a partition, so the worker sees them in ingest order.
  return { key: event.appId, value: Buffer.from(JSON.stringify(message), 'utf8') };
}

export type DecodeResult = { ok: true; event: StoredEvent } | { ok: false; reason: string };

export function decodeEventMessage(value: Buffer): DecodeResult {
  let json: unknown;
  try {
    json = JSON.parse(value.toString('utf8'));
  } catch {
    return { ok: false, reason: 'value is not JSON' };
  }
  const parsed = eventMessageSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ok: false, reason: `invalid event message: ${issue.path.join('.') || 'value'}: ${issue.message}` };
  }
  const m = parsed.data;
  // JSON may carry lone surrogates ("\ud800"); the store refuses them in its plain string columns,
  // and a message the store always refuses must be dead-lettered, not retried forever.
  for (const [field, text] of [['event', m.event], ['customerId', m.customerId ?? '']] as const) {
    if (!isWellFormedUnicode(text)) return { ok: false, reason: `invalid event message: ${field}: not well-formed Unicode` };
  }
  return {
    ok: true,
    event: {
      id: m.id,
      appId: m.appId,
      event: m.event,
      customerId: m.customerId,
      level: m.level,
      data: m.data,
      metadata: m.metadata,
      timestamp: new Date(m.timestamp),
      ingestedAt: new Date(m.ingestedAt),
    },
  };
}
