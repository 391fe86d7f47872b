import { z } from 'zod';
import { zonedDateTime } from './date-time.js';
import { MAX_DEFAULT_METADATA_KEYS, MAX_METADATA_STRING_LENGTH, METADATA_KEY_PATTERN, METADATA_KEY_RULE } from '../../domain/default-metadata.js';
import { EVENT_NAME_PATTERN } from '../../domain/event-schema.js';
import { MAX_EVENT_DATA_DEPTH, jsonValueProblem } from '../../domain/json-limits.js';
import { isJsonObject } from '../../domain/json-object.js';
import { MAX_DAYS_PER_REQUEST, firstBeyondDayLimit } from '../../domain/request-days.js';
import { isWellFormedUnicode } from '../../domain/unicode.js';
import { EVENT_LEVELS, MAX_EVENT_FUTURE_MS } from '../../domain/events.js';

export const MAX_EVENTS_PER_REQUEST = 100;
const MAX_CUSTOMER_ID_LENGTH = 256;

const wellFormed = (s: string) => isWellFormedUnicode(s);

const timestampSchema = zonedDateTime().refine((v) => Date.parse(v) <= Date.now() + MAX_EVENT_FUTURE_MS, 'must not be more than 24 hours in the future');

export const ingestEventSchema = z
  .object({
    event: z.string({ error: 'must be a string' }).regex(EVENT_NAME_PATTERN, 'must be 1 to 200 characters of A-Z a-z 0-9 . _ : -').describe('Event name'),
    // Any JSON object. A loose object rather than a record of unknowns: the same values pass (JSON keys
    // are strings), without a parse step per key.
    data: z
      .looseObject({}, { error: 'must be an object' })
      .superRefine((data, ctx) => {
        const problem = jsonValueProblem(data, MAX_EVENT_DATA_DEPTH);
        if (problem) ctx.addIssue({ code: 'custom', message: problem.message, path: [...problem.path] });
      })
      .default({})
      .describe(`Event payload: any JSON object, nested at most ${MAX_EVENT_DATA_DEPTH} levels deep`),
    level: z.enum(EVENT_LEVELS, { error: `must be one of ${EVENT_LEVELS.join(', ')}` }).default('info'),
    customer_id: z
      .string({ error: 'must be a string' })
      .min(1, 'must be a non-empty string')
      .max(MAX_CUSTOMER_ID_LENGTH, `must be at most ${MAX_CUSTOMER_ID_LENGTH} characters`)
      .refine(wellFormed, 'must be valid Unicode')
      .optional()
      .describe('Optional customer reference'),
    timestamp: timestampSchema.optional().describe('Event time (default: time of ingestion)'),
    metadata: z
      .record(
        z.string().regex(METADATA_KEY_PATTERN, `keys must be ${METADATA_KEY_RULE}`),
        z.union([z.string().max(MAX_METADATA_STRING_LENGTH), z.number().finite(), z.boolean()], { error: 'values must be strings, numbers or booleans' }),
        { error: 'must be an object' },
      )
      .refine((m) => Object.keys(m).length <= MAX_DEFAULT_METADATA_KEYS, `must have at most ${MAX_DEFAULT_METADATA_KEYS} keys`)
      .optional()
      .describe('Key-value pairs; merged over the app default metadata'),
  })
  .strict()
  .meta({ id: 'IngestEvent' });

const DAYS_MESSAGE = `the events of one request must fall on at most ${MAX_DAYS_PER_REQUEST} distinct days (UTC dates); send the events of other days in separate requests`;

/** The index of the event whose timestamp makes the batch fall on too many days, or undefined. */
function beyondDayLimit(events: ReadonlyArray<{ readonly timestamp?: string | undefined }>): number | undefined {
  return firstBeyondDayLimit(events.map((e) => (e.timestamp === undefined ? undefined : new Date(e.timestamp))), new Date());
}

/** The batch form of an ingest body: 1 to 100 events, on at most 31 distinct days. */
export const ingestBatchSchema = z
  .array(ingestEventSchema, { error: 'must be an event object or an array of them' })
  .min(1, `must hold 1 to ${MAX_EVENTS_PER_REQUEST} events`)
  .max(MAX_EVENTS_PER_REQUEST, `must hold 1 to ${MAX_EVENTS_PER_REQUEST} events`)
  .superRefine((events, ctx) => {
    const index = beyondDayLimit(events);
    if (index !== undefined) ctx.addIssue({ code: 'custom', path: [index, 'timestamp'], message: DAYS_MESSAGE });
  })
  .meta({
    id: 'IngestEventBatch',
    description: `1 to ${MAX_EVENTS_PER_REQUEST} events. A single event object, not in an array, is accepted too: it is a batch of that one event.`,
  });

export const ingestBodySchema = z.union([ingestEventSchema, ingestBatchSchema]);

export type IngestEvent = z.output<typeof ingestEventSchema>;
export type IngestBody = z.output<typeof ingestBodySchema>;

const EVENT_FIELDS: ReadonlySet<string> = new Set(Object.keys(ingestEventSchema.shape));
const LEVELS: ReadonlySet<string> = new Set(EVENT_LEVELS);

/**
 * The ingest body as ingestBodySchema would give it, for the usual case of a well-formed body; or
 * undefined for anything else, which then goes through ingestBodySchema and its messages. It accepts
 * nothing that ingestBodySchema refuses and gives what it would give (ingest-body.test.ts holds the
 * two to that over every way a body can be wrong). zod's generic path was a fifth of the ingest edge's
 * CPU for batches (bench/NOTES.md): this walks each event once and copies only what zod would create.
 */
export function wellFormedIngestBody(raw: unknown): IngestBody | undefined {
  if (!Array.isArray(raw)) return wellFormedEvent(raw);
  if (raw.length < 1 || raw.length > MAX_EVENTS_PER_REQUEST) return undefined;
  const events: IngestEvent[] = [];
  for (const item of raw) {
    const event = wellFormedEvent(item);
    if (!event) return undefined;
    events.push(event);
  }
  return beyondDayLimit(events) === undefined ? events : undefined;
}

function wellFormedEvent(raw: unknown): IngestEvent | undefined {
  if (!isPlainJsonObject(raw)) return undefined;
  for (const key in raw) if (!EVENT_FIELDS.has(key)) return undefined;
  const { event, data, level, customer_id: customerId, timestamp, metadata } = raw;
  if (typeof event !== 'string' || !EVENT_NAME_PATTERN.test(event)) return undefined;
  if (data !== undefined && (!isPlainJsonObject(data) || jsonValueProblem(data, MAX_EVENT_DATA_DEPTH))) return undefined;
  if (level !== undefined && (typeof level !== 'string' || !LEVELS.has(level))) return undefined;
  if (customerId !== undefined && !isCustomerId(customerId)) return undefined;
  // The date-time rule is zod's own, taken whole: a written-out copy of its pattern could drift from it.
  const time = timestamp === undefined ? undefined : timestampSchema.safeParse(timestamp);
  if (time?.success === false) return undefined;
  if (metadata !== undefined && !isWellFormedMetadata(metadata)) return undefined;
  // The shape zod gives: defaults filled in, optional fields present only when sent, objects copied.
  const result: IngestEvent = { event, data: data === undefined ? {} : { ...data }, level: (level ?? 'info') as IngestEvent['level'] };
  if (customerId !== undefined) result.customer_id = customerId as string;
  if (time?.success) result.timestamp = time.data;
  if (metadata !== undefined) result.metadata = { ...(metadata as Record<string, string | number | boolean>) };
  return result;
}

function isCustomerId(value: unknown): boolean {
  return typeof value === 'string' && value.length >= 1 && value.length <= MAX_CUSTOMER_ID_LENGTH && isWellFormedUnicode(value);
}

function isWellFormedMetadata(value: unknown): boolean {
  if (!isPlainJsonObject(value)) return false;
  let keys = 0;
  for (const key in value) {
    keys++;
    if (!METADATA_KEY_PATTERN.test(key)) return false;
    const entry = value[key];
    const ok = typeof entry === 'string' ? entry.length <= MAX_METADATA_STRING_LENGTH : typeof entry === 'boolean' || (typeof entry === 'number' && Number.isFinite(entry));
    if (!ok) return false;
  }
  return keys <= MAX_DEFAULT_METADATA_KEYS;
}

/**
 * An object as JSON.parse makes it, without an own `__proto__` key: zod drops such a key while
 * copying (it sets the copy's prototype instead), so bodies holding one take zod's path.
 */
function isPlainJsonObject(value: unknown): value is Record<string, unknown> {
  return isJsonObject(value) && !Object.hasOwn(value, '__proto__');
}
