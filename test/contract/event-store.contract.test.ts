import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENTS_TABLE } from '../../src/adapters/event-store/clickhouse-sql.js';
import type { EventQuery, EventStore } from '../../src/ports/event-store.js';
import { testDatabaseName } from '../helpers/clickhouse.js';
import { EVENT_STORE_ENGINES, T0, closeSuiteStore, idFor, ids, makeEvent, newestFirst, openSuiteStore, readAllPages, type EventStoreEngine, type EventStoreHarness } from '../helpers/event-store-harness.js';
import { uniqueName } from '../helpers/stack-env.js';
import { v4 as uuidv4, v7 as uuidv7 } from 'uuid';
import { MAX_EVENT_FUTURE_MS, type StoredEvent } from '../../src/domain/events.js';

/**
 * The one behaviour both event stores promise (src/ports/event-store.ts), run against
 * the ClickHouse server of the local stack (18.16 on Debian) and against chDB. Each run owns a
 * database it drops at the end; each test owns a fresh app id.
 */

function eventStoreContract({ name, create: createHarness }: EventStoreEngine): void {
  describe(`EventStore contract: ${name}`, () => {
    let harness: EventStoreHarness;
    let database: string;
    let store: EventStore;
    const newApp = () => uniqueName('app');

    beforeAll(async () => {
      ({ harness, database, store } = await openSuiteStore(createHarness, 'events'));
    });

    afterAll(() => closeSuiteStore({ harness, database, store }));

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });

    describe('migrate', () => {
      it('is idempotent: a second run changes nothing and the store keeps working', async () => {
        const other = harness.open(database);
        try {
          await other.migrate();
          await other.migrate();
          const appId = newApp();
          const event = makeEvent(appId);
          await other.insert([event]);
          expect(await store.query({ appId, limit: 10 })).toEqual([event]);
        } finally {
          await other.close();
        }
      });

      // Several rounds: processes that race through the same DDL collide only now and then.
      it('is safe when several processes migrate a new database at once, round after round', async () => {
        for (let round = 0; round < 6; round++) {
          const fresh = testDatabaseName('migrate');
          const stores = [harness.open(fresh), harness.open(fresh), harness.open(fresh), harness.open(fresh)];
          try {
            await Promise.all(stores.map((s) => s.migrate()));
            const appId = newApp();
            const events = [makeEvent(appId), makeEvent(appId)];
            await stores[0]?.insert(events);
            await stores[1]?.migrate();
            expect(ids((await stores[2]?.query({ appId, limit: 10 })) ?? [])).toEqual(ids(newestFirst(events)));
          } finally {
            await Promise.all(stores.map((s) => s.close()));
            await harness.dropDatabase(fresh);
          }
        }
      }, 60_000);
    });

    describe('insert', () => {
      it('stores a batch and reads every event back whole', async () => {
        const appId = newApp();
        const events = Array.from({ length: 50 }, (_, i) =>
          makeEvent(appId, {
            event: `e${i % 3}`,
            customerId: i % 2 === 0 ? `cust_${i}` : null,
            level: (['info', 'warning', 'error', 'success'] as const)[i % 4],
            data: { i },
            metadata: { plan: 'pro', seats: i, trial: i % 2 === 0 },
            timestamp: new Date(T0 + i * 1000),
            ingestedAt: new Date(T0 + i * 1000 + 7),
          }),
        );
        await store.insert(events);
        expect(await store.query({ appId, limit: 100 })).toEqual(newestFirst(events));
      });

      it('stores a batch larger than the 256 KiB a server parses as query text', async () => {
        // INSERT ... VALUES data past the statement head is streamed, not parsed as query text, so
        // max_query_size does not cap the batch.
        const appId = newApp();
        const events = Array.from({ length: 300 }, (_, i) => makeEvent(appId, { data: { text: `${i}'\\`.padEnd(1000, 'é') } }));
        await store.insert(events);
        expect(ids(await store.query({ appId, limit: 1000 }))).toEqual(ids(newestFirst(events)));
      });

      it('stores a batch whose timestamps span more days than one INSERT may touch partitions', async () => {
        // A backfill over 25 years, pre-1970 months included: current engines refuse an INSERT block over
        // 100 partitions (days), which would fail the batch on every retry.
        const appId = newApp();
        const events = Array.from({ length: 300 }, (_, i) => makeEvent(appId, { timestamp: new Date(Date.UTC(1960 + Math.floor(i / 12), i % 12, 15, 12)) }));
        await store.insert(events);
        expect(ids(await store.query({ appId, limit: 1000 }))).toEqual(ids(newestFirst(events)));
      });

      it('accepts an empty batch', async () => {
        await expect(store.insert([])).resolves.toBeUndefined();
      });

      it('never returns an event twice when its id is inserted again, on any page', async () => {
        // With merges stopped every copy stays on disk, so the reads' own deduplication is what is tested.
        await harness.withMergesStopped(database, EVENTS_TABLE, async () => {
          const appId = newApp();
          const events = Array.from({ length: 6 }, (_, i) => makeEvent(appId, { id: idFor(i), timestamp: new Date(T0 + (i % 2)) }));
          await store.insert(events);
          // Redeliveries: the whole batch again, a part of it, and a batch mixing old and new ids.
          await store.insert(events);
          await store.insert(events.slice(2, 4));
          const extra = makeEvent(appId, { id: idFor(99), timestamp: new Date(T0) });
          await store.insert([events[0] as StoredEvent, extra]);
          const expected = ids(newestFirst([...events, extra]));

          expect(ids(await store.query({ appId, limit: 100 }))).toEqual(expected);
          // Small limits make pages whose first candidate rows are mostly copies.
          for (const limit of [1, 2, 3]) {
            expect(ids(await store.query({ appId, limit }))).toEqual(expected.slice(0, limit));
            expect(ids((await readAllPages(store, { appId, limit })).flat())).toEqual(expected);
          }
          expect(ids(await store.query({ appId, customerId: undefined, level: 'info', limit: 4 }))).toEqual(expected.slice(0, 4));
        });
      });

      it('rejects an event whose id is not a lowercase UUID', async () => {
        await expect(store.insert([makeEvent(newApp(), { id: 'not-a-uuid' })])).rejects.toThrow();
        await expect(store.insert([makeEvent(newApp(), { id: idFor(0xabcdef).toUpperCase() })])).rejects.toThrow();
      });
    });

    describe('query', () => {
      it('orders newest first, then by id descending among equal timestamps', async () => {
        const appId = newApp();
        const events = [5, 1, 9, 3, 7].flatMap((n) => [
          makeEvent(appId, { id: idFor(n), timestamp: new Date(T0) }),
          makeEvent(appId, { id: idFor(100 + n), timestamp: new Date(T0 + n) }),
        ]);
        await store.insert(events);
        const read = await store.query({ appId, limit: 100 });
        expect(ids(read)).toEqual([109, 107, 105, 103, 101, 9, 7, 5, 3, 1].map(idFor));
      });

      it('returns at most limit events, the newest ones', async () => {
        const appId = newApp();
        const events = Array.from({ length: 12 }, (_, i) => makeEvent(appId, { timestamp: new Date(T0 + i) }));
        await store.insert(events);
        expect(ids(await store.query({ appId, limit: 5 }))).toEqual(ids(newestFirst(events).slice(0, 5)));
        expect(await store.query({ appId, limit: 1000 })).toHaveLength(12);
      });

      it('refuses a limit outside 1..1000', async () => {
        for (const limit of [0, 1001, 1.5, -1]) {
          await expect(store.query({ appId: newApp(), limit })).rejects.toThrow(RangeError);
        }
      });

      it('pages with `after` without duplicates or gaps, across runs of equal timestamps', async () => {
        const appId = newApp();
        // 40 events over 6 distinct timestamps, so most page boundaries fall inside a run.
        const events = Array.from({ length: 40 }, (_, i) => makeEvent(appId, { id: idFor(i * 7919 % 1000), timestamp: new Date(T0 + (i % 6)) }));
        await store.insert(events);
        const expected = ids(newestFirst(events));
        for (const limit of [1, 3, 7, 40, 41]) {
          const pages = await readAllPages(store, { appId, limit });
          expect(ids(pages.flat())).toEqual(expected);
          expect(pages.slice(0, -1).every((p) => p.length === limit)).toBe(true);
        }
      });

      it('pages through events spread from the future back to before 1970, across every read window', async () => {
        // Pages are read through time windows growing back from their upper end (on a table of any
        // size here); these events sit in the first window and well beyond the last bounded one.
        const windowed = harness.open(database, { windowedReadsFromRows: 0 });
        const appId = newApp();
        const now = Date.now();
        const offsets = [20 * 3_600_000, 0, -1_800_000, -5 * 3_600_000, -3 * 86_400_000, -40 * 86_400_000, -2 * 365 * 86_400_000, -now - 86_400_000];
        const events = offsets.flatMap((offset, i) =>
          [0, 1].map((j) => makeEvent(appId, { id: idFor(i * 2 + j), level: j === 0 ? 'error' : 'info', customerId: `c${i}`, data: { i, j }, metadata: { j }, timestamp: new Date(now + offset) })),
        );
        await windowed.insert(events);
        const expected = ids(newestFirst(events));
        for (const limit of [1, 2, 3, 16]) expect(ids((await readAllPages(windowed, { appId, limit })).flat()), `limit ${limit}`).toEqual(expected);
        expect((await readAllPages(windowed, { appId, limit: 16 })).flat()).toEqual(newestFirst(events));
        expect(ids((await readAllPages(windowed, { appId, limit: 2, level: 'error' })).flat())).toEqual(ids(newestFirst(events.filter((e) => e.level === 'error'))));
        const to = new Date(now - 4 * 3_600_000);
        expect(ids((await readAllPages(windowed, { appId, limit: 3, to })).flat())).toEqual(ids(newestFirst(events.filter((e) => e.timestamp < to))));
        const from = new Date(now - 4 * 86_400_000);
        expect(ids((await readAllPages(windowed, { appId, limit: 3, from, to })).flat())).toEqual(ids(newestFirst(events.filter((e) => e.timestamp >= from && e.timestamp < to))));
        await windowed.close();
      });

      it('keeps earlier pages stable while newer events arrive', async () => {
        const appId = newApp();
        const events = Array.from({ length: 10 }, (_, i) => makeEvent(appId, { id: idFor(i), timestamp: new Date(T0 + i) }));
        await store.insert(events);
        const first = await store.query({ appId, limit: 4 });
        await store.insert([makeEvent(appId, { id: idFor(50), timestamp: new Date(T0 + 100) })]);
        const last = first.at(-1) as StoredEvent;
        const rest = await store.query({ appId, limit: 100, after: { timestamp: last.timestamp, id: last.id } });
        expect(ids([...first, ...rest])).toEqual(ids(newestFirst(events)));
      });

      it('filters by level, type and customer id, alone and together', async () => {
        const appId = newApp();
        const events = [
          makeEvent(appId, { level: 'error', event: 'payment_failed', customerId: 'c1', timestamp: new Date(T0 + 1) }),
          makeEvent(appId, { level: 'error', event: 'payment_failed', customerId: 'c2', timestamp: new Date(T0 + 2) }),
          makeEvent(appId, { level: 'info', event: 'payment_failed', customerId: 'c1', timestamp: new Date(T0 + 3) }),
          makeEvent(appId, { level: 'error', event: 'signup', customerId: 'c1', timestamp: new Date(T0 + 4) }),
          makeEvent(appId, { level: 'warning', event: 'signup', customerId: null, timestamp: new Date(T0 + 5) }),
          makeEvent(appId, { level: 'success', event: 'signup', customerId: '', timestamp: new Date(T0 + 6) }),
        ];
        await store.insert(events);
        const matching = async (filter: Partial<EventQuery>) => ids(await store.query({ appId, limit: 100, ...filter }));
        const expecting = (pick: (e: StoredEvent) => boolean) => ids(newestFirst(events.filter(pick)));

        expect(await matching({ level: 'error' })).toEqual(expecting((e) => e.level === 'error'));
        expect(await matching({ level: 'success' })).toEqual(expecting((e) => e.level === 'success'));
        expect(await matching({ type: 'payment_failed' })).toEqual(expecting((e) => e.event === 'payment_failed'));
        expect(await matching({ customerId: 'c1' })).toEqual(expecting((e) => e.customerId === 'c1'));
        // The empty customer id is a value of its own, distinct from no customer.
        expect(await matching({ customerId: '' })).toEqual(expecting((e) => e.customerId === ''));
        expect(await matching({ level: 'error', type: 'payment_failed', customerId: 'c1' })).toEqual(expecting((e) => e === events[0]));
        expect(await matching({ type: 'nothing' })).toEqual([]);
        expect(await matching({ id: events[3]!.id })).toEqual([events[3]!.id]);
        expect(await matching({ id: events[3]!.id, type: 'payment_failed' })).toEqual([]);
        expect(await store.query({ appId: newApp(), id: events[3]!.id, limit: 1 })).toEqual([]);
      });

      it('finds an event by id wherever its time lies against the instant its id was made', async () => {
        const appId = newApp();
        const made = Date.UTC(2026, 5, 1, 12);
        const at = (offset: number, id = uuidv7({ msecs: made })) => makeEvent(appId, { id, timestamp: new Date(made + offset) });
        const events = {
          live: at(-2_000),
          dayAhead: at(MAX_EVENT_FUTURE_MS),
          aDayBefore: at(-86_400_000),
          backfilled: at(-400 * 86_400_000),
          before1970: at(-made - 5 * 86_400_000),
          notV7: at(0, uuidv4()),
        };
        await store.insert(Object.values(events));
        for (const [label, event] of Object.entries(events)) {
          expect(await store.query({ appId, id: event.id, limit: 1 }), label).toEqual([event]);
          expect(await store.query({ appId, id: event.id, from: event.timestamp, limit: 1 }), `${label} from its time`).toEqual([event]);
          expect(await store.query({ appId, id: event.id, to: event.timestamp, limit: 1 }), `${label} to its time`).toEqual([]);
          expect(await store.query({ appId: newApp(), id: event.id, limit: 1 }), `${label} in another app`).toEqual([]);
        }
        expect(await store.query({ appId, id: uuidv7({ msecs: made }), limit: 1 })).toEqual([]);
      });

      it('treats from as inclusive and to as exclusive, to the millisecond', async () => {
        const appId = newApp();
        const events = [0, 1, 2, 3, 4].map((ms) => makeEvent(appId, { id: idFor(ms), timestamp: new Date(T0 + ms) }));
        await store.insert(events);
        const within = async (from?: number, to?: number) =>
          ids(await store.query({ appId, limit: 100, from: from === undefined ? undefined : new Date(T0 + from), to: to === undefined ? undefined : new Date(T0 + to) }));

        expect(await within(1, 3)).toEqual([idFor(2), idFor(1)]);
        expect(await within(1)).toEqual([idFor(4), idFor(3), idFor(2), idFor(1)]);
        expect(await within(undefined, 1)).toEqual([idFor(0)]);
        expect(await within(2, 2)).toEqual([]);
        expect(await within(2, 3)).toEqual([idFor(2)]);
      });

      it('combines every filter with a time range and paging', async () => {
        const appId = newApp();
        const events = Array.from({ length: 30 }, (_, i) =>
          makeEvent(appId, {
            id: idFor(i),
            level: i % 3 === 0 ? 'error' : 'info',
            event: i % 2 === 0 ? 'checkout' : 'view',
            customerId: i % 5 === 0 ? 'vip' : 'regular',
            timestamp: new Date(T0 + Math.floor(i / 4)),
          }),
        );
        await store.insert(events);
        const filter = { appId, level: 'error', type: 'checkout', customerId: 'regular', from: new Date(T0 + 1), to: new Date(T0 + 7) } as const;
        const expected = ids(
          newestFirst(
            events.filter(
              (e) => e.level === 'error' && e.event === 'checkout' && e.customerId === 'regular' && e.timestamp.getTime() >= T0 + 1 && e.timestamp.getTime() < T0 + 7,
            ),
          ),
        );
        expect(expected.length).toBeGreaterThan(1);
        expect(ids((await readAllPages(store, { ...filter, limit: 1 })).flat())).toEqual(expected);
      });

      it('keeps apps apart, even when they share event ids', async () => {
        const a = newApp();
        const b = newApp();
        const shared = idFor(1);
        await store.insert([makeEvent(a, { id: shared, data: { app: 'a' } }), makeEvent(a), makeEvent(b, { id: shared, data: { app: 'b' } })]);
        const readA = await store.query({ appId: a, limit: 100 });
        const readB = await store.query({ appId: b, limit: 100 });
        expect(readA).toHaveLength(2);
        expect(readA.every((e) => e.appId === a)).toBe(true);
        expect(readB.map((e) => [e.appId, e.id, e.data])).toEqual([[b, shared, { app: 'b' }]]);
        expect(await store.query({ appId: newApp(), limit: 100 })).toEqual([]);
      });
    });

    it('deleteApp removes every event of that app and only of that app', async () => {
      // A database of its own: the delete is a mutation that visits every part of the table, and the
      // tests before this one leave hundreds of day partitions in the shared database (chDB then
      // needs about a minute, which would measure those tests rather than this behaviour).
      const own = testDatabaseName('events_delete');
      const isolated = harness.open(own);
      try {
        await isolated.migrate();
        const doomed = newApp();
        const kept = newApp();
        const months = [0, 40, 80].map((days) => new Date(T0 + days * 86_400_000)); // several partitions
        await isolated.insert(months.map((timestamp) => makeEvent(doomed, { timestamp })));
        await isolated.insert(months.map((timestamp) => makeEvent(kept, { timestamp })));
        await isolated.deleteApp(doomed);
        expect(await isolated.query({ appId: doomed, limit: 100 })).toEqual([]);
        expect(await isolated.query({ appId: kept, limit: 100 })).toHaveLength(3);
        await expect(isolated.deleteApp(newApp())).resolves.toBeUndefined();
      } finally {
        await isolated.close();
        await harness.dropDatabase(own);
      }
    });

    it('round-trips data and metadata JSON exactly', async () => {
      const appId = newApp();
      const data = {
        nested: { deeper: { list: [1, 'two', null, true, { three: 3 }], empty: {} }, emptyList: [] },
        numbers: { int: 42, negative: -7, float: 3.141592653589793, tiny: 5e-324, big: 1.7976931348623157e308, maxSafe: 9007199254740991 },
        unicode: 'héllo wörld 中文 😀 \u2028',
        loneSurrogate: '\uD800',
        quotes: `"'\\`,
        nothing: null,
      };
      const metadata = { plan: 'pro', seats: 12, ratio: 0.25, trial: false, 'key with spaces': "v'\\" };
      const event = makeEvent(appId, { data, metadata });
      await store.insert([event]);
      const [read] = await store.query({ appId, limit: 1 });
      expect(read?.data).toEqual(data);
      expect(read?.metadata).toEqual(metadata);
    });

    it('keeps millisecond precision of timestamp and ingestedAt', async () => {
      const appId = newApp();
      const event = makeEvent(appId, { timestamp: new Date('2024-02-29T23:59:59.999Z'), ingestedAt: new Date('2024-03-01T00:00:00.001Z') });
      const early = makeEvent(appId, { timestamp: new Date('1969-07-20T20:17:40.123Z') });
      await store.insert([event, early]);
      const read = await store.query({ appId, limit: 10 });
      expect(read.map((e) => [e.timestamp.toISOString(), e.ingestedAt.toISOString()])).toEqual([
        ['2024-02-29T23:59:59.999Z', '2024-03-01T00:00:00.001Z'],
        ['1969-07-20T20:17:40.123Z', early.ingestedAt.toISOString()],
      ]);
    });

    it('stores and filters adversarial strings byte for byte', async () => {
      const adversarial = [
        "'",
        '\\',
        "\\'",
        "\\' OR 1=1 --",
        "'; DROP TABLE events; --",
        'nul\0inside',
        'line\nbreak\r\n\ttab',
        '\ttab first, and last\t',
        '\\N',
        '\x01\x1f\x7f',
        '{customerId:String}',
        '😀 é 中文 \u2028 \uFEFF \u{10FFFF}',
        'x'.repeat(10_000),
        '%_*',
      ];
      const appId = `${newApp()}'\\"`;
      const events = adversarial.map((s, i) =>
        makeEvent(appId, { id: idFor(i), customerId: s, event: s, data: { s }, metadata: { s }, timestamp: new Date(T0 + i) }),
      );
      await store.insert(events);

      expect(await store.query({ appId, limit: 100 })).toEqual(newestFirst(events));
      for (const [i, s] of adversarial.entries()) {
        expect(ids(await store.query({ appId, customerId: s, limit: 100 }))).toEqual([idFor(i)]);
        expect(ids(await store.query({ appId, type: s, limit: 100 }))).toEqual([idFor(i)]);
      }
    });

    it('refuses a string with a lone surrogate rather than storing a different one', async () => {
      await expect(store.insert([makeEvent(newApp(), { customerId: 'a\uDC00' })])).rejects.toThrow();
    });
  });
}

for (const engine of EVENT_STORE_ENGINES) eventStoreContract(engine);
