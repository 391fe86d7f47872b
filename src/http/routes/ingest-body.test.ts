import { describe, expect, it } from 'vitest';
import { ingestBodySchema, wellFormedIngestBody } from './ingest-body.js';

/**
 * wellFormedIngestBody is a written-out copy of ingestBodySchema's rules for the usual case. The
 * property that makes it safe: whatever it accepts, the schema accepts too and gives the same value.
 * It is checked here over well-formed bodies (which it must take, or it saves nothing) and over every
 * way we know a body can be wrong (which it may only decline).
 */

/** Bodies as they reach the edge: JSON text parsed. */
const asReceived = (text: string): unknown => JSON.parse(text);
const json = (value: unknown): unknown => asReceived(JSON.stringify(value));

const BASE = {
  event: 'order.created',
  level: 'warning',
  customer_id: 'cus_4f9a21c7',
  data: { orderId: 'ord_1', amount: 42.5, items: [{ sku: 'a' }], coupon: null, nested: { deep: true } },
  metadata: { source: 'sdk', region: 'eu-west-1', retries: 2, beta: true },
};

/** An object nested `levels` deep, counting itself: nested(1) is `{}`, nested(2) is `{ k: {} }`. */
const nested = (levels: number): unknown => (levels <= 1 ? {} : { k: nested(levels - 1) });

const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
const inTwoDays = new Date(Date.now() + 2 * 86_400_000).toISOString();

const WELL_FORMED: unknown[] = [
  json(BASE),
  json({ event: 'a' }),
  json({ event: 'A.b_c:d-9', data: {}, metadata: {} }),
  ...['info', 'warning', 'error', 'success'].map((level) => json({ event: 'e', level })),
  json({ event: 'e', timestamp: '2026-11-22T10:00:00Z' }),
  json({ event: 'e', timestamp: '2026-01-02T03:04:05.678+01:00' }),
  json({ event: 'e', timestamp: inAnHour }),
  json({ event: 'x'.repeat(200), customer_id: 'c'.repeat(256) }),
  json({ event: 'e', customer_id: 'é ü 中文 🎉' }),
  json({ event: 'e', metadata: { text: 'v'.repeat(1000), zero: 0, negative: -1.5, no: false } }),
  json({ event: 'e', metadata: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i])) }),
  json({ event: 'e', data: nested(32) }),
  json({ event: 'e', data: { list: [[[[['deep', 1]]]]] } }),
  json([BASE]),
  json(Array.from({ length: 31 }, (_, n) => ({ event: 'e', timestamp: new Date(Date.UTC(2020, 0, 1 + n, 23, 59)).toISOString() }))),
  json(Array.from({ length: 100 }, (_, i) => ({ ...BASE, data: { i } }))),
];

/** Values to put where a field goes, most of them wrong for any given field. */
const VALUES: unknown[] = [
  null,
  0,
  -1,
  1.5,
  true,
  false,
  '',
  'x',
  'bad name!',
  'a\ud800',
  'x'.repeat(201),
  'x'.repeat(257),
  'x'.repeat(1001),
  '2026-11-22T10:00:00Z',
  '2026-11-22T10:00:00',
  '2026-11-22',
  'not a date',
  inTwoDays,
  [],
  [1],
  {},
  { a: 1 },
  { 'bad key!': 1 },
  { '-x': 1 },
  { k: null },
  { k: {} },
  { k: [] },
  { k: 'v'.repeat(1001) },
  Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i])),
  nested(33),
  { k: [nested(32)] },
];

/** Every field of the base event set to every value, or removed; one extra field; `__proto__` keys. */
function brokenBodies(): unknown[] {
  const bodies: unknown[] = [];
  for (const field of ['event', 'data', 'level', 'customer_id', 'timestamp', 'metadata']) {
    for (const value of VALUES) bodies.push(json({ ...BASE, [field]: value }));
    const { [field as keyof typeof BASE]: _removed, ...without } = BASE;
    bodies.push(json(without));
  }
  bodies.push(json({ ...BASE, extra: 1 }));
  bodies.push(asReceived('{"event":"e","__proto__":{"level":"error"}}'));
  bodies.push(asReceived('{"event":"e","data":{"__proto__":{"polluted":true},"a":1}}'));
  bodies.push(asReceived('{"event":"e","metadata":{"__proto__":"x","a":"b"}}'));
  for (const value of VALUES) bodies.push(json(value));
  bodies.push(json([]));
  bodies.push(json(Array.from({ length: 101 }, () => BASE)));
  bodies.push(json([BASE, { ...BASE, level: 'fatal' }]));
  bodies.push(json([BASE, [BASE]]));
  // Thirty-two days in one batch (the 31 before today, and today's event without a timestamp).
  const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();
  bodies.push(json([{ event: 'e' }, ...Array.from({ length: 31 }, (_, n) => ({ event: 'e', timestamp: daysAgo(n + 1) }))]));
  bodies.push(undefined);
  return bodies;
}

describe('wellFormedIngestBody', () => {
  it('takes every well-formed body, giving exactly what the schema gives', () => {
    for (const body of WELL_FORMED) {
      const parsed = ingestBodySchema.safeParse(body);
      expect(parsed.success).toBe(true);
      expect(wellFormedIngestBody(body)).toStrictEqual(parsed.data);
    }
  });

  it('takes nothing the schema refuses, and whatever it takes the schema gives alike', () => {
    const bodies = brokenBodies();
    let refusedBySchema = 0;
    for (const body of bodies) {
      const parsed = ingestBodySchema.safeParse(body);
      const fast = wellFormedIngestBody(body);
      if (!parsed.success) {
        refusedBySchema++;
        expect({ body, fast }).toEqual({ body, fast: undefined });
      } else if (fast !== undefined) {
        expect(fast).toStrictEqual(parsed.data);
      }
    }
    // The corpus is mostly wrong bodies; if it were not, this test would prove little.
    expect(refusedBySchema).toBeGreaterThan(bodies.length * 0.7);
  });

  it('copies the objects it returns, as the schema does, so later changes cannot reach the request', () => {
    const body = json(BASE) as typeof BASE;
    const fast = wellFormedIngestBody(body) as typeof BASE;
    expect(fast.data).not.toBe(body.data);
    expect(fast.metadata).not.toBe(body.metadata);
  });
});
