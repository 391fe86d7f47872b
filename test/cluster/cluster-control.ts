import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A node of the local cluster, as deploy/local/cluster.sh names it. */
export type ClusterNode = 'zookeeper' | `clickhouse-${1 | 2 | 3 | 4}` | `kafka-${1 | 2 | 3}`;

/** Kills a node with SIGKILL (a crash) or starts it again, waiting until it is ready. */
export async function clusterControl(command: 'kill' | 'start', node: ClusterNode): Promise<void> {
  await run('bash', ['deploy/local/cluster.sh', command, node], { timeout: 180_000 });
}

/** The cluster's addresses (`cluster.sh env`), read from the environment the test command exported. */
export interface ClusterAddresses {
  readonly kafkaBrokers: string[];
  readonly clickhouseUrls: string[];
  readonly clickhouseCluster: string;
}

export function clusterAddresses(): ClusterAddresses {
  const { KAFKA_BROKERS, CLICKHOUSE_URLS, CLICKHOUSE_CLUSTER } = process.env;
  if (!KAFKA_BROKERS || !CLICKHOUSE_URLS || !CLICKHOUSE_CLUSTER) {
    throw new Error('KAFKA_BROKERS, CLICKHOUSE_URLS and CLICKHOUSE_CLUSTER are unset: run the cluster suites with `npm run test:cluster`');
  }
  return { kafkaBrokers: KAFKA_BROKERS.split(','), clickhouseUrls: CLICKHOUSE_URLS.split(','), clickhouseCluster: CLICKHOUSE_CLUSTER };
}
