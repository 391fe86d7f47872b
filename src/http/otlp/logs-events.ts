import { MAX_DAYS_PER_REQUEST } from '../../domain/request-days.js';
import type { IngestItem } from '../../services/ingest.service.js';
import { ingestEventSchema } from '../routes/ingest-body.js';
import { toIngestItem } from '../routes/ingest.route.js';
import type { OtlpAnyValue, OtlpKeyValue, OtlpLogRecord, OtlpLogsRequest } from './logs-wire.js';

/**
 * OTLP log records as events of the key's app:
 * - `event`: the record's event name, else its `event.name` attribute, else `log`;
 * - `level`: from the severity number, 1–12 `info`, 13–16 `warning`, 17–24 `error`; unset, `info`;
 * - `customer_id`: the `enduser.id` or the `customer.id` attribute;
 * - `timestamp`: the record's time, else its observed time, else the time of ingestion;
 * - `data`: the record's attributes, plus `body` when the record has one;
 * - `metadata`: the resource's string, number and boolean attributes (`service.name` …).
 * Each event is then checked like one sent to POST /v1/ingest; a record that fails is rejected alone
 * (the answer's partial success counts it), as is every record past MAX_RECORDS_PER_REQUEST.
 */

/** Records one request may carry: the events of a request travel in one bus message. */
export const MAX_RECORDS_PER_REQUEST = 1000;

export interface MappedRecords {
  readonly items: IngestItem[];
  readonly rejected: Array<{ readonly message: string }>;
  /** How many records the request held. */
  readonly total: number;
}

export function logRecordsAsEvents(request: OtlpLogsRequest): MappedRecords {
  const records: Array<{ record: OtlpLogRecord; resource: readonly OtlpKeyValue[] }> = [];
  for (const resourceLogs of request.resourceLogs ?? []) {
    for (const scopeLogs of resourceLogs.scopeLogs ?? []) {
      for (const record of scopeLogs.logRecords ?? []) records.push({ record, resource: resourceLogs.resource?.attributes ?? [] });
    }
  }
  const rejected: Array<{ message: string }> = [];
  const checked: Array<{ item: IngestItem } | { message: string }> = records.map(({ record, resource }, index) => {
    if (index >= MAX_RECORDS_PER_REQUEST) return { message: `at most ${MAX_RECORDS_PER_REQUEST} log records are accepted per request` };
    const parsed = ingestEventSchema.safeParse(eventOf(record, resource));
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      return { message: `${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}` };
    }
    return { item: toIngestItem(parsed.data) };
  });
  // The same bound on distinct days (UTC dates) as an ingest request's, record by record.
  const items: IngestItem[] = [];
  const days = new Set<string>();
  const today = new Date().toISOString().slice(0, 10);
  for (const entry of checked) {
    if ('message' in entry) {
      rejected.push(entry);
      continue;
    }
    const day = entry.item.timestamp?.toISOString().slice(0, 10) ?? today;
    if (!days.has(day) && days.size === MAX_DAYS_PER_REQUEST) {
      rejected.push({ message: `the records of one request must fall on at most ${MAX_DAYS_PER_REQUEST} distinct days (UTC dates)` });
      continue;
    }
    days.add(day);
    items.push(entry.item);
  }
  return { items, rejected, total: records.length };
}

/** The record as the body of one event of POST /v1/ingest, before validation. */
function eventOf(record: OtlpLogRecord, resource: readonly OtlpKeyValue[]): Record<string, unknown> {
  const attributes = attributesOf(record.attributes ?? []);
  const eventName = record.eventName !== undefined && record.eventName !== '' ? record.eventName : typeof attributes['event.name'] === 'string' ? attributes['event.name'] : 'log';
  const customer = attributes['enduser.id'] ?? attributes['customer.id'];
  const time = nanosAsIso(record.timeUnixNano) ?? nanosAsIso(record.observedTimeUnixNano);
  const metadata = Object.fromEntries(Object.entries(attributesOf(resource)).filter(([, v]) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean'));
  return {
    event: eventName,
    level: levelOf(record.severityNumber),
    data: record.body === undefined ? attributes : { ...attributes, body: valueOf(record.body) },
    ...(typeof customer === 'string' || typeof customer === 'number' ? { customer_id: String(customer) } : {}),
    ...(time === undefined ? {} : { timestamp: time }),
    ...(Object.keys(metadata).length > 0 ? { metadata } : {}),
  };
}

function levelOf(severity: number | string | undefined): 'info' | 'warning' | 'error' {
  const n = Number(severity ?? 0);
  if (n >= 17) return 'error';
  if (n >= 13) return 'warning';
  return 'info';
}

/** Nanoseconds since the epoch (a decimal string or a number) as an ISO time; undefined when unset (0) or unreadable. */
function nanosAsIso(nanos: string | number | undefined): string | undefined {
  if (nanos === undefined) return undefined;
  const text = String(nanos);
  if (!/^\d{1,20}$/.test(text)) return undefined;
  const millis = Number(BigInt(text) / 1_000_000n);
  return millis === 0 ? undefined : new Date(millis).toISOString();
}

function attributesOf(list: readonly OtlpKeyValue[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list) if (key !== undefined && key !== '') out[key] = valueOf(value);
  return out;
}

/** An AnyValue as JSON: int64 beyond the safe integers and non-finite doubles as strings, bytes as base64. */
function valueOf(value: OtlpAnyValue | undefined): unknown {
  if (value === undefined) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) {
    const n = Number(value.intValue);
    return Number.isSafeInteger(n) ? n : String(value.intValue);
  }
  if (value.doubleValue !== undefined) return Number.isFinite(value.doubleValue) ? value.doubleValue : String(value.doubleValue);
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(valueOf);
  if (value.kvlistValue !== undefined) return attributesOf(value.kvlistValue.values ?? []);
  if (value.bytesValue !== undefined) return value.bytesValue;
  return null;
}
