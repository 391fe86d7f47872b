import { describe, expect, it } from 'vitest';
import { decodeEventMessage, encodeEventEntry, eventBatchMessage } from './event-message.js';
import type { StoredEvent } from '../events.js';

const APP_ID = '0190a5f0-0000-7000-8000-000000000001';

function storedEvent(overrides: Partial<StoredEvent> = {}): StoredEvent {
  return {
    id: '0190a5f0-1111-7000-8000-000000000002',
    appId: APP_ID,
    event: 'order.paid',
    customerId: 'c-1',
    level: 'warning',
    data: { amount: 250, items: [{ sku: 'a' }], note: 'é "quoted"' },
    metadata: { region: 'eu', beta: true, tier: 2 },
    timestamp: new Date('2026-11-22T10:00:00.123Z'),
    ingestedAt: new Date('2026-11-22T10:00:01.456Z'),
    ...overrides,
  };
}

/** A v2 message whose entries are these JSON values, as raw text. */
function messageOf(entries: readonly unknown[]): Buffer {
  return eventBatchMessage(APP_ID, entries.map((entry) => JSON.stringify(entry))).value;
}

const validEntry = (): Record<string, unknown> => JSON.parse(encodeEventEntry(storedEvent())) as Record<string, unknown>;

describe('event messages', () => {
  it('decode to the events the edge encoded, in order', () => {
    const events = [storedEvent(), storedEvent({ id: '0190a5f0-1111-7000-8000-000000000003', customerId: null, metadata: {}, data: {} })];
    const decoded = decodeEventMessage(eventBatchMessage(APP_ID, events.map(encodeEventEntry)).value);
    expect(decoded).toEqual({ ok: true, events, invalid: [] });
  });

  it('read version 1 messages still', () => {
    const event = storedEvent();
    const v1 = Buffer.from(JSON.stringify({ v: 1, appId: APP_ID, ...validEntry() }));
    expect(decodeEventMessage(v1)).toEqual({ ok: true, events: [event], invalid: [] });
  });

  // Every way an entry can be wrong, each on its own: none may be stored, whichever check sees it.
  const broken: Array<[string, (entry: Record<string, unknown>) => void, RegExp]> = [
    ['id not a UUID', (e) => (e.id = 'not-a-uuid'), /events\.1\.id/],
    ['id in capitals', (e) => (e.id = String(e.id).toUpperCase()), /events\.1\.id/],
    ['id missing', (e) => delete e.id, /events\.1\.id/],
    ['event empty', (e) => (e.event = ''), /events\.1\.event/],
    ['event too long', (e) => (e.event = 'x'.repeat(201)), /events\.1\.event/],
    ['event a number', (e) => (e.event = 5), /events\.1\.event/],
    ['customerId a number', (e) => (e.customerId = 7), /events\.1\.customerId/],
    ['customerId missing', (e) => delete e.customerId, /events\.1\.customerId/],
    ['level unknown', (e) => (e.level = 'fatal'), /events\.1\.level/],
    ['data an array', (e) => (e.data = [1]), /events\.1\.data/],
    ['data null', (e) => (e.data = null), /events\.1\.data/],
    ['data a string', (e) => (e.data = '{}'), /events\.1\.data/],
    ['metadata holding an object', (e) => (e.metadata = { nested: { a: 1 } }), /events\.1\.metadata/],
    ['metadata holding null', (e) => (e.metadata = { gone: null }), /events\.1\.metadata/],
    ['metadata an array', (e) => (e.metadata = ['a']), /events\.1\.metadata/],
    ['timestamp a fraction', (e) => (e.timestamp = 1.5), /events\.1\.timestamp/],
    ['timestamp a string', (e) => (e.timestamp = '2026-11-22T10:00:00Z'), /events\.1\.timestamp/],
    ['ingestedAt missing', (e) => delete e.ingestedAt, /events\.1\.ingestedAt/],
    ['an extra field', (e) => (e.extra = 1), /events\.1/],
    ['an extra field in place of a missing one', (e) => ((e.extra = 1), delete e.level), /events\.1/],
    ['event with a lone surrogate', (e) => (e.event = 'a\ud800'), /events\.1\.event: not well-formed Unicode/],
  ];

  it.each(broken)('dead-letter an entry with %s alone, with the reason, and keep the others', (_name, breakIt, reason) => {
    const bad = validEntry();
    breakIt(bad);
    const good = validEntry();
    const decoded = decodeEventMessage(messageOf([good, bad, good]));
    if (!decoded.ok) throw new Error(decoded.reason);
    expect(decoded.events).toHaveLength(2);
    expect(decoded.invalid).toHaveLength(1);
    expect(decoded.invalid[0]!.reason).toMatch(reason);
    expect(decodeEventMessage(decoded.invalid[0]!.value)).toMatchObject({ ok: true, events: [], invalid: [{ reason: expect.stringMatching(/^invalid event message: events\.0/) }] });
  });

  it('refuse a whole message that is not JSON or not a known version', () => {
    expect(decodeEventMessage(Buffer.from('{'))).toEqual({ ok: false, reason: 'value is not JSON' });
    expect(decodeEventMessage(Buffer.from(JSON.stringify({ v: 3, appId: APP_ID, events: [] })))).toMatchObject({ ok: false });
    expect(decodeEventMessage(Buffer.from(JSON.stringify({ v: 2, appId: 'nope', events: [validEntry()] })))).toMatchObject({ ok: false });
  });
});
