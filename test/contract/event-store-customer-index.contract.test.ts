import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUSTOMER_INDEX, EVENTS_TABLE } from '../../src/adapters/event-store/clickhouse-sql.js';
import { MIGRATIONS, applyMigrations } from '../../src/adapters/event-store/migrations.js';
import { quoteIdentifier } from '../../src/adapters/event-store/sql.js';
import type { EventQuery, EventStore } from '../../src/ports/event-store.js';
import { EVENT_LEVELS, type StoredEvent } from '../../src/domain/events.js';
import { seededRandom } from '../helpers/event-counts.js';
import { testDatabaseName } from '../helpers/clickhouse.js';
import {
  EVENT_STORE_ENGINES,
  closeSuiteStore,
  ids,
  insertRows,
  makeEvent,
  newestFirst,
  openSuiteStore,
  readAllPages,
  statementsOnly,
  type EventStoreEngine,
  type EventStoreHarness,
} from '../helpers/event-store-harness.js';
import { uniqueName } from '../helpers/stack-env.js';

/**
 * A customer's events are read through the customer index (CUSTOMER_INDEX in clickhouse-sql.ts): its
 * positions, and the rows at them. On the ClickHouse server of the local stack (18.16) and on
 * chDB, every page is checked against a brute-force read of the same events, with copies of events in
 * both tables, for events stored before the index existed, past the retention, and after deleteApp.
 */

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** Midnight UTC; the samples spread over the 70 days after it, three months of the index. */
const D0 = Date.parse('2025-01-20T00:00:00.000Z');

/**
 * `count` events over `days` days from D0, of 6 customers (skewed; some none, some the empty
 * string), 4 names and 4 levels, many sharing a minute.
 */
function sampleEvents(appId: string, count: number, seed: number, days = 70): StoredEvent[] {
  const next = seededRandom(seed);
  const customers = [null, '', 'c0', 'c0', 'c0', 'c1', 'c1', 'c2', 'c3', 'c4'];
  return Array.from({ length: count }, () =>
    makeEvent(appId, {
      event: `e${Math.floor(next() * 4)}`,
      level: EVENT_LEVELS[Math.floor(next() * 4)],
      customerId: customers[Math.floor(next() * customers.length)] ?? null,
      timestamp: new Date(D0 + Math.floor(next() * days * 24) * HOUR + Math.floor(next() * 3) * 60_000),
    }),
  );
}

type CustomerFilter = Omit<EventQuery, 'appId' | 'limit' | 'after'> & { customerId: string };

/** What a read with `filter` must return, in order: each matching event once. */
function bruteRead(events: readonly StoredEvent[], filter: CustomerFilter): string[] {
  const matching = events.filter(
    (e) =>
      e.customerId === filter.customerId &&
      (filter.level === undefined || e.level === filter.level) &&
      (filter.type === undefined || e.event === filter.type) &&
      (filter.from === undefined || e.timestamp >= filter.from) &&
      (filter.to === undefined || e.timestamp < filter.to),
  );
  return ids(newestFirst([...new Map(matching.map((e) => [e.id, e])).values()]));
}

async function expectCustomerPages(store: EventStore, appId: string, events: readonly StoredEvent[], filters: readonly CustomerFilter[]): Promise<void> {
  for (const filter of filters) {
    for (const limit of [3, 25, 1000]) {
      const pages = await readAllPages(store, { appId, ...filter, limit });
      expect(ids(pages.flat()), `${JSON.stringify(filter)}, ${limit} a page`).toEqual(bruteRead(events, filter));
      expect(pages.slice(0, -1).every((page) => page.length === limit)).toBe(true);
    }
  }
}

function customerIndexContract({ name, create: createHarness, singleServer }: EventStoreEngine): void {
  describe(`EventStore reads by customer: ${name}`, () => {
    let harness: EventStoreHarness;
    let database: string;
    let store: EventStore;

    beforeAll(async () => {
      ({ harness, database, store } = await openSuiteStore(createHarness, 'customers'));
    });

    afterAll(() => closeSuiteStore({ harness, database, store }));

    /** The rows of `table` in `db` matching `where` (trusted test SQL), as the engine counts them, copies included. */
    async function rowsIn(db: string, table: string, where: string): Promise<number> {
      return Number(await harness.sql(`SELECT count() FROM ${quoteIdentifier(db)}.${quoteIdentifier(table)} WHERE ${where}`));
    }

    it('pages a customer exactly, alone and with every other filter, through copies in the events and in the index', async () => {
      const appId = uniqueName('app');
      const events = sampleEvents(appId, 600, 7);
      await harness.withMergesStopped(database, EVENTS_TABLE, () =>
        harness.withMergesStopped(database, CUSTOMER_INDEX.table, async () => {
          await store.insert(events);
          // Stored again, in parts of their own: copies in both tables until merges join them.
          await store.insert(events.slice(150, 400));
          await store.insert(events.slice(300, 320));
          expect(await rowsIn(database, CUSTOMER_INDEX.table, `app_id = '${appId}'`)).toBe(
            [...events, ...events.slice(150, 400), ...events.slice(300, 320)].filter((e) => e.customerId !== null).length,
          );
          await expectCustomerPages(store, appId, events, [
            { customerId: 'c0' },
            { customerId: 'c4' },
            { customerId: '' },
            { customerId: 'c1', level: 'error' },
            { customerId: 'c0', type: 'e2' },
            { customerId: 'c0', level: 'warning', type: 'e1', from: new Date(D0 + 10 * DAY + 1), to: new Date(D0 + 45 * DAY) },
            { customerId: 'c2', from: new Date(D0 + 20 * DAY) },
            { customerId: 'nobody' },
          ]);
        }),
      );
    });

    // An installation of an earlier version exists only on one server: a cluster starts from today's tables.
    if (singleServer) {
      it('indexes the events stored before the index existed, outside 1970–2099 too, and what arrives after', async () => {
        const own = testDatabaseName('customers_migrate');
        const old = harness.open(own);
        try {
          // An installation of the version before the index: its events stored, some twice.
          await applyMigrations(statementsOnly(harness), harness.tables(own), MIGRATIONS.filter((m) => m.version < 4));
          const appId = uniqueName('app');
          const events = [
            ...sampleEvents(appId, 300, 11),
            makeEvent(appId, { customerId: 'c0', timestamp: new Date(-5 * DAY) }),
            makeEvent(appId, { customerId: 'c0', timestamp: new Date(Date.UTC(2200, 0, 1)) }),
          ];
          const later = sampleEvents(appId, 50, 12);
          await harness.withMergesStopped(own, 'events_by_day', async () => {
            await insertRows(harness, own, 'events_by_day', events);
            await insertRows(harness, own, 'events_by_day', events.slice(0, 40));
            expect(await rowsIn(own, 'events_by_day', '1')).toBe(events.length + 40);
          });
          await old.migrate();
          await old.insert(later);
          await expectCustomerPages(old, appId, [...events, ...later], [{ customerId: 'c0' }, { customerId: 'c3', level: 'info' }, { customerId: '' }]);
          // A second run of the runner finds the version recorded and indexes nothing again.
          const indexed = await rowsIn(own, CUSTOMER_INDEX.table, '1');
          await old.migrate();
          expect(await rowsIn(own, CUSTOMER_INDEX.table, '1')).toBe(indexed);
        } finally {
          await old.close();
          await harness.dropDatabase(own);
        }
      });
    }

    it('reads a customer whose id looks like SQL and like a placeholder', async () => {
      const appId = uniqueName('app');
      const customers = ["{appId:String}') OR 1 = 1 --", "{limit:UInt32}\\'", 'c0'];
      const events = customers.flatMap((customerId, c) => [1, 2, 3].map((i) => makeEvent(appId, { customerId, timestamp: new Date(D0 + (c * 10 + i) * HOUR) })));
      await store.insert(events);
      for (const customerId of customers) {
        for (const limit of [1, 2, 10]) {
          expect(ids((await readAllPages(store, { appId, customerId, limit })).flat())).toEqual(ids(newestFirst(events.filter((e) => e.customerId === customerId))));
        }
      }
    });

    it('passes over an indexed position whose event is not stored', async () => {
      const appId = uniqueName('app');
      const events = [1, 2, 3, 4].map((i) => makeEvent(appId, { customerId: 'c9', timestamp: new Date(D0 + i * HOUR) }));
      await store.insert(events);
      await harness.sql(
        `INSERT INTO ${quoteIdentifier(database)}.${CUSTOMER_INDEX.table} (app_id, customer, timestamp_ms, id, level, event) VALUES ('${appId}', 'c9', ${D0 + 2 * HOUR + 1}, '01900000-0000-7000-8000-0000000000ff', 'info', 'signup')`,
      );
      for (const limit of [1, 2, 10]) {
        expect(ids((await readAllPages(store, { appId, customerId: 'c9', limit })).flat())).toEqual(ids(newestFirst(events)));
      }
    });

    it('reads nothing past the retention, and upkeep drops the index months wholly past it', async () => {
      const own = testDatabaseName('customers_retention');
      const clock = Date.parse('2025-05-10T06:00:00.000Z');
      const retained = harness.open(own, { retentionDays: 60, now: () => clock });
      const keepAll = harness.open(own);
      try {
        await retained.migrate();
        const appId = uniqueName('app');
        const cutoff = clock - 60 * DAY;
        // Months 2025-02 (wholly past the cutoff, 2025-03-11 06:00), 2025-03 (the cutoff's) and 2025-05.
        const at = (ms: number) => makeEvent(appId, { customerId: 'c', timestamp: new Date(ms) });
        const events = [at(Date.parse('2025-02-20T12:00:00Z')), at(cutoff - 6 * DAY), at(cutoff - 1), at(cutoff), at(cutoff + HOUR), at(clock - DAY)];
        await retained.insert(events);
        const kept = events.filter((e) => e.timestamp.getTime() >= cutoff);
        expect(ids((await readAllPages(retained, { appId, customerId: 'c', limit: 2 })).flat())).toEqual(ids(newestFirst(kept)));

        await retained.upkeep();
        const tables = harness.tables(own);
        const months = await harness.sql(
          `SELECT DISTINCT partition_id FROM ${tables.system('parts')} WHERE database = '${own}' AND table = '${tables.local(CUSTOMER_INDEX.table)}' AND active ORDER BY partition_id`,
        );
        expect(months.trim().split('\n')).toEqual(['202503', '202505']);
        // Without a retention of its own, a store reads what upkeep left: the cutoff's day and after
        // (its index entries before the cutoff stay until their month goes, their days gone).
        expect(ids((await readAllPages(keepAll, { appId, customerId: 'c', limit: 2 })).flat())).toEqual(ids(newestFirst(events.filter((e) => e.timestamp.getTime() >= cutoff - 6 * HOUR))));
      } finally {
        await Promise.all([retained.close(), keepAll.close()]);
        await harness.dropDatabase(own);
      }
    });

    it('deleteApp removes the app from the index and leaves other apps there', async () => {
      // A database of its own, two days long: deleting rewrites every part of the events table, one
      // per day, which chDB does slowly.
      const own = testDatabaseName('customers_delete');
      const fresh = harness.open(own);
      try {
        await fresh.migrate();
        const [gone, stays] = [uniqueName('app'), uniqueName('app')];
        await fresh.insert([...sampleEvents(gone, 40, 3, 2), ...sampleEvents(stays, 40, 4, 2)]);
        const before = await rowsIn(own, CUSTOMER_INDEX.table, `app_id = '${stays}'`);
        expect(before).toBeGreaterThan(0);
        await fresh.deleteApp(gone);
        expect(await rowsIn(own, CUSTOMER_INDEX.table, `app_id = '${gone}'`)).toBe(0);
        expect(await rowsIn(own, CUSTOMER_INDEX.table, `app_id = '${stays}'`)).toBe(before);
        expect(await fresh.query({ appId: gone, customerId: 'c0', limit: 10 })).toEqual([]);
      } finally {
        await fresh.close();
        await harness.dropDatabase(own);
      }
    });
  });
}

for (const engine of EVENT_STORE_ENGINES) customerIndexContract(engine);
