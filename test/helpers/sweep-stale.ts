/**
 * Removes what test and benchmark runs that were killed mid-way left on the shared local stack:
 * PostgreSQL and ClickHouse databases, Kafka topics and (the benchmark's) Redis keys whose names
 * uniqueName() made (they carry their creation time) and that are more than an hour old. A live run's
 * resources are minutes old, and nothing without a test or benchmark name is ever touched. Run by
 * test/run-all.sh before the suites.
 */
import { Kafka, logLevel } from 'kafkajs';
import { clickhouseSql, dropTestDatabase } from './clickhouse.js';
import { dropTestDatabase as dropPostgresDatabase, queryServer } from './postgres.js';
import { stackEnv } from './stack-env.js';
import { createClient } from '@clickhouse/client';
import { Redis } from 'ioredis';
import { quoteIdentifier } from '../../src/adapters/event-store/sql.js';

const MAX_AGE_MS = 60 * 60 * 1000;
/**
 * `<prefix>_<base36 ms>_<6 random>`, as uniqueName() builds it; a topic or a benchmark's Redis key
 * adds `.<name>`. The benchmark's names start with `bench` (bench/stack.ts).
 */
const UNIQUE_NAME = /^(?:eas_test|test|bench)[a-z0-9_]*?_([0-9a-z]{8,9})_[0-9a-z]{6}(?:\.|$)/;

function isStale(name: string, now: number): boolean {
  const match = UNIQUE_NAME.exec(name);
  if (!match) return false;
  const created = parseInt(match[1]!, 36);
  return Number.isFinite(created) && created > 1.6e12 && now - created > MAX_AGE_MS;
}

async function main(): Promise<void> {
  const stack = stackEnv();
  const now = Date.now();
  let removed = 0;

  const databases = await queryServer<{ datname: string }>(stack.databaseUrl, "select datname from pg_database where datname like 'eas\\_test\\_%'");
  for (const { datname } of databases.filter((r) => isStale(r.datname, now))) {
    await dropPostgresDatabase(stack.databaseUrl, datname);
    removed += 1;
  }

  const clickhouse = createClient({ url: stack.clickhouseUrl });
  try {
    const result = await clickhouse.query({ query: "SELECT name FROM system.databases WHERE name LIKE 'test\\\\_%' OR name LIKE 'bench\\\\_%'", format: 'JSONEachRow' });
    for (const { name } of await result.json<{ name: string }>()) {
      if (!isStale(name, now)) continue;
      // A benchmark's database is not a test database, which dropTestDatabase alone accepts; isStale
      // has matched the name against uniqueName()'s shape either way.
      if (name.startsWith('bench_')) await clickhouse.command({ query: `DROP DATABASE IF EXISTS ${quoteIdentifier(name)}` });
      else await dropTestDatabase(clickhouseSql(stack.clickhouseUrl), name);
      removed += 1;
    }
  } finally {
    await clickhouse.close();
  }

  const admin = new Kafka({ brokers: stack.kafkaBrokers, clientId: 'test-sweep', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((t) => isStale(t, now));
    if (topics.length > 0) await admin.deleteTopics({ topics });
    removed += topics.length;
  } finally {
    await admin.disconnect();
  }
  const redis = new Redis(stack.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', 'bench_*', 'COUNT', 1000);
      const stale = keys.filter((key) => isStale(key, now));
      if (stale.length > 0) removed += await redis.del(...stale);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  process.stderr.write(`swept ${removed} stale test resources\n`);
}

await main();
