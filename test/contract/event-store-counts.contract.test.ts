import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUSTOMER_INDEX, EVENTS_TABLE, ROLLUP_TABLES } from '../../src/adapters/event-store/clickhouse-sql.js';
import { MIGRATIONS, applyMigrations } from '../../src/adapters/event-store/migrations.js';
import type { EventFilter, EventStore } from '../../src/ports/event-store.js';
import { EVENT_LEVELS, type StoredEvent } from '../../src/domain/events.js';
import { bruteCounts, bruteTop, comparable, seededRandom } from '../helpers/event-counts.js';
import { testDatabaseName } from '../helpers/clickhouse.js';
import { EVENT_STORE_ENGINES, closeSuiteStore, insertRows, makeEvent, openSuiteStore, statementsOnly, type EventStoreEngine, type EventStoreHarness } from '../helpers/event-store-harness.js';
import { uniqueName } from '../helpers/stack-env.js';

/**
 * The counting reads and the upkeep of the event store (src/ports/event-store.ts), on the ClickHouse
 * server of the local stack (18.16) and on chDB. Every count is checked against a brute-force count
 * of the same events in JavaScript, with some events stored twice: once while their days are split
 * over several parts (counted distinct), once after upkeep compacted those days (counted plainly), and
 * once after a late copy split a compacted day again.
 */

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** Midnight UTC, some days before the clocks the tests set. */
const D0 = Date.parse('2025-06-10T00:00:00.000Z');

/** `count` events over three days, of 5 names, 4 levels and 12 customers (a sixth of them none). */
function sampleEvents(appId: string, count: number, seed: number): StoredEvent[] {
  const next = seededRandom(seed);
  return Array.from({ length: count }, () =>
    makeEvent(appId, {
      event: `e${Math.floor(next() * 5)}`,
      level: EVENT_LEVELS[Math.floor(next() * 4)],
      customerId: next() < 1 / 6 ? null : `c${Math.floor(next() * 12)}`,
      timestamp: new Date(D0 + Math.floor(next() * 3 * DAY)),
    }),
  );
}

function countsContract({ name, create: createHarness, singleServer }: EventStoreEngine): void {
  describe(`EventStore counting and upkeep: ${name}`, () => {
    let harness: EventStoreHarness;
    let database: string;
    let store: EventStore;
    const now = D0 + 3 * DAY + 2 * HOUR;

    beforeAll(async () => {
      ({ harness, database, store } = await openSuiteStore(createHarness, 'counts', { now: () => now }));
    });

    afterAll(() => closeSuiteStore({ harness, database, store }));

    /** Every shape of counts() and top() the API offers, against the brute force. */
    async function expectExact(appId: string, events: readonly StoredEvent[]): Promise<void> {
      const whole = { from: new Date(D0 - HOUR), to: new Date(D0 + 3 * DAY) };
      const filters: Omit<EventFilter, 'appId'>[] = [
        whole,
        { ...whole, level: 'error' },
        { ...whole, type: 'e3' },
        { ...whole, customerId: 'c4' },
        // A range cutting days and buckets in half: from inclusive, to exclusive.
        { from: new Date(D0 + 11 * HOUR + 1234), to: new Date(D0 + 2 * DAY + 5 * HOUR + 17) },
      ];
      for (const filter of filters) {
        for (const [bucketMs, groupBy, limit] of [
          [HOUR, undefined, 10],
          [DAY, 'level', 10],
          [HOUR, 'event', 3],
          [60_000, 'customer_id', 5],
        ] as const) {
          const counts = await store.counts({ appId, ...filter, bucketMs, groupBy, limit });
          expect(comparable(counts), `${JSON.stringify(filter)} by ${groupBy} per ${bucketMs} ms`).toEqual(comparable(bruteCounts(events, filter, bucketMs, groupBy, limit)));
        }
        for (const by of ['event', 'customer_id', 'level'] as const) {
          expect(await store.top({ appId, ...filter, by, limit: 7 }), `top ${by} of ${JSON.stringify(filter)}`).toEqual(bruteTop(events, filter, by, 7));
        }
      }
    }

    it('counts exactly while days are split over parts, after upkeep compacted them, and when a late copy splits one again', async () => {
      const appId = uniqueName('app');
      const events = sampleEvents(appId, 600, 17);
      // Redeliveries: a part of the stream again, in separate batches, while merges are stopped so
      // that every copy stays on disk in a part of its own.
      await harness.withMergesStopped(database, EVENTS_TABLE, async () => {
        for (let i = 0; i < events.length; i += 150) await store.insert(events.slice(i, i + 150));
        await store.insert(events.slice(100, 220));
        await store.insert([...events.slice(400, 430), ...events.slice(0, 5)]);
        await expectExact(appId, events);
      });

      // Rounds of upkeep until nothing is left to do: each past day ends in one part (compacted by upkeep,
      // or merged by the engine first, which may happen once merges run again) and is then rolled up.
      // A round's merges run on every replica before the next round looks at the parts.
      const rolledUp: string[] = [];
      let settled = false;
      for (let round = 0; round < 10 && !settled; round++) {
        const done = await store.upkeep();
        expect(done.dropped).toEqual([]);
        rolledUp.push(...done.rolledUp);
        if (round === 0) await expectExact(appId, events);
        settled = done.compacted.length === 0 && done.rolledUp.length === 0;
        await harness.awaitReplicas(database, EVENTS_TABLE);
      }
      // Upkeep comes to rest: a day it compacted is one part (on a cluster, on every shard) and is not compacted again.
      expect(settled).toBe(true);
      // A cluster counts without rollups, and makes none.
      expect(rolledUp).toEqual(singleServer ? expect.arrayContaining(['20250610', '20250611', '20250612']) : []);
      await expectExact(appId, events);

      await harness.withMergesStopped(database, EVENTS_TABLE, async () => {
        await store.insert(events.slice(0, 40));
        await expectExact(appId, events);
      });
    });

    it('counts a rolled-up day from its rollup only while its part is the one rolled up, and forgets a deleted app there too', async () => {
      const own = testDatabaseName('rollups');
      const clock = D0 + 5 * DAY;
      const isolated = harness.open(own, { now: () => clock });
      try {
        await isolated.migrate();
        const [kept, doomed] = [uniqueName('app'), uniqueName('app')];
        const events = [...sampleEvents(kept, 300, 3), ...sampleEvents(doomed, 100, 4)];
        await isolated.insert(events);
        while ((await isolated.upkeep()).compacted.length > 0);
        expect((await isolated.upkeep()).rolledUp).toEqual([]);
        const whole = { from: new Date(D0), to: new Date(D0 + 3 * DAY) };
        const keptEvents = events.filter((e) => e.appId === kept);
        const count = async (appId: string) => comparable(await isolated.counts({ appId, ...whole, bucketMs: DAY, groupBy: 'customer_id', limit: 5 }));
        expect(await count(kept)).toEqual(comparable(bruteCounts(keptEvents, whole, DAY, 'customer_id', 5)));
        // A late copy of an event and a late new event split a day into two parts: read from the events again.
        const late = makeEvent(kept, { customerId: 'c1', timestamp: new Date(D0 + DAY + 5) });
        await harness.withMergesStopped(own, EVENTS_TABLE, async () => {
          await isolated.insert([keptEvents[0] as StoredEvent, late]);
          expect(await count(kept)).toEqual(comparable(bruteCounts([...keptEvents, late], whole, DAY, 'customer_id', 5)));
          expect(await isolated.top({ appId: kept, ...whole, by: 'event', limit: 3 })).toEqual(bruteTop([...keptEvents, late], whole, 'event', 3));
        });
        await isolated.deleteApp(doomed);
        expect((await isolated.counts({ appId: doomed, ...whole, bucketMs: DAY, limit: 1 })).total).toBe(0);
        expect(await isolated.top({ appId: doomed, ...whole, by: 'customer_id', limit: 3 })).toEqual([]);
        while ((await isolated.upkeep()).compacted.length > 0);
        await isolated.upkeep();
        expect((await isolated.counts({ appId: doomed, ...whole, bucketMs: DAY, limit: 1 })).total).toBe(0);
        expect(await count(kept)).toEqual(comparable(bruteCounts([...keptEvents, late], whole, DAY, 'customer_id', 5)));
      } finally {
        await isolated.close();
        await harness.dropDatabase(own);
      }
    });

    it('aligns buckets to the UTC epoch and leaves out events without a customer from customer series', async () => {
      const appId = uniqueName('app');
      const at = (ms: number, customerId: string | null) => makeEvent(appId, { timestamp: new Date(D0 + ms), customerId });
      await store.insert([at(0, 'a'), at(59_999, 'a'), at(60_000, null), at(61_000, 'b'), at(3 * 60_000 + 1, 'b'), at(3 * 60_000 + 2, 'b')]);
      const counts = await store.counts({ appId, from: new Date(D0 + 30_000), to: new Date(D0 + 10 * 60_000), bucketMs: 60_000, groupBy: 'customer_id', limit: 10 });
      expect(comparable(counts)).toEqual({
        total: 5,
        uniqueCustomers: 2,
        series: [
          { key: 'b', total: 3, buckets: { [D0 + 60_000]: 1, [D0 + 180_000]: 2 } },
          { key: 'a', total: 1, buckets: { [D0]: 1 } },
        ],
      });
      const none = await store.counts({ appId, from: new Date(D0 - DAY), to: new Date(D0), bucketMs: DAY, limit: 10 });
      expect(comparable(none)).toEqual({ total: 0, uniqueCustomers: 0, series: [{ key: null, total: 0, buckets: {} }] });
      expect(await store.top({ appId, from: new Date(D0 - DAY), to: new Date(D0), by: 'event', limit: 3 })).toEqual([]);
    });

    it('keeps apps apart', async () => {
      const [one, two] = [uniqueName('app'), uniqueName('app')];
      await store.insert([makeEvent(one, { timestamp: new Date(D0) }), makeEvent(two, { timestamp: new Date(D0) }), makeEvent(two, { timestamp: new Date(D0 + 1) })]);
      const range = { from: new Date(D0), to: new Date(D0 + DAY) };
      expect((await store.counts({ appId: one, ...range, bucketMs: DAY, limit: 1 })).total).toBe(1);
      expect(await store.top({ appId: two, ...range, by: 'event', limit: 5 })).toEqual([{ key: 'signup', count: 2, lastSeen: new Date(D0 + 1) }]);
    });

    it('reads nothing past the retention and drops whole days past it, keeping the day the cutoff falls in', async () => {
      const own = testDatabaseName('retention');
      let clock = D0 + 40 * DAY + 6 * HOUR;
      const retained = harness.open(own, { retentionDays: 30, now: () => clock });
      const keepAll = harness.open(own);
      try {
        await retained.migrate();
        const appId = uniqueName('app');
        const cutoff = clock - 30 * DAY;
        const events = [-3 * DAY, -DAY, -1, 0, 5 * HOUR, 3 * DAY].map((offset, i) => makeEvent(appId, { id: `01900000-0000-7000-8000-00000000000${i}`, timestamp: new Date(cutoff + offset) }));
        await retained.insert(events);
        const kept = events.filter((e) => e.timestamp.getTime() >= cutoff);
        const everything = { from: new Date(0), to: new Date(clock) };
        expect((await retained.query({ appId, limit: 100 })).map((e) => e.id).sort()).toEqual(kept.map((e) => e.id).sort());
        expect((await retained.query({ appId, limit: 100, from: new Date(cutoff - 10 * DAY) })).length).toBe(kept.length);
        expect((await retained.counts({ appId, ...everything, bucketMs: DAY, limit: 10 })).total).toBe(kept.length);
        expect(await retained.top({ appId, ...everything, by: 'event', limit: 10 })).toEqual([{ key: 'signup', count: kept.length, lastSeen: kept.at(-1)?.timestamp }]);

        const done = await retained.upkeep();
        // The cutoff falls at 06:00 of its day: the two days before it go, its own day stays whole.
        const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10).replaceAll('-', '');
        expect(done.dropped).toEqual([dayOf(cutoff - 3 * DAY), dayOf(cutoff - DAY)]);
        const left = await keepAll.query({ appId, limit: 100 });
        expect(left.map((e) => e.id).sort()).toEqual(events.filter((e) => e.timestamp.getTime() >= cutoff - 6 * HOUR).map((e) => e.id).sort());
        // A day later the cutoff's day is past the retention too.
        clock += DAY;
        expect((await retained.upkeep()).dropped).toEqual([dayOf(cutoff)]);
        expect(await keepAll.query({ appId, limit: 100 })).toEqual([events[5]]);
      } finally {
        await Promise.all([retained.close(), keepAll.close()]);
        await harness.dropDatabase(own);
      }
    });

    // Installations of earlier versions exist only on one server: a cluster starts from today's tables.
    if (singleServer) {
      it('moves the events of an installation from before day partitions, each once, and counts them', async () => {
        const own = testDatabaseName('migrate_days');
        const old = harness.open(own);
        try {
          // An installation at the first migration: the monthly table, some events stored twice.
          await applyMigrations(statementsOnly(harness), harness.tables(own), MIGRATIONS.slice(0, 1));
          const appId = uniqueName('app');
          const events = sampleEvents(appId, 200, 5);
          await harness.withMergesStopped(own, 'events', async () => {
            await insertRows(harness, own, 'events', events);
            await insertRows(harness, own, 'events', events.slice(50, 120));
          });
          await old.migrate();
          const read = await old.query({ appId, limit: 1000 });
          expect(read.map((e) => e.id).sort()).toEqual(events.map((e) => e.id).sort());
          const range = { from: new Date(D0 - DAY), to: new Date(D0 + 4 * DAY) };
          expect(comparable(await old.counts({ appId, ...range, bucketMs: DAY, groupBy: 'event', limit: 10 }))).toEqual(comparable(bruteCounts(events, range, DAY, 'event', 10)));
          // Migrating again finds nothing left to move.
          await old.migrate();
          expect(await old.query({ appId, limit: 1000 })).toHaveLength(events.length);
        } finally {
          await old.close();
          await harness.dropDatabase(own);
        }
      });

      it('moves the events of an installation with granules of 8,192 rows into the finer table, each once, keeping the customer index and rolling up anew', async () => {
        const own = testDatabaseName('migrate_granules');
        const old = harness.open(own, { now: () => D0 + 5 * DAY });
        const count = async (sql: string) => Number(await harness.sql(sql));
        try {
          // An installation at the fourth migration: the table by day, its customer index, some events stored twice.
          await applyMigrations(statementsOnly(harness), harness.tables(own), MIGRATIONS.filter((m) => m.version < 5));
          const appId = uniqueName('app');
          const events = sampleEvents(appId, 300, 6);
          await harness.withMergesStopped(own, 'events_by_day', async () => {
            await insertRows(harness, own, 'events_by_day', events);
            await insertRows(harness, own, 'events_by_day', events.slice(100, 160));
          });
          // Rollups recorded for parts of the old table under the names the new table's first parts take
          // (on 18.16 at least), with counts that are wrong for them: they must not survive the move.
          const days = [0, 1, 2].map((d) => new Date(D0 + d * DAY).toISOString().slice(0, 10).replaceAll('-', ''));
          const parts = days.flatMap((day) => [1, 2, 3, 4, 5, 6].map((k) => `(${day}, '${day}_${k}_${k}_0', 'stale')`));
          await harness.sql(`INSERT INTO ${own}.${ROLLUP_TABLES.batches} (day, part, batch) VALUES ${parts.join(', ')}`);
          const hours = [0, 1, 2].map((d) => `('${appId}', 'stale', ${D0 + d * DAY}, 'info', 'e0', 1000, ${D0 + d * DAY})`);
          await harness.sql(`INSERT INTO ${own}.${ROLLUP_TABLES.hours} (app_id, batch, hour_ms, level, event, n, last_ms) VALUES ${hours.join(', ')}`);
          const indexed = await count(`SELECT count() FROM ${own}.${CUSTOMER_INDEX.table}`);
          expect(indexed).toBe(events.filter((e) => e.customerId !== null).length + events.slice(100, 160).filter((e) => e.customerId !== null).length);

          await old.migrate();
          const whole = { from: new Date(D0), to: new Date(D0 + 3 * DAY) };
          const expectExactCounts = async (stored: readonly StoredEvent[]) => {
            for (const groupBy of [undefined, 'level', 'customer_id'] as const) {
              expect(comparable(await old.counts({ appId, ...whole, bucketMs: DAY, groupBy, limit: 5 })), `by ${groupBy}`).toEqual(comparable(bruteCounts(stored, whole, DAY, groupBy, 5)));
            }
          };
          expect(await count(`SELECT count() FROM ${own}.${EVENTS_TABLE}`)).toBe(events.length);
          expect(await harness.sql(`SELECT engine_full FROM system.tables WHERE database = '${own}' AND name = '${EVENTS_TABLE}'`)).toContain('index_granularity = 1024');
          expect(await count(`SELECT count() FROM system.tables WHERE database = '${own}' AND name IN ('events_by_day', 'events_by_day_retired', 'events_by_customer_feed')`)).toBe(0);
          expect(await count(`SELECT count() FROM ${own}.${CUSTOMER_INDEX.table}`)).toBe(indexed);
          await expectExactCounts(events);

          // What arrives now is indexed once, by the new table's feed alone.
          const later = sampleEvents(appId, 40, 7);
          await old.insert(later);
          expect(await count(`SELECT count() FROM ${own}.${CUSTOMER_INDEX.table}`)).toBe(indexed + later.filter((e) => e.customerId !== null).length);
          const [customer] = await old.top({ appId, ...whole, by: 'customer_id', limit: 1 });
          const page = await old.query({ appId, customerId: customer?.key ?? '', limit: 1000 });
          expect(page.map((e) => e.id).sort()).toEqual([...events, ...later].filter((e) => e.customerId === customer?.key).map((e) => e.id).sort());

          // Upkeep rolls the days up again, from the new table's parts.
          while ((await old.upkeep()).compacted.length > 0);
          await old.upkeep();
          expect(await count(`SELECT count() FROM ${own}.${ROLLUP_TABLES.batches}`)).toBeGreaterThan(0);
          await expectExactCounts([...events, ...later]);
          await old.migrate();
          expect(await count(`SELECT count() FROM ${own}.${EVENTS_TABLE}`)).toBe(events.length + later.length);
        } finally {
          await old.close();
          await harness.dropDatabase(own);
        }
      });
    }
  });
}

for (const engine of EVENT_STORE_ENGINES) countsContract(engine);
