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
import { dropBenchResources } from '../../bench/stack.js';

const MAX_AGE_MS = 60 * 60 * 1000;
/**
 * `<prefix>_<base36 ms>_<6 random>`, as uniqueName() builds it; a topic or a benchmark's Redis key
 * adds `.<name>`. The benchmark's names start with `bench` (bench/stack.ts).
 */
const UNIQUE_NAME = /^((?:eas_test|test|bench)[a-z0-9_]*?_([0-9a-z]{8,9})_[0-9a-z]{6})(?:\.|$)/;

/** The name uniqueName() made that `value` starts with, when that name is more than MAX_AGE_MS old. */
function staleName(value: string, now: number): string | undefined {
  const match = UNIQUE_NAME.exec(value);
  if (!match) return undefined;
  const created = parseInt(match[2]!, 36);
  return Number.isFinite(created) && created > 1.6e12 && now - created > MAX_AGE_MS ? match[1] : undefined;
}

function isStale(value: string, now: number): boolean {
  return staleName(value, now) !== undefined;
}

/** A benchmark run's name (bench/stack.ts drops everything made under it at once). */
function isBenchName(name: string): boolean {
  return name.startsWith('bench_');
}

async function main(): Promise<void> {
  const stack = stackEnv();
  const now = Date.now();
  let removed = 0;
  /** Killed benchmark runs, found by any of their resources: each is dropped whole at the end. */
  const benchRuns = new Set<string>();

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
      if (isBenchName(name)) {
        benchRuns.add(name);
        continue;
      }
      await dropTestDatabase(clickhouseSql(stack.clickhouseUrl), name);
      removed += 1;
    }
  } finally {
    await clickhouse.close();
  }

  const admin = new Kafka({ brokers: stack.kafkaBrokers, clientId: 'test-sweep', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const topics: string[] = [];
    for (const topic of await admin.listTopics()) {
      const name = staleName(topic, now);
      if (name === undefined) continue;
      if (isBenchName(name)) benchRuns.add(name);
      else topics.push(topic);
    }
    if (topics.length > 0) await admin.deleteTopics({ topics });
    removed += topics.length;
  } finally {
    await admin.disconnect();
  }
  // A killed benchmark run may have left only keys under its name; the suites' keys are not swept here.
  const redis = new Redis(stack.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', 'bench_*', 'COUNT', 1000);
      for (const key of keys) {
        const name = staleName(key, now);
        if (name !== undefined) benchRuns.add(name);
      }
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }

  for (const name of benchRuns) await dropBenchResources(stack, name);
  removed += benchRuns.size;
  process.stderr.write(`swept ${removed} stale test resources and killed benchmark runs\n`);
}

await main();
