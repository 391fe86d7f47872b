import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClickHouseEventStore } from '../../src/adapters/event-store/clickhouse-event-store.js';
import { CUSTOMER_INDEX, EVENTS_TABLE } from '../../src/adapters/event-store/clickhouse-sql.js';
import { TableLayout } from '../../src/adapters/event-store/table-layout.js';
import type { StoredEvent } from '../../src/domain/events.js';
import { bruteCounts, comparable } from '../helpers/event-counts.js';
import { clickhouseSql, dropTestDatabase, testDatabaseName } from '../helpers/clickhouse.js';
import { ids, makeEvent, newestFirst, readAllPages } from '../helpers/event-store-harness.js';
import { waitFor } from '../helpers/service-process.js';
import { uniqueName } from '../helpers/stack-env.js';
import { clusterAddresses, clusterControl } from './cluster-control.js';

/**
 * The event store on the local cluster, beyond the contract suites it also passes there: the tables
 * it makes (replicated per shard, Distributed in front, every app on one shard and both its
 * replicas), and its reads, writes and counts with the node it talks to killed, which catches up
 * when it returns.
 */

const { clickhouseUrls, clickhouseCluster } = clusterAddresses();
const nodes = clickhouseUrls.map((url) => clickhouseSql(url));
const DAY = 86_400_000;
const D0 = Date.parse('2025-06-01T00:00:00.000Z');

/** One statement on node `n` (1 to 4), its TabSeparated answer trimmed. */
const on = async (n: number, sql: string): Promise<string> => (await nodes[n - 1]!(sql)).trim();

describe('the event store on 2 shards × 2 replicas', () => {
  const database = testDatabaseName('store_cluster');
  const tables = new TableLayout(database, clickhouseCluster);
  const store = new ClickHouseEventStore({ urls: clickhouseUrls, cluster: clickhouseCluster, database });

  beforeAll(() => store.migrate());
  afterAll(async () => {
    await clusterControl('start', 'clickhouse-1');
    await store.close();
    await dropTestDatabase(nodes[0]!, database, clickhouseCluster);
  });

  /** Events of `app`, one every few hours over ten days, a customer on every other one. */
  const eventsOf = (app: string, count: number, from = D0): StoredEvent[] =>
    Array.from({ length: count }, (_, i) =>
      makeEvent(app, { timestamp: new Date(from + ((i * 5 * 3_600_000) % (10 * DAY))), customerId: i % 2 === 0 ? `c${i % 3}` : null, level: i % 4 === 0 ? 'error' : 'info' }),
    );

  /** The rows of `app` in a node's own replica of `table`. */
  const rowsOn = async (n: number, table: string, app: string): Promise<number> =>
    Number(await on(n, `SELECT count() FROM \`${database}\`.\`${tables.local(table)}\` WHERE app_id = '${app}'`));

  it('makes every table a replicated table per shard behind a Distributed table of the same name, on every node', async () => {
    for (const n of [1, 2, 3, 4]) {
      const engines = new Map(
        (await on(n, `SELECT name, engine FROM system.tables WHERE database = '${database}'`)).split('\n').map((line) => line.split('\t') as [string, string]),
      );
      for (const table of [EVENTS_TABLE, CUSTOMER_INDEX.table, 'schema_migrations']) {
        expect(engines.get(table), `${table} on clickhouse-${n}`).toBe('Distributed');
        expect(engines.get(tables.local(table)), `${tables.local(table)} on clickhouse-${n}`).toMatch(/^Replicated(Replacing)?MergeTree$/);
      }
      expect(engines.get(CUSTOMER_INDEX.feed)).toBe('MaterializedView');
    }
  });

  it('keeps each app on one shard, on both its replicas, the customer index beside its events', async () => {
    const stored = new Map(Array.from({ length: 8 }, () => uniqueName('app')).map((app) => [app, eventsOf(app, 30)]));
    await store.insert([...stored.values()].flat());
    const shards = new Set<string>();
    for (const [app, events] of stored) {
      // Replication copies the rows to the other replica of the shard a moment after the write.
      await waitFor(
        async () => {
          const counts = await Promise.all([1, 2, 3, 4].map((n) => rowsOn(n, EVENTS_TABLE, app)));
          return counts.filter((c) => c === 30).length === 2 && counts.filter((c) => c === 0).length === 2;
        },
        30_000,
        `${app}'s 30 events on both replicas of one shard and on no other node`,
      );
      const holders = [];
      for (const n of [1, 2, 3, 4]) if ((await rowsOn(n, EVENTS_TABLE, app)) > 0) holders.push(n);
      // Nodes 1 and 2 replicate shard 1, nodes 3 and 4 shard 2 (deploy/local/cluster.sh).
      expect([[1, 2], [3, 4]]).toContainEqual(holders);
      shards.add(holders.join());
      for (const n of holders) await waitFor(async () => (await rowsOn(n, CUSTOMER_INDEX.table, app)) === 15, 30_000, `${app}'s index on clickhouse-${n}`);
      expect(ids(await store.query({ appId: app, limit: 100 }))).toEqual(ids(newestFirst(events)));
    }
    // Eight apps over two shards: both hold some (the odds of all on one are 1 in 128).
    expect(shards.size).toBe(2);
  });

  it('lists, pages and counts exactly with the node it talks to killed, and that node catches up when it returns', async () => {
    const app = uniqueName('app');
    const before = eventsOf(app, 60);
    await store.insert(before);
    await clusterControl('kill', 'clickhouse-1');
    try {
      // Written and read through the other nodes: the store fails over to the next address.
      const during = eventsOf(app, 40, D0 + 3_600_000 + 7);
      await store.insert(during);
      const all = [...before, ...during];
      expect(ids((await readAllPages(store, { appId: app, limit: 7 })).flat())).toEqual(ids(newestFirst(all)));
      expect(ids((await readAllPages(store, { appId: app, customerId: 'c1', limit: 4 })).flat())).toEqual(ids(newestFirst(all.filter((e) => e.customerId === 'c1'))));
      const range = { from: new Date(D0), to: new Date(D0 + 10 * DAY) };
      expect(comparable(await store.counts({ appId: app, ...range, bucketMs: DAY, groupBy: 'level', limit: 5 }))).toEqual(comparable(bruteCounts(all, range, DAY, 'level', 5)));
      await expect(store.ping()).resolves.toBeUndefined();
    } finally {
      await clusterControl('start', 'clickhouse-1');
    }
    // Back, the dead replica fetches what its shard's other replica took meanwhile.
    const holders = [];
    for (const n of [1, 2, 3, 4]) if ((await rowsOn(n, EVENTS_TABLE, app)) > 0) holders.push(n);
    for (const n of holders.includes(1) || holders.includes(2) ? [1, 2] : [3, 4]) {
      await waitFor(async () => (await rowsOn(n, EVENTS_TABLE, app)) === 100, 60_000, `clickhouse-${n} to hold all 100 events of the app`);
    }
  });
});
