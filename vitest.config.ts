import { defineConfig } from 'vitest/config';

// Two projects: `unit` needs nothing but Node; `integration` runs the contract and service suites
// against the real local stack (test/run-all.sh brings it up and exports its addresses).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/unit/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/contract/**/*.test.ts', 'test/integration/**/*.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // The suites share one Kafka broker and one ClickHouse server on a 2-core machine.
          fileParallelism: false,
        },
      },
    ],
  },
});
