import { z } from 'zod';
import { isJsonObject } from '../json-object.js';
import { isWellFormedUnicode } from '../unicode.js';
import { CANONICAL_UUID } from '../uuid.js';
import { EVENT_LEVELS, type StoredEvent } from '../events.js';
import type { OutgoingMessage } from './outgoing-message.js';

export const DEAD_LETTER_REASON_HEADER = 'x-dead-letter-reason';


/**
 * The wire form of accepted events on the bus (Kafka value, JSON). Versioned so that a worker can
 * refuse, rather than misread, a message from a newer producer. Validated again on consume: what does
 * not parse is dead-lettered, never stored half-understood.
 *
 * - v2 (written today): `{ v: 2, appId, events: [entry, …] }`, one message per app per produce call.
 *   The edge packs the events that share a produce call and an app into one record: Kafka's per-record
 *   work (encoding, checksums, the broker's and the consumer's per-record costs) was the largest
 *   share of the edge's CPU with one record per event (bench/NOTES.md). Events of one app share a
 *   partition either way, so ordering is unchanged: entries are in ingest order.
 * - v1 (still read): one event per message, `{ v: 1, id, appId, …entry }`. Messages written by an
 *   older edge may still be in the topic during an upgrade.
 */

const metadataValue = z.union([z.string(), z.number(), z.boolean()]);

const entryShape = {
  id: z.string().regex(CANONICAL_UUID),
  event: z.string().min(1).max(200),
  customerId: z.string().nullable(),
  level: z.enum(EVENT_LEVELS),
  data: z.record(z.string(), z.unknown()),
  metadata: z.record(z.string(), metadataValue),
  /** Milliseconds since the epoch. */
  timestamp: z.number().int(),
  ingestedAt: z.number().int(),
};

const entrySchema = z.object(entryShape).strict();
const v1Schema = z.object({ v: z.literal(1), appId: z.string().regex(CANONICAL_UUID), ...entryShape }).strict();
const v2Schema = z
  .object({ v: z.literal(2), appId: z.string().regex(CANONICAL_UUID), events: z.array(z.unknown()).min(1) })
  .strict();
const versionSchema = z.object({ v: z.union([z.literal(1), z.literal(2)]) });

type Entry = z.infer<typeof entrySchema>;

const ENTRY_FIELD_COUNT = Object.keys(entryShape).length;
const LEVELS: ReadonlySet<string> = new Set(EVENT_LEVELS);

/**
 * entrySchema's check written out, for the usual case of a well-formed entry from our own edge. It
 * accepts nothing that entrySchema refuses (event-message.test.ts holds the two to that); whatever it
 * does not accept goes through entrySchema, whose message names the problem. zod's generic object
 * path was the largest part of the worker's decoding (bench/NOTES.md).
 */
function isWellFormedEntry(raw: unknown): raw is Entry {
  if (!isJsonObject(raw)) return false;
  let fields = 0;
  for (const _ in raw) fields++;
  const { id, event, customerId, level, data, metadata, timestamp, ingestedAt } = raw;
  return (
    fields === ENTRY_FIELD_COUNT &&
    typeof id === 'string' &&
    CANONICAL_UUID.test(id) &&
    typeof event === 'string' &&
    event.length >= 1 &&
    event.length <= 200 &&
    (customerId === null || typeof customerId === 'string') &&
    typeof level === 'string' &&
    LEVELS.has(level) &&
    isJsonObject(data) &&
    isJsonObject(metadata) &&
    Object.values(metadata).every((v) => typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) &&
    Number.isSafeInteger(timestamp) &&
    Number.isSafeInteger(ingestedAt)
  );
}

/** One event's entry as JSON text; the edge encodes each event once and joins the texts per app. */
export function encodeEventEntry(event: StoredEvent): string {
  const entry: Entry = {
    id: event.id,
    event: event.event,
    customerId: event.customerId,
    level: event.level,
    data: event.data,
    metadata: event.metadata,
    timestamp: event.timestamp.getTime(),
    ingestedAt: event.ingestedAt.getTime(),
  };
  return JSON.stringify(entry);
}

/** One bus message carrying entries (from encodeEventEntry) of one app, in order. */
export function eventBatchMessage(appId: string, entries: readonly string[]): OutgoingMessage {
  // Joined as text: the entries were serialised once already, and parsing them back to re-serialise
  // would double the edge's JSON work. appId is a canonical UUID (validated by the caller's types
  // and again on consume), so it needs no escaping.
  const value = Buffer.from(`{"v":2,"appId":${JSON.stringify(appId)},"events":[${entries.join(',')}]}`, 'utf8');
  // Keyed by app: one app's events share a partition, so the worker sees them in ingest order.
  return { key: appId, value };
}

/** An event on its way to the bus: its app and its entry (from encodeEventEntry). */
export interface PendingEntry {
  readonly appId: string;
  readonly entry: string;
}

/** Entries as bus messages: one per app, each app's entries in the given order. */
export function messagesByApp(pending: Iterable<PendingEntry>): OutgoingMessage[] {
  const byApp = new Map<string, string[]>();
  for (const { appId, entry } of pending) {
    const entries = byApp.get(appId);
    if (entries) entries.push(entry);
    else byApp.set(appId, [entry]);
  }
  return [...byApp].map(([appId, entries]) => eventBatchMessage(appId, entries));
}

/** Events as bus messages: one per app, in the events' order. */
export function encodeEventMessages(events: readonly StoredEvent[]): OutgoingMessage[] {
  return messagesByApp(events.map((event) => ({ appId: event.appId, entry: encodeEventEntry(event) })));
}

/** An entry that failed validation inside an otherwise readable message, re-encoded on its own. */
export interface InvalidEntry {
  readonly value: Buffer;
  readonly reason: string;
}

export type DecodeResult =
  | { ok: true; events: StoredEvent[]; invalid: InvalidEntry[] }
  | { ok: false; reason: string };

export function decodeEventMessage(value: Buffer): DecodeResult {
  let json: unknown;
  try {
    json = JSON.parse(value.toString('utf8'));
  } catch {
    return { ok: false, reason: 'value is not JSON' };
  }
  const version = versionSchema.safeParse(json);
  if (!version.success) return { ok: false, reason: describe(version.error) };

  if (version.data.v === 1) {
    const parsed = v1Schema.safeParse(json);
    if (!parsed.success) return { ok: false, reason: describe(parsed.error) };
    const { v: _v, appId, ...entry } = parsed.data;
    const event = toEvent(appId, entry);
    return typeof event === 'string' ? { ok: false, reason: event } : { ok: true, events: [event], invalid: [] };
  }

  const parsed = v2Schema.safeParse(json);
  if (!parsed.success) return { ok: false, reason: describe(parsed.error) };
  const { appId } = parsed.data;
  const events: StoredEvent[] = [];
  const invalid: InvalidEntry[] = [];
  // Entry by entry: one bad entry must not hold back, or take to the dead letters, the other events
  // that shared its produce call (they may come from other requests).
  parsed.data.events.forEach((raw, index) => {
    const entry = isWellFormedEntry(raw) ? { success: true as const, data: raw } : entrySchema.safeParse(raw);
    const event = entry.success ? toEvent(appId, entry.data, `events.${index}.`) : describe(entry.error, `events.${index}.`);
    if (typeof event !== 'string') events.push(event);
    else invalid.push({ value: eventBatchMessage(appId, [JSON.stringify(raw)]).value, reason: event });
  });
  return { ok: true, events, invalid };
}

function describe(error: z.ZodError, prefix = ''): string {
  const issue = error.issues[0]!;
  const path = issue.path.join('.');
  return `invalid event message: ${prefix}${path || (prefix ? prefix.slice(0, -1) : 'value')}: ${issue.message}`;
}

/** The event, or why the store would refuse it. */
function toEvent(appId: string, m: Entry, prefix = ''): StoredEvent | string {
  // JSON may carry lone surrogates ("\ud800"); the store refuses them in its plain string columns,
  // and a message the store always refuses must be dead-lettered, not retried forever.
  for (const [field, text] of [['event', m.event], ['customerId', m.customerId ?? '']] as const) {
    if (!isWellFormedUnicode(text)) return `invalid event message: ${prefix}${field}: not well-formed Unicode`;
  }
  return {
    id: m.id,
    appId,
    event: m.event,
    customerId: m.customerId,
    level: m.level,
    data: m.data,
    metadata: m.metadata,
    timestamp: new Date(m.timestamp),
    ingestedAt: new Date(m.ingestedAt),
  };
}
