import { Histogram, Registry, type MetricValueWithName } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { PlainHistogram } from './plain-histogram.js';

const BOUNDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800];
// Values on every bound (Prometheus's `le` includes it), between bounds, below the first and above the last.
const VALUES = [...BOUNDS, 0, 0.01, 0.07, 0.7, 7, 70, 3600, 0.25000001];

describe('PlainHistogram', () => {
  it('exposes exactly what prom-client would for the same observations, with and without labels', async () => {
    const plain = new Registry();
    const unlabelled = PlainHistogram.register(plain, 'eas_test_seconds', 'A test', BOUNDS).series();
    const labelled = PlainHistogram.register(plain, 'eas_test_labelled_seconds', 'Another', BOUNDS);
    const reference = new Registry();
    const referenceUnlabelled = new Histogram({ name: 'eas_test_seconds', help: 'A test', buckets: BOUNDS, registers: [reference] });
    const referenceLabelled = new Histogram({ name: 'eas_test_labelled_seconds', help: 'Another', buckets: BOUNDS, labelNames: ['channel'], registers: [reference] });
    for (const value of VALUES) {
      unlabelled.observe(value);
      referenceUnlabelled.observe(value);
      const channel = value < 1 ? 'webhook' : 'slack';
      labelled.series({ channel }).observe(value);
      referenceLabelled.observe({ channel }, value);
    }
    expect(await plain.metrics()).toBe(await reference.metrics());
    // The values other threads' registries send to be merged: prom-client adds an empty exemplar.
    const values = async (registry: Registry) =>
      (await registry.getMetricsAsJSON()).map(({ values, ...metric }) => ({ ...metric, values: values.map(({ labels, value, metricName }: MetricValueWithName<string>) => ({ labels, value, metricName })) }));
    expect(await values(plain)).toEqual(await values(reference));
  });

  it('is one histogram per registry and name, and one series per label values', () => {
    const registry = new Registry();
    const first = PlainHistogram.register(registry, 'eas_test_seconds', 'A test', BOUNDS);
    expect(PlainHistogram.register(registry, 'eas_test_seconds', 'A test', BOUNDS)).toBe(first);
    expect(PlainHistogram.register(new Registry(), 'eas_test_seconds', 'A test', BOUNDS)).not.toBe(first);
    expect(first.series({ channel: 'email' })).toBe(first.series({ channel: 'email' }));
    expect(first.series({ channel: 'email' })).not.toBe(first.series({ channel: 'slack' }));
  });

  it('is back to zero when the registry is reset, and its series keep counting', async () => {
    const registry = new Registry();
    const series = PlainHistogram.register(registry, 'eas_test_seconds', 'A test', BOUNDS).series();
    for (const value of VALUES) series.observe(value);
    registry.resetMetrics();
    series.observe(0.2);
    const reference = new Registry();
    new Histogram({ name: 'eas_test_seconds', help: 'A test', buckets: BOUNDS, registers: [reference] }).observe(0.2);
    expect(await registry.metrics()).toBe(await reference.metrics());
  });
});
