import type { Metric, MetricValueWithName, Registry } from 'prom-client';

/** One label set of a PlainHistogram. */
export class HistogramSeries {
  /** Observations per bucket (not cumulative); the last slot holds those above every bound. */
  readonly #buckets: number[];
  #sum = 0;
  #count = 0;

  constructor(
    readonly labels: Readonly<Record<string, string>>,
    readonly bounds: readonly number[],
  ) {
    this.#buckets = new Array<number>(bounds.length + 1).fill(0);
  }

  /** Back to no observations, the series itself kept (callers hold it). */
  zero(): void {
    this.#buckets.fill(0);
    this.#sum = 0;
    this.#count = 0;
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    // The first bound at or above the value: Prometheus's `le` includes the bound.
    while (i < bounds.length && value > bounds[i]!) i += 1;
    this.#buckets[i]! += 1;
    this.#sum += value;
    this.#count += 1;
  }

  /** This series in the form prom-client's own histograms report it (`le` first, as they write it). */
  values(name: string): Array<MetricValueWithName<string>> {
    const values: Array<MetricValueWithName<string>> = [];
    let atOrBelow = 0;
    this.bounds.forEach((le, i) => {
      atOrBelow += this.#buckets[i]!;
      values.push({ metricName: `${name}_bucket`, labels: { le, ...this.labels }, value: atOrBelow });
    });
    values.push({ metricName: `${name}_bucket`, labels: { le: '+Inf', ...this.labels }, value: this.#count });
    values.push({ metricName: `${name}_sum`, labels: { ...this.labels }, value: this.#sum });
    values.push({ metricName: `${name}_count`, labels: { ...this.labels }, value: this.#count });
    return values;
  }
}

/**
 * A Prometheus histogram kept in plain numbers, for the observations made per request or per event.
 * prom-client's Histogram finds the series of every observation by building a key from its label
 * object: about half a microsecond, a few percent of a single-event ingest and of the worker's time
 * per stored event. Here the caller resolves a series once (`series`) and keeps it; an observation is
 * then a bucket search and three additions.
 *
 * The registry reads it as it reads prom-client's own (get() answers in their form, with the same
 * aggregator), so a scrape, promtool and the merge of several threads' registries see no difference.
 * Idempotent per registry like createServiceMetrics: `register` returns the one already there.
 */
export class PlainHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #series = new Map<string, HistogramSeries>();

  private constructor(
    readonly name: string,
    readonly help: string,
    readonly bounds: readonly number[],
  ) {}

  static register(registry: Registry, name: string, help: string, bounds: readonly number[]): PlainHistogram {
    const existing = registry.getSingleMetric(name) as unknown;
    if (existing instanceof PlainHistogram) return existing;
    const histogram = new PlainHistogram(name, help, bounds);
    // prom-client's registry takes any object that answers get() as its metrics do; its types list
    // only its own classes.
    registry.registerMetric(histogram as unknown as Metric);
    return histogram;
  }

  /** The series of these label values, created at its first use. Callers keep it: a lookup joins the values. */
  series(labels: Readonly<Record<string, string>> = {}): HistogramSeries {
    const key = Object.values(labels).join('\u0000');
    let series = this.#series.get(key);
    if (series === undefined) this.#series.set(key, (series = new HistogramSeries(labels, this.bounds)));
    return series;
  }

  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Array<MetricValueWithName<string>> }> {
    const values = [...this.#series.values()].flatMap((series) => series.values(this.name));
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  /** What the registry's resetMetrics does: every series back to zero (not removed: callers hold them). */
  reset(): void {
    for (const series of this.#series.values()) series.zero();
  }
}
