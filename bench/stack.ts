import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createClient } from '@clickhouse/client';
import { Redis } from 'ioredis';
import { Kafka, logLevel } from 'kafkajs';
import { quoteIdentifier } from '../src/adapters/event-store/sql.js';
import { EVENTS_TABLE } from '../src/adapters/event-store/clickhouse-sql.js';
import { createTestDatabase, type TestDatabase } from '../test/helpers/postgres.js';
import { uniqueName } from '../test/helpers/stack-env.js';

/**
 * The local stack (deploy/local/stack.sh) and the throwaway resources one benchmark run owns on it:
 * a PostgreSQL database, a ClickHouse database, a Kafka topic prefix and a Redis key prefix. The stack itself is shared
 * with other developers' test runs, so the benchmark only ever starts it (idempotent) and never stops
 * it, and every drop below refuses a name that is not a benchmark's.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

export interface StackAddresses {
  readonly kafkaBrokers: string[];
  readonly clickhouseUrl: string;
  readonly redisUrl: string;
  readonly databaseUrl: string;
}

/**
 * `stack.sh up` starts whatever is missing (installing it on a fresh machine) and prints only export
 * lines on stdout; parsing them, rather than assuming the default ports, keeps STACK_* overrides working.
 */
export async function stackUp(): Promise<StackAddresses> {
  const { stdout } = await run('bash', ['deploy/local/stack.sh', 'up'], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  const vars = new Map<string, string>();
  for (const line of stdout.split('\n')) {
    const match = /^export ([A-Z_]+)=(.*)$/.exec(line.trim());
    if (match) vars.set(match[1]!, match[2]!);
  }
  const need = (name: string): string => {
    const value = vars.get(name);
    if (!value) throw new Error(`deploy/local/stack.sh up printed no ${name}; its output was:\n${stdout}`);
    return value;
  };
  return {
    kafkaBrokers: need('KAFKA_BROKERS').split(','),
    clickhouseUrl: need('CLICKHOUSE_URL'),
    redisUrl: need('REDIS_URL'),
    databaseUrl: need('DATABASE_URL'),
  };
}

/**
 * Waits until every stack service answers (`stack.sh status`, read-only). The integration suites
 * stop Kafka or ClickHouse on purpose for their outage tests; the benchmark waits for them to come
 * back instead of restarting a service someone else stopped.
 */
export async function waitForStack(timeoutMs: number, onWait: () => void): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let warned = false;
  for (;;) {
    try {
      await run('bash', ['deploy/local/stack.sh', 'status'], { cwd: ROOT });
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`the local stack is not up after ${timeoutMs} ms: ${(err as { stdout?: string }).stdout ?? String(err)}`);
      if (!warned) onWait();
      warned = true;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

/** Everything a distributed run owns; `drop` removes all of it and is safe to call twice. */
export interface BenchResources {
  readonly postgres: TestDatabase;
  readonly clickhouseDatabase: string;
  /** Ends with '.', like KAFKA_TOPIC_PREFIX values. */
  readonly topicPrefix: string;
  /**
   * REDIS_KEY_PREFIX of the run's services. Without one, every installation on the shared Redis claims
   * absence deadlines from the same set: another run's worker (a test suite's, another benchmark's)
   * would claim this run's, find no such rule in its own database and drop them.
   */
  readonly redisKeyPrefix: string;
  drop(): Promise<void>;
}

const BENCH_NAME = /^bench_[a-z0-9_]+$/;

function assertBenchName(name: string): string {
  if (!BENCH_NAME.test(name)) throw new Error(`refusing to touch ${JSON.stringify(name)}: benchmark resources are named bench_<a-z 0-9 _>`);
  return name;
}

export async function createBenchResources(stack: StackAddresses): Promise<BenchResources> {
  const name = assertBenchName(uniqueName('bench'));
  // The guarded helper of the test suites: its eas_test_ names are the ones PostgreSQL clean-ups accept.
  const postgres = await createTestDatabase(stack.databaseUrl);
  const topicPrefix = `${name}.`;
  let dropping: Promise<void> | undefined;
  return {
    postgres,
    clickhouseDatabase: name,
    topicPrefix,
    redisKeyPrefix: topicPrefix,
    drop: () => (dropping ??= settleAll([postgres.drop(), ...benchResourceDrops(stack, name)])),
  };
}

/**
 * What a benchmark run named `name` made on the stack besides its PostgreSQL database (whose test
 * name the suites' sweep knows): its ClickHouse database, its topics and consumer groups, its Redis
 * keys. Used by the run's own drop, and by test/helpers/sweep-stale.ts for a run that was killed.
 */
export async function dropBenchResources(stack: StackAddresses, name: string): Promise<void> {
  await settleAll(benchResourceDrops(stack, name));
}

function benchResourceDrops(stack: StackAddresses, name: string): Array<Promise<void>> {
  const prefix = `${assertBenchName(name)}.`;
  return [dropClickHouseDatabase(stack.clickhouseUrl, name), deleteBenchTopics(stack.kafkaBrokers, prefix), deleteBenchKeys(stack.redisUrl, prefix)];
}

/** Waits for every part, so that one error never leaves the rest undone, then fails with all the errors. */
async function settleAll(parts: ReadonlyArray<Promise<void>>): Promise<void> {
  const results = await Promise.allSettled(parts);
  const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed.length > 0) {
    const reasons = failed.map((f) => (f.reason instanceof Error ? f.reason.message : String(f.reason))).join('; ');
    throw new AggregateError(failed.map((f) => f.reason as unknown), `could not remove every benchmark resource: ${reasons}`);
  }
}

async function dropClickHouseDatabase(url: string, name: string): Promise<void> {
  const client = createClient({ url });
  try {
    await client.command({ query: `DROP DATABASE IF EXISTS ${quoteIdentifier(assertBenchName(name))}` });
  } finally {
    await client.close();
  }
}

/** The Redis keys under a benchmark prefix: the state its services kept (trigger state, cache versions, rate limits). */
async function deleteBenchKeys(url: string, prefix: string): Promise<void> {
  // A bench name holds no glob character, so the prefix matches only itself in the pattern.
  assertBenchName(prefix.slice(0, -1));
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/**
 * A group whose member did not leave (a service that hit its shutdown deadline with work in hand
 * exits without leaving) cannot be deleted until the coordinator evicts the member: the service's
 * session timeout is 10 s, so group deletion is retried a little longer than that.
 */
const GROUP_DELETE_PATIENCE_MS = 15_000;

/** The topics under a benchmark prefix and the consumer groups named with it (the worker's group). */
export async function deleteBenchTopics(brokers: string[], prefix: string): Promise<void> {
  assertBenchName(prefix.slice(0, -1));
  if (!prefix.endsWith('.')) throw new Error(`refusing to delete under ${JSON.stringify(prefix)}: not a topic prefix`);
  const admin = new Kafka({ brokers, clientId: 'bench-cleanup', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    // Topics first: a group that cannot be deleted yet must not leave the topics behind.
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics });
    const deadline = Date.now() + GROUP_DELETE_PATIENCE_MS;
    for (;;) {
      const groups = (await admin.listGroups()).groups.map((g) => g.groupId).filter((g) => g.startsWith(prefix));
      if (groups.length === 0) return;
      try {
        await admin.deleteGroups(groups);
        return;
      } catch (err) {
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  } finally {
    await admin.disconnect();
  }
}

/** Creates a topic the benchmark owns (the kafka-producer-perf-test target), under the run's prefix. */
export async function createBenchTopic(brokers: string[], topic: string, partitions: number): Promise<void> {
  assertBenchName(topic.slice(0, topic.indexOf('.')));
  const admin = new Kafka({ brokers, clientId: 'bench-setup', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
}

/**
 * Rows in the run's events table: how the benchmark sees the worker catch up. The table is the
 * run's own, so no filter is needed; an unmerged redelivered copy would count twice, which only
 * makes a drain look finished a little early after a worker restart (the benchmark restarts none).
 */
export async function countStoredEvents(url: string, database: string): Promise<number> {
  const client = createClient({ url });
  try {
    const result = await client.query({ query: `SELECT count() AS n FROM ${quoteIdentifier(assertBenchName(database))}.${EVENTS_TABLE}`, format: 'JSONEachRow' });
    const [row] = await result.json<{ n: string | number }>();
    return Number(row?.n ?? 0);
  } finally {
    await client.close();
  }
}
