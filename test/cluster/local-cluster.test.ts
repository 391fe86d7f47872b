import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { afterAll, describe, expect, it } from 'vitest';
import { quoteIdentifier } from '../../src/adapters/event-store/sql.js';
import { testDatabaseName } from '../helpers/clickhouse.js';
import { waitFor } from '../helpers/service-process.js';
import { uniqueName } from '../helpers/stack-env.js';
import { clusterAddresses, clusterControl } from './cluster-control.js';

/**
 * What the local cluster (deploy/local/cluster.sh) offers a service, checked against the servers
 * themselves: ClickHouse statements ON CLUSTER reach every node, a Distributed table in front of
 * replicated tables puts each app's rows on one shard and both its replicas, and reads and writes go
 * on while a replica is down, which catches up when it returns; Kafka topics are written to three
 * brokers and need two, so a write acknowledged with acks=all survives a broker's crash.
 */

const addresses = clusterAddresses();
const cluster = quoteIdentifier(addresses.clickhouseCluster);

/** One statement over ClickHouse's HTTP interface, with settings as URL parameters (which 18.16 takes). */
async function ch(node: number, sql: string, settings: Record<string, string> = {}): Promise<string> {
  const url = new URL(addresses.clickhouseUrls[node - 1]!);
  for (const [name, value] of Object.entries(settings)) url.searchParams.set(name, value);
  const res = await fetch(url, { method: 'POST', body: sql });
  const text = await res.text();
  if (!res.ok) throw new Error(`clickhouse-${node}: ${res.status} ${text.slice(0, 500)}\n${sql}`);
  return text;
}

const countOn = async (node: number, table: string): Promise<number> => Number((await ch(node, `SELECT count() FROM ${table}`)).trim());
const appsOn = async (node: number, table: string): Promise<string[]> =>
  (await ch(node, `SELECT DISTINCT app_id FROM ${table} ORDER BY app_id`)).split('\n').filter((line) => line !== '');

describe('ClickHouse, 2 shards × 2 replicas', () => {
  const database = quoteIdentifier(testDatabaseName('cluster'));
  const local = `${database}.items_local`;
  const distributed = `${database}.items`;
  afterAll(async () => {
    await clusterControl('start', 'clickhouse-2');
    await ch(1, `DROP DATABASE IF EXISTS ${database} ON CLUSTER ${cluster}`);
  });

  /** `count` rows for each of `apps`, written through the Distributed table of `node`, synchronously. */
  async function insert(node: number, apps: string[], count: number, from = 0): Promise<void> {
    const rows = apps.flatMap((app) => Array.from({ length: count }, (_, i) => `('${app}', 'row-${from + i}', ${from + i})`));
    await ch(node, `INSERT INTO ${distributed} (app_id, id, n) VALUES ${rows.join(',')}`, { insert_distributed_sync: '1' });
  }

  it('shards by app, replicates each shard, and reads and writes on while a replica is down', async () => {
    await ch(1, `CREATE DATABASE IF NOT EXISTS ${database} ON CLUSTER ${cluster}`);
    await ch(
      1,
      `CREATE TABLE IF NOT EXISTS ${local} ON CLUSTER ${cluster} (app_id String, id String, n UInt64)
ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/${database.replace(/`/g, '')}/items', '{replica}') ORDER BY (app_id, id)`,
    );
    await ch(1, `CREATE TABLE IF NOT EXISTS ${distributed} ON CLUSTER ${cluster} AS ${local} ENGINE = Distributed(${cluster}, ${database}, items_local, cityHash64(app_id))`);
    // Every node got both tables from the one statement.
    for (const node of [1, 2, 3, 4]) expect(await countOn(node, distributed)).toBe(0);

    const apps = Array.from({ length: 20 }, (_, i) => `app-${String(i).padStart(2, '0')}`);
    await insert(1, apps, 50);
    // The insert waited for one replica of each shard; the other gets the rows by replication, and a
    // node reads its own replica first, so each node sees all of them once replication caught up.
    for (const node of [1, 2, 3, 4]) await waitFor(async () => (await countOn(node, distributed)) === 1_000, 30_000, `clickhouse-${node} to read all 1,000 rows`);

    // Each app on one shard: the shards' sets of apps are disjoint and together every app.
    const [shard1, shard2] = [await appsOn(1, local), await appsOn(3, local)];
    expect(shard1.length).toBeGreaterThan(0);
    expect(shard2.length).toBeGreaterThan(0);
    expect(shard1.filter((app) => shard2.includes(app))).toEqual([]);
    expect([...shard1, ...shard2].sort()).toEqual(apps);
    // And on both replicas of that shard.
    await waitFor(async () => (await appsOn(2, local)).join() === shard1.join() && (await countOn(2, local)) === (await countOn(1, local)), 30_000, 'clickhouse-2 to replicate shard 1');
    await waitFor(async () => (await appsOn(4, local)).join() === shard2.join() && (await countOn(4, local)) === (await countOn(3, local)), 30_000, 'clickhouse-4 to replicate shard 2');

    await clusterControl('kill', 'clickhouse-2');
    // Reads pick a replica per shard at random; the dead one is passed over every time.
    for (let i = 0; i < 10; i++) expect(await countOn(3, distributed)).toBe(1_000);
    await insert(3, apps, 10, 50);
    await waitFor(async () => (await countOn(3, distributed)) === 1_200, 30_000, 'clickhouse-3 to read the rows written while clickhouse-2 was down');

    await clusterControl('start', 'clickhouse-2');
    await waitFor(async () => (await countOn(2, local)) === (await countOn(1, local)), 60_000, 'clickhouse-2 to catch up after its restart');
    expect(await countOn(2, distributed)).toBe(1_200);
  });
});

describe('Kafka, 3 brokers', () => {
  const kafka = new Kafka({ brokers: addresses.kafkaBrokers, clientId: 'cluster-test', logLevel: logLevel.NOTHING });
  const topic = uniqueName('test_cluster');
  afterAll(async () => {
    await clusterControl('start', 'kafka-2');
    const admin = kafka.admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
    await admin.disconnect();
  });

  /** Partitions whose in-sync replicas are fewer than `count`. */
  async function partitionsShortOf(count: number): Promise<number> {
    const admin = kafka.admin();
    await admin.connect();
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
      return topics[0]!.partitions.filter((p) => p.isr.length < count).length;
    } finally {
      await admin.disconnect();
    }
  }

  it('writes every topic to three brokers, needs two, and loses no acknowledged record when one crashes', async () => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ topics: [{ topic, numPartitions: 4 }], waitForLeaders: false });
    // A broker answers for the new topic once the metadata reached it: asked until one does.
    let replicas: number[] = [];
    await waitFor(
      async () => {
        const metadata = await admin.fetchTopicMetadata({ topics: [topic] }).catch(() => null);
        const partitions = metadata?.topics[0]?.partitions ?? [];
        replicas = partitions.map((partition) => partition.replicas.length);
        return partitions.length === 4 && partitions.every((partition) => partition.leader >= 0);
      },
      30_000,
      'the new topic to have a leader for each partition',
    );
    expect(replicas).toEqual([3, 3, 3, 3]);
    // Asked of any broker, which may learn of the new topic a moment after its leaders were elected.
    let minInsync: string | undefined;
    await waitFor(
      async () => {
        const configs = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['min.insync.replicas'] }], includeSynonyms: false }).catch(() => null);
        minInsync = configs?.resources[0]?.configEntries.find((entry) => entry.configName === 'min.insync.replicas')?.configValue;
        return minInsync !== undefined;
      },
      30_000,
      "the topic's min.insync.replicas",
    );
    expect(minInsync).toBe('2');
    await admin.disconnect();

    const producer = kafka.producer();
    await producer.connect();
    const send = (from: number) =>
      producer.send({ topic, acks: -1, messages: Array.from({ length: 100 }, (_, i) => ({ key: `k${(from + i) % 7}`, value: String(from + i) })) });
    await send(0);
    await clusterControl('kill', 'kafka-2');
    await send(100);
    await producer.disconnect();

    const seen = new Set<string>();
    const consumer = kafka.consumer({ groupId: uniqueName('test_cluster_group') });
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: ({ message }) => {
        seen.add(String(message.value));
        return Promise.resolve();
      },
    });
    await waitFor(() => Promise.resolve(seen.size === 200), 60_000, 'all 200 acknowledged records to be read with one broker down');
    await consumer.disconnect();

    await clusterControl('start', 'kafka-2');
    await waitFor(async () => (await partitionsShortOf(3)) === 0, 60_000, 'kafka-2 to rejoin every partition in sync');
  });
});
