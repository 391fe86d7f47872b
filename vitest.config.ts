import { configDefaults, defineConfig } from 'vitest/config';

// Three projects: `unit` needs nothing but Node; `integration` runs the contract and service suites
// against the real local stack (test/run-all.sh brings it up and exports its addresses); `e2e` drives
// the built dashboard in Debian's Chromium against a real service process in embedded mode.
const notE2e = [...configDefaults.exclude, 'test/e2e/**'];

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/unit/**/*.test.ts'],
          exclude: notE2e,
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/contract/**/*.test.ts', 'test/integration/**/*.test.ts'],
          exclude: notE2e,
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 120_000,
          // The suites share one Kafka broker and one ClickHouse server on a 2-core machine.
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          // One browser workflow is a few dozen UI steps, each waiting up to 15 s for its condition.
          testTimeout: 180_000,
          // Starting the service and Chromium takes seconds; on a loaded 2-core machine, more.
          hookTimeout: 120_000,
          // Each file starts its own service and Chromium: one at a time is enough for two cores.
          fileParallelism: false,
        },
      },
    ],
  },
});
