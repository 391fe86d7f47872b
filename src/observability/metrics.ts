import { Registry, collectDefaultMetrics } from 'prom-client';

/**
 * prom-client's default gauges that `promtool check metrics` rejects: a `_total` suffix belongs to
 * counters only. Each is the sum of a gauge that stays (`nodejs_active_handles` by type, and so on),
 * so removing them loses nothing.
 */
const MISNAMED_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/**
 * One registry per process, created by the container and passed to whoever records metrics: no
 * module-level global, so tests can build several services in one process. It holds the process and
 * Node.js defaults; the service's own metrics are registered on it by createServiceMetrics
 * (service-metrics.ts).
 */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const name of MISNAMED_DEFAULTS) registry.removeSingleMetric(name);
  return registry;
}
