import { AggregatorRegistry, Registry, collectDefaultMetrics, type MetricObjectWithValues, type MetricValue } from 'prom-client';

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
export function createMetricsRegistry(options: { processDefaults?: boolean } = {}): Registry {
  const registry = new Registry();
  if (options.processDefaults ?? true) {
    collectDefaultMetrics({ register: registry });
    for (const name of MISNAMED_DEFAULTS) registry.removeSingleMetric(name);
  }
  return registry;
}

/** One registry's metrics as plain values, which cross a worker thread's message port. */
export type MetricsSnapshot = Array<MetricObjectWithValues<MetricValue<string>>>;

/** What `GET /metrics` serves: a registry, or the merge of several (mergedExposition). */
export interface MetricsExposition {
  readonly contentType: string;
  metrics(): Promise<string>;
}

/**
 * The metrics of a process whose work is split over threads, each with its own registry: served as
 * one exposition, each series summed over the threads (counters and histograms add up; the process
 * defaults are collected by one registry only, so none counts twice).
 */
export function mergedExposition(own: Registry, others: () => Promise<MetricsSnapshot[]>): MetricsExposition {
  return {
    contentType: own.contentType,
    async metrics() {
      const [mine, theirs] = await Promise.all([own.getMetricsAsJSON(), others()]);
      return AggregatorRegistry.aggregate([mine as MetricsSnapshot, ...theirs]).metrics();
    },
  };
}
