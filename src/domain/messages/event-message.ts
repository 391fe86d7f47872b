import { z } from 'zod';
import { isJsonObject } from '../json-object.js';
import { isWellFormedUnicode } from '../unicode.js';
import { CANONICAL_UUID } from '../uuid.js';
import { EVENT_LEVELS, type StoredEvent } from '../events.js';
import type { OutgoingMessage } from './outgoing-message.js';
import { entryOf } from '../../lib/map-entry.js';

export const DEAD_LETTER_REASON_HEADER = 'x-dead-letter-reason';

const NEWLINE = 0x0a;

/**
 * The wire form of accepted events on the bus (Kafka value, UTF-8). Versioned so that a worker can
 * refuse, rather than misread, a message from a newer producer. Validated again on consume: what does
 * not parse is dead-lettered, never stored half-understood.
 *
 * - v3 (written today): newline-delimited JSON, one message per app per produce call. A first line
 *   `{"v":3,"appId":…}`, then three lines per event, in ingest order: the entry's own fields
 *   (`{"id":…,"event":…,"customerId":…,"level":…,"timestamp":…,"ingestedAt":…}`), its `data` object
 *   and its `metadata` object. JSON text never holds a raw newline, so the lines split without
 *   parsing. data and metadata stay the text they arrived in: the worker checks that each parses to
 *   an object, and stores that same text, instead of building the objects, keeping them for the
 *   insert and serialising them again (bench/NOTES.md).
 * - v2 (still read): `{ v: 2, appId, events: [entry, …] }`, an entry being the six fields above plus
 *   `data` and `metadata`. The edge packs the events that share a produce call and an app into one
 *   record: Kafka's per-record work (encoding, checksums, the broker's and the consumer's per-record
 *   costs) was the largest share of the edge's CPU with one record per event (bench/NOTES.md). Events
 *   of one app share a partition either way, so ordering is unchanged.
 * - v1 (still read): one event per message, `{ v: 1, id, appId, …entry }`.
 *
 * Messages written by an older edge may still be in the topic after an upgrade, which is why the
 * older versions are still read. A worker older than its edge cannot read v3 and dead-letters it, so
 * workers are upgraded first (docs/decisions/0027-event-message-v3.md).
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
const v3HeaderSchema = z.object({ v: z.literal(3), appId: z.string().regex(CANONICAL_UUID) }).strict();
const versionSchema = z.object({ v: z.union([z.literal(1), z.literal(2)]) });

type Entry = z.infer<typeof entrySchema>;
/** An entry's first line in v3: everything but data and metadata. */
type EntryFields = Omit<Entry, 'data' | 'metadata'>;

const ENTRY_FIELD_COUNT = Object.keys(entryShape).length;
const LEVELS: ReadonlySet<string> = new Set(EVENT_LEVELS);

/**
 * entrySchema's check written out, for the usual case of a well-formed entry from our own edge. It
 * accepts nothing that entrySchema refuses (event-message.test.ts holds the two to that); whatever it
 * does not accept goes through entrySchema, whose message names the problem. zod's generic object
 * path was the largest part of the worker's decoding (bench/NOTES.md).
 */
function isWellFormedEntry(raw: unknown): raw is Entry {
  return isJsonObject(raw) && keyCount(raw) === ENTRY_FIELD_COUNT && hasEntryFields(raw) && isJsonObject(raw.data) && isWellFormedMetadata(raw.metadata);
}

/** The same check for a v3 entry's first line, which holds all but data and metadata. */
function isWellFormedFields(raw: unknown): raw is EntryFields {
  return isJsonObject(raw) && keyCount(raw) === ENTRY_FIELD_COUNT - 2 && hasEntryFields(raw);
}

function hasEntryFields(raw: Record<string, unknown>): boolean {
  const { id, event, customerId, level, timestamp, ingestedAt } = raw;
  return (
    typeof id === 'string' &&
    CANONICAL_UUID.test(id) &&
    typeof event === 'string' &&
    event.length >= 1 &&
    event.length <= 200 &&
    (customerId === null || typeof customerId === 'string') &&
    typeof level === 'string' &&
    LEVELS.has(level) &&
    Number.isSafeInteger(timestamp) &&
    Number.isSafeInteger(ingestedAt)
  );
}

function isWellFormedMetadata(metadata: unknown): metadata is Entry['metadata'] {
  if (!isJsonObject(metadata)) return false;
  for (const key in metadata) {
    const value = metadata[key];
    if (!(typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)))) return false;
  }
  return true;
}

function keyCount(object: object): number {
  let count = 0;
  for (const _ in object) count++;
  return count;
}

/** One event's entry, as the three lines of v3: its own fields, data, metadata. Encoded once, at the edge. */
export function encodeEventEntry(event: StoredEvent): string {
  // The id is a canonical UUID and the level one of EVENT_LEVELS (the caller's types), so neither
  // needs escaping; the two free-text fields go through JSON.stringify.
  const fields = `{"id":"${event.id}","event":${JSON.stringify(event.event)},"customerId":${JSON.stringify(event.customerId)},"level":"${event.level}","timestamp":${event.timestamp.getTime()},"ingestedAt":${event.ingestedAt.getTime()}}`;
  return `${fields}\n${JSON.stringify(event.data)}\n${JSON.stringify(event.metadata)}`;
}

/** One bus message carrying entries (from encodeEventEntry) of one app, in order. */
export function eventBatchMessage(appId: string, entries: readonly string[]): OutgoingMessage {
  // The entries were serialised once already; each is written into the message's buffer as it is.
  // Joining them into one string of megabytes, then encoding that, cost about five times as much
  // (bench/NOTES.md).
  const header = `{"v":3,"appId":${JSON.stringify(appId)}}`;
  let size = Buffer.byteLength(header);
  for (const entry of entries) size += 1 + Buffer.byteLength(entry);
  const value = Buffer.allocUnsafe(size);
  let offset = value.write(header, 0, 'utf8');
  for (const entry of entries) {
    value[offset++] = NEWLINE;
    offset += value.write(entry, offset, 'utf8');
  }
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
  for (const { appId, entry } of pending) entryOf(byApp, appId, () => []).push(entry);
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
  // Decoded from UTF-8, the text holds no lone surrogate: a bad byte sequence becomes U+FFFD.
  const lines = utf8Lines(value);
  if (lines.length > 1) {
    const header = parseJson(lines[0]!);
    if (isJsonObject(header) && header.v === 3) return decodeLines(header, lines);
  }
  // v1 and v2 are one JSON document; the lines joined again are the whole text, decoded once.
  return decodeJson(lines.join('\n'));
}

/** How much of a message utf8Lines decodes at a time. */
const DECODE_SLICE_BYTES = 64 * 1024;

/**
 * `value.toString('utf8').split('\n')`, decoded a slice of at most `sliceBytes` at a time, cut where a
 * line ends (a longer line is decoded whole). A produce call's message holds megabytes: decoded to one
 * string, each of its events cost about 0.9 µs to decode and split, where slices of 64 KiB cost under
 * 0.1 µs (bench/NOTES.md). The slices are young strings where the one large string was not, so a
 * worker holding large batches gives part of that back to the collector; embedded mode did not. The
 * result is the same: a newline byte is never part of another character's encoding, so a slice cut
 * there decodes as it would within the whole.
 */
export function utf8Lines(value: Buffer, sliceBytes = DECODE_SLICE_BYTES): string[] {
  let lines: string[] | undefined;
  let start = 0;
  for (;;) {
    let end = value.length;
    if (end - start > sliceBytes) {
      end = value.lastIndexOf(NEWLINE, start + sliceBytes);
      if (end < start) end = value.indexOf(NEWLINE, start + sliceBytes);
      if (end === -1) end = value.length;
    }
    const slice = value.toString('utf8', start, end).split('\n');
    if (lines === undefined) lines = slice;
    else for (const line of slice) lines.push(line);
    if (end === value.length) return lines;
    start = end + 1;
  }
}

/** v3: the first line names the app, then three lines per event. */
function decodeLines(header: Record<string, unknown>, lines: readonly string[]): DecodeResult {
  const parsed = v3HeaderSchema.safeParse(header);
  if (!parsed.success) return { ok: false, reason: describe(parsed.error) };
  const count = (lines.length - 1) / 3;
  if (!Number.isInteger(count)) return { ok: false, reason: `invalid event message: ${lines.length - 1} lines after the first, not three per event` };
  const { appId } = parsed.data;
  const events: StoredEvent[] = [];
  const invalid: InvalidEntry[] = [];
  for (let index = 0; index < count; index++) {
    const [fields, data, metadata] = [lines[1 + 3 * index]!, lines[2 + 3 * index]!, lines[3 + 3 * index]!];
    const event = eventOfLines(appId, fields, { data, metadata }, `events.${index}.`);
    if (typeof event !== 'string') events.push(event);
    else invalid.push({ value: eventBatchMessage(appId, [`${fields}\n${data}\n${metadata}`]).value, reason: event });
  }
  return { ok: true, events, invalid };
}

/** One v3 entry's event, or why the store would refuse it. */
function eventOfLines(appId: string, fieldsLine: string, json: EventJson, prefix: string): StoredEvent | string {
  const fields = parseJson(fieldsLine);
  const data = parseJson(json.data);
  const metadata = parseJson(json.metadata);
  if (isWellFormedFields(fields) && isJsonObject(data) && isWellFormedMetadata(metadata)) {
    return toEvent(appId, fields, data, metadata, prefix, json);
  }
  // Something is wrong: found and named the slow way.
  if (fields === NOT_JSON) return `invalid event message: ${prefix.slice(0, -1)}: not JSON`;
  if (data === NOT_JSON) return `invalid event message: ${prefix}data: not JSON`;
  if (metadata === NOT_JSON) return `invalid event message: ${prefix}metadata: not JSON`;
  if (isJsonObject(fields) && (Object.hasOwn(fields, 'data') || Object.hasOwn(fields, 'metadata'))) {
    return `invalid event message: ${prefix.slice(0, -1)}: data and metadata belong on lines of their own`;
  }
  const entry = entrySchema.safeParse(isJsonObject(fields) ? { ...fields, data, metadata } : fields);
  return entry.success ? toEvent(appId, entry.data, entry.data.data, entry.data.metadata, prefix, json) : describe(entry.error, prefix);
}

const NOT_JSON = Symbol('not JSON');

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

/** v1 and v2: the whole message is one JSON object. */
function decodeJson(text: string): DecodeResult {
  const json = parseJson(text);
  if (json === NOT_JSON) return { ok: false, reason: 'value is not JSON' };
  const version = versionSchema.safeParse(json);
  if (!version.success) return { ok: false, reason: describe(version.error) };

  if (version.data.v === 1) {
    const parsed = v1Schema.safeParse(json);
    if (!parsed.success) return { ok: false, reason: describe(parsed.error) };
    const { v: _v, appId, ...entry } = parsed.data;
    const event = toEvent(appId, entry, entry.data, entry.metadata);
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
    const event = entry.success ? toEvent(appId, entry.data, entry.data.data, entry.data.metadata, `events.${index}.`) : describe(entry.error, `events.${index}.`);
    if (typeof event !== 'string') events.push(event);
    else invalid.push({ value: Buffer.from(JSON.stringify({ v: 2, appId, events: [raw] }), 'utf8'), reason: event });
  });
  return { ok: true, events, invalid };
}

function describe(error: z.ZodError, prefix = ''): string {
  const issue = error.issues[0]!;
  const path = issue.path.join('.');
  return `invalid event message: ${prefix}${path || (prefix ? prefix.slice(0, -1) : 'value')}: ${issue.message}`;
}

/** The event, or why the store would refuse it; `json` the text of its data and metadata (v3). */
function toEvent(appId: string, fields: EntryFields, data: Entry['data'], metadata: Entry['metadata'], prefix = '', json?: EventJson): StoredEvent | string {
  // JSON may carry lone surrogates ("\ud800"); the store refuses them in its plain string columns,
  // and a message the store always refuses must be dead-lettered, not retried forever.
  for (const [field, text] of [['event', fields.event], ['customerId', fields.customerId ?? '']] as const) {
    if (!isWellFormedUnicode(text)) return `invalid event message: ${prefix}${field}: not well-formed Unicode`;
  }
  return new DecodedEvent(appId, fields, data, metadata, json);
}

/** An event's data and metadata as JSON text. */
export interface EventJson {
  readonly data: string;
  readonly metadata: string;
}

/**
 * An event read off the bus. One from a v3 message keeps the text its data and metadata arrived in,
 * so that the store writes that text instead of serialising the objects again. The text is in a
 * private field: spreads, JSON.stringify and equality checks do not see it, so it cannot leak into
 * anything built from the event (a delivery's payload, an API answer).
 */
class DecodedEvent implements StoredEvent {
  readonly id: string;
  readonly appId: string;
  readonly event: string;
  readonly customerId: string | null;
  readonly level: StoredEvent['level'];
  readonly data: StoredEvent['data'];
  readonly metadata: StoredEvent['metadata'];
  readonly timestamp: Date;
  readonly ingestedAt: Date;
  readonly #json: EventJson | undefined;

  constructor(appId: string, fields: EntryFields, data: Entry['data'], metadata: Entry['metadata'], json: EventJson | undefined) {
    this.id = fields.id;
    this.appId = appId;
    this.event = fields.event;
    this.customerId = fields.customerId;
    this.level = fields.level;
    this.data = data;
    this.metadata = metadata;
    this.timestamp = new Date(fields.timestamp);
    this.ingestedAt = new Date(fields.ingestedAt);
    this.#json = json;
  }

  static jsonOf(event: StoredEvent): EventJson | undefined {
    return #json in event ? event.#json : undefined;
  }
}

/**
 * The JSON text of the event's data and metadata as it came off the bus, when it came in a v3
 * message; each parsed to the event's own data and metadata when the message was decoded.
 */
export function receivedJsonOf(event: StoredEvent): EventJson | undefined {
  return DecodedEvent.jsonOf(event);
}
