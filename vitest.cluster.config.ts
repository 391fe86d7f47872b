import { defineConfig } from 'vitest/config';

// The suites that need the local cluster (deploy/local/cluster.sh): `npm run test:cluster` brings it up
// and runs them, and the event store's contract suites once more, on the cluster (their harness reads
// CLICKHOUSE_CLUSTER). Kept out of vitest.config.ts, so that `npm test` never looks for a cluster it did
// not start.
export default defineConfig({
  test: {
    include: ['test/cluster/**/*.test.ts', 'test/contract/event-store*.contract.test.ts'],
    environment: 'node',
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // The suites kill and restart the cluster's nodes: one file at a time.
    fileParallelism: false,
  },
});
