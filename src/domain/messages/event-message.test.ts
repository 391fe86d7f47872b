import { describe, expect, it } from 'vitest';
import { decodeEventMessage, encodeEventEntry, eventBatchMessage, receivedJsonOf, utf8Lines } from './event-message.js';
import type { StoredEvent } from '../events.js';
import { entryObject } from '../../../test/helpers/pipeline-fixtures.js';

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

/** A v2 message (one JSON object) whose entries are these values. */
function v2MessageOf(entries: readonly unknown[]): Buffer {
  return Buffer.from(JSON.stringify({ v: 2, appId: APP_ID, events: entries }));
}

/** A v3 message whose entries are these objects, each split into its three lines. */
function v3MessageOf(entries: ReadonlyArray<Record<string, unknown>>): Buffer {
  const lines = entries.map(({ data, metadata, ...fields }) => [fields, data, metadata].map((value) => JSON.stringify(value)).join('\n'));
  return eventBatchMessage(APP_ID, lines).value;
}

const validEntry = (): Record<string, unknown> => entryObject(storedEvent());

describe('event messages', () => {
  it('decode to the events the edge encoded, in order, with the text of their data and metadata', () => {
    const events = [storedEvent(), storedEvent({ id: '0190a5f0-1111-7000-8000-000000000003', customerId: null, metadata: {}, data: {}, event: 'tab\tnew\nline "q" \\ é' })];
    const decoded = decodeEventMessage(eventBatchMessage(APP_ID, events.map(encodeEventEntry)).value);
    expect(decoded).toEqual({ ok: true, events, invalid: [] });
    if (!decoded.ok) return;
    expect(decoded.events.map(receivedJsonOf)).toEqual(events.map((e) => ({ data: JSON.stringify(e.data), metadata: JSON.stringify(e.metadata) })));
  });

  it('hold exactly the header and the entries as UTF-8 lines, whatever their characters', () => {
    const wide = storedEvent({ event: 'commande.payée 支払い', customerId: 'client-🚀', data: { note: 'naïve café 😀', nested: { 漢字: ['✓'] } }, metadata: { région: 'île-de-France 🇫🇷' } });
    const entries = [encodeEventEntry(storedEvent()), encodeEventEntry(wide), encodeEventEntry(storedEvent({ data: {}, metadata: {} }))];
    const { key, value } = eventBatchMessage(APP_ID, entries);
    expect(key).toBe(APP_ID);
    expect(value.equals(Buffer.from([`{"v":3,"appId":"${APP_ID}"}`, ...entries].join('\n'), 'utf8'))).toBe(true);
    const decoded = decodeEventMessage(value);
    expect(decoded.ok && decoded.events[1]).toEqual(wide);
  });

  it('keep that text out of everything built from the event', () => {
    const event = storedEvent();
    const decoded = decodeEventMessage(eventBatchMessage(APP_ID, [encodeEventEntry(event)]).value);
    if (!decoded.ok) throw new Error(decoded.reason);
    const [received] = decoded.events;
    expect(JSON.stringify(received)).toBe(JSON.stringify(event));
    expect(Object.keys({ ...received })).toEqual(Object.keys(event));
    expect(receivedJsonOf({ ...received! })).toBeUndefined();
    expect(receivedJsonOf(event)).toBeUndefined();
  });

  it('read version 2 messages still, whose events carry no text', () => {
    const events = [storedEvent(), storedEvent({ id: '0190a5f0-1111-7000-8000-000000000003' })];
    const decoded = decodeEventMessage(v2MessageOf(events.map(entryObject)));
    expect(decoded).toEqual({ ok: true, events, invalid: [] });
    if (decoded.ok) expect(decoded.events.map(receivedJsonOf)).toEqual([undefined, undefined]);
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

  describe.each([
    ['v3', v3MessageOf],
    ['v2', v2MessageOf],
  ] as const)('in %s', (_version, messageOf) => {
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
  });

  // What only the line layout can get wrong.
  const brokenLines: Array<[string, (lines: string[]) => void, RegExp]> = [
    ['its first line not JSON', (l) => (l[0] = l[0]!.slice(0, -1)), /^invalid event message: events\.1: not JSON$/],
    ['data not JSON', (l) => (l[1] = '{"a":'), /^invalid event message: events\.1\.data: not JSON$/],
    ['metadata not JSON', (l) => (l[2] = ''), /^invalid event message: events\.1\.metadata: not JSON$/],
    ['data on its first line too', (l) => (l[0] = l[0]!.replace('{', '{"data":{},')), /^invalid event message: events\.1: data and metadata belong on lines of their own$/],
  ];

  it.each(brokenLines)('dead-letter a v3 entry with %s alone', (_name, breakIt, reason) => {
    const good = encodeEventEntry(storedEvent());
    const bad = good.split('\n');
    breakIt(bad);
    const decoded = decodeEventMessage(eventBatchMessage(APP_ID, [good, bad.join('\n'), good]).value);
    if (!decoded.ok) throw new Error(decoded.reason);
    expect(decoded.events).toHaveLength(2);
    expect(decoded.invalid.map((i) => i.reason)).toEqual([expect.stringMatching(reason)]);
    expect(decoded.invalid[0]!.value.toString('utf8').split('\n').slice(1)).toEqual(bad);
  });

  it('refuse a whole message that is not JSON or not a known version', () => {
    const entry = encodeEventEntry(storedEvent());
    expect(decodeEventMessage(Buffer.from('{'))).toEqual({ ok: false, reason: 'value is not JSON' });
    expect(decodeEventMessage(Buffer.from(JSON.stringify({ v: 3, appId: APP_ID, events: [] })))).toMatchObject({ ok: false });
    expect(decodeEventMessage(Buffer.from(JSON.stringify({ v: 4, appId: APP_ID })))).toMatchObject({ ok: false });
    expect(decodeEventMessage(Buffer.from(JSON.stringify({ v: 2, appId: 'nope', events: [validEntry()] })))).toMatchObject({ ok: false });
    expect(decodeEventMessage(Buffer.from(`{"v":3,"appId":"nope"}\n${entry}`))).toMatchObject({ ok: false, reason: expect.stringMatching(/appId/) });
    expect(decodeEventMessage(Buffer.from(`{"v":4,"appId":"${APP_ID}"}\n${entry}`))).toMatchObject({ ok: false });
    expect(decodeEventMessage(Buffer.from(`{"v":3,"appId":"${APP_ID}"}\n${entry}\n{}`))).toEqual({ ok: false, reason: 'invalid event message: 4 lines after the first, not three per event' });
  });
});

describe('utf8Lines', () => {
  /** Bytes of every kind a message may hold, and some it should not: newlines, wide characters, broken sequences. */
  const PIECES = ['\n', 'a', '{"k":1}', 'é', '支', '🚀', '\n\n'].map((text) => Buffer.from(text, 'utf8')).concat([Buffer.from([0xe2, 0x82]), Buffer.from([0xff]), Buffer.from([0xf0, 0x9f])]);

  function randomBytes(seed: number, pieces: number): Buffer {
    let state = seed;
    const next = (): number => (state = (state * 1_103_515_245 + 12_345) % 2 ** 31);
    return Buffer.concat(Array.from({ length: pieces }, () => PIECES[next() % PIECES.length]!));
  }

  it('gives the lines of the whole text decoded at once, wherever its slices are cut', () => {
    const cases = [Buffer.alloc(0), Buffer.from('\n'), Buffer.from('no newline at all'), Buffer.from('ends with one\n'), ...Array.from({ length: 40 }, (_, seed) => randomBytes(seed, 200))];
    for (const value of cases) {
      const whole = value.toString('utf8').split('\n');
      for (const sliceBytes of [1, 2, 3, 5, 8, 64, 65_536]) expect(utf8Lines(value, sliceBytes)).toEqual(whole);
    }
  });

  it('decodes a message of megabytes a slice at a time to the same events', () => {
    const events = Array.from({ length: 8_000 }, (_, index) =>
      storedEvent({ id: `0190a5f0-1111-7000-8000-${String(index).padStart(12, '0')}`, data: { index, note: index % 7 === 0 ? 'wide 支払い 🚀 '.repeat(index % 50) : 'x' } }),
    );
    const { value } = eventBatchMessage(APP_ID, events.map(encodeEventEntry));
    expect(value.length).toBeGreaterThan(2 * 1024 * 1024);
    expect(decodeEventMessage(value)).toEqual({ ok: true, events, invalid: [] });
  });
});
