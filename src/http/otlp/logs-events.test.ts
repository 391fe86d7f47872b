import { describe, expect, it } from 'vitest';
import { MAX_RECORDS_PER_REQUEST, logRecordsAsEvents } from './logs-events.js';
import type { OtlpKeyValue, OtlpLogRecord } from './logs-wire.js';

const request = (records: OtlpLogRecord[], resource: OtlpKeyValue[] = [{ key: 'service.name', value: { stringValue: 'api' } }]) => ({
  resourceLogs: [{ resource: { attributes: resource }, scopeLogs: [{ logRecords: records }] }],
});

describe('logRecordsAsEvents', () => {
  it('maps severity numbers to levels: 1–12 info, 13–16 warning, 17–24 error, unset info', () => {
    const levels = [undefined, 0, 1, 12, 13, 16, 17, 24].map((severityNumber) => logRecordsAsEvents(request([{ severityNumber }])).items[0]!.level);
    expect(levels).toEqual(['info', 'info', 'info', 'info', 'warning', 'warning', 'error', 'error']);
  });

  it('takes the event name from the record, else its event.name attribute, else log', () => {
    const names = logRecordsAsEvents(
      request([{ eventName: 'a.b', attributes: [{ key: 'event.name', value: { stringValue: 'ignored' } }] }, { attributes: [{ key: 'event.name', value: { stringValue: 'from.attr' } }] }, {}]),
    ).items.map((i) => i.event);
    expect(names).toEqual(['a.b', 'from.attr', 'log']);
  });

  it('times an event by the record, else by its observation, else leaves it to ingestion', () => {
    const [timed, observed, neither] = logRecordsAsEvents(request([{ timeUnixNano: '1700000000123456789', observedTimeUnixNano: '1700000001000000000' }, { timeUnixNano: '0', observedTimeUnixNano: 1700000001000000000 }, {}])).items;
    expect(timed!.timestamp?.toISOString()).toBe('2023-11-14T22:13:20.123Z');
    expect(observed!.timestamp?.toISOString()).toBe('2023-11-14T22:13:21.000Z');
    expect(neither!.timestamp).toBeUndefined();
  });

  it('turns attribute values into JSON, keeping what a double cannot hold as text', () => {
    const [item] = logRecordsAsEvents(
      request([
        {
          body: { kvlistValue: { values: [{ key: 'k', value: { arrayValue: { values: [{ intValue: '5' }, { boolValue: true }, {}] } } }] } },
          attributes: [
            { key: 'big', value: { intValue: '9223372036854775807' } },
            { key: 'bytes', value: { bytesValue: 'AQI=' } },
            { key: 'customer.id', value: { intValue: 77 } },
          ],
        },
      ]),
    ).items;
    expect(item!.data).toEqual({ big: '9223372036854775807', bytes: 'AQI=', 'customer.id': 77, body: { k: [5, true, null] } });
    expect(item!.customerId).toBe('77');
    expect(item!.metadata).toEqual({ 'service.name': 'api' });
  });

  it('keeps only the scalar resource attributes as metadata', () => {
    const [item] = logRecordsAsEvents(request([{}], [{ key: 'n', value: { doubleValue: 1.5 } }, { key: 'list', value: { arrayValue: { values: [] } } }, { key: 'ok', value: { boolValue: false } }])).items;
    expect(item!.metadata).toEqual({ n: 1.5, ok: false });
  });

  it('rejects a record that is not a valid event, alone, and every record past the limit', () => {
    const records: OtlpLogRecord[] = [{ eventName: 'bad name' }, ...Array.from({ length: MAX_RECORDS_PER_REQUEST + 1 }, () => ({}))];
    const mapped = logRecordsAsEvents(request(records));
    expect(mapped.total).toBe(MAX_RECORDS_PER_REQUEST + 2);
    expect(mapped.items).toHaveLength(MAX_RECORDS_PER_REQUEST - 1);
    expect(mapped.rejected.map((r) => r.message)).toEqual([
      'event: must be 1 to 200 characters of A-Z a-z 0-9 . _ : -',
      `at most ${MAX_RECORDS_PER_REQUEST} log records are accepted per request`,
      `at most ${MAX_RECORDS_PER_REQUEST} log records are accepted per request`,
    ]);
  });
});
