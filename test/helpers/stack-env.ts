/**
 * Addresses of the local stack for the integration suites. `npm test` (test/run-all.sh) runs
 * `deploy/local/stack.sh up` and exports these; a suite started without them fails loudly rather
 * than skipping, so a green run always means the real services were exercised.
 */
export interface StackEnv {
  readonly kafkaBrokers: string[];
  readonly clickhouseUrl: string;
  readonly redisUrl: string;
  readonly databaseUrl: string;
}

export function stackEnv(): StackEnv {
  const { KAFKA_BROKERS, REDIS_URL, DATABASE_URL } = process.env;
  // The local cluster (`npm run test:cluster`) names its ClickHouse nodes in CLICKHOUSE_URLS: the first serves as the stack's.
  const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? process.env.CLICKHOUSE_URLS?.split(',')[0];
  if (!KAFKA_BROKERS || !CLICKHOUSE_URL || !REDIS_URL || !DATABASE_URL) {
    throw new Error(
      'The integration suites need the local stack. Run `npm test`, or `eval "$(bash deploy/local/stack.sh env)"` ' +
        'after `bash deploy/local/stack.sh up`, so KAFKA_BROKERS, CLICKHOUSE_URL, REDIS_URL and DATABASE_URL are set.',
    );
  }
  return { kafkaBrokers: KAFKA_BROKERS.split(','), clickhouseUrl: CLICKHOUSE_URL, redisUrl: REDIS_URL, databaseUrl: DATABASE_URL };
}

/** A name no other test run uses, for databases, topics and groups a suite creates and owns. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}
