import { Registry, collectDefaultMetrics } from 'prom-client';

/**
 * One registry per process, created by the container and passed to whoever records metrics: no
 * module-level global (STYLE habit 2), so tests can build several services in one process.
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}
