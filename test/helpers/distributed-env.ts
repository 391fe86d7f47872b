import { clickhouseSql, dropTestDatabase, testDatabaseName } from './clickhouse.js';
import { deleteTopicsWithPrefix } from './kafka.js';
import { createTestDatabase } from './postgres.js';
import { stackEnv, uniqueName, type StackEnv } from './stack-env.js';

export interface IsolatedDistributedEnv {
  readonly stack: StackEnv;
  /** The service environment of distributed mode, isolated from every other suite. */
  readonly env: Readonly<Record<string, string>>;
  /** Drops the suite's databases and topics (Redis keys are shared and harmless). */
  cleanup(): Promise<void>;
}

/**
 * Distributed-mode settings of the local stack with a suite's own PostgreSQL database, ClickHouse
 * database and Kafka topic prefix (hence its own consumer group): services started with it never see
 * another suite's data, and `cleanup` leaves nothing behind.
 */
export async function isolatedDistributedEnv(purpose: string): Promise<IsolatedDistributedEnv> {
  const stack = stackEnv();
  const metadataDb = await createTestDatabase(stack.databaseUrl);
  const eventsDb = testDatabaseName(purpose);
  const topicPrefix = `${uniqueName('test')}.`;
  // On the local cluster (`npm run test:cluster` sets CLICKHOUSE_CLUSTER) the events go to the
  // ClickHouse cluster, through all its nodes.
  const { CLICKHOUSE_CLUSTER: cluster, CLICKHOUSE_URLS: urls } = process.env;
  const clickhouse: Record<string, string> = cluster && urls ? { CLICKHOUSE_URLS: urls, CLICKHOUSE_CLUSTER: cluster } : { CLICKHOUSE_URL: stack.clickhouseUrl };
  return {
    stack,
    env: {
      KAFKA_BROKERS: stack.kafkaBrokers.join(','),
      KAFKA_TOPIC_PREFIX: topicPrefix,
      ...clickhouse,
      CLICKHOUSE_DATABASE: eventsDb,
      REDIS_URL: stack.redisUrl,
      // Absence deadlines are claimed from one set per installation: another suite's workers must not see them.
      REDIS_KEY_PREFIX: topicPrefix,
      DATABASE_URL: metadataDb.url,
    },
    async cleanup() {
      await metadataDb.drop();
      await dropTestDatabase(clickhouseSql(stack.clickhouseUrl), eventsDb, clickhouse.CLICKHOUSE_CLUSTER);
      await deleteTopicsWithPrefix(stack.kafkaBrokers, topicPrefix);
    },
  };
}
