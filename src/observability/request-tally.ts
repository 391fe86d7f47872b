import { Counter, type Registry } from 'prom-client';
import { PlainHistogram, type HistogramSeries } from './plain-histogram.js';

/** Milliseconds for most calls, up to the 5 s produce bound of an ingest during a Kafka outage. */
const HTTP_BUCKETS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** One method of one route: its answers by status not yet handed to the counter, and its durations. */
interface RouteSeries {
  readonly labels: { readonly method: string; readonly route: string };
  readonly pending: Map<number, number>;
  readonly duration: HistogramSeries;
}

/**
 * The count and the duration of every answered request (`eas_http_requests_total`,
 * `eas_http_request_duration_seconds`), recorded at the cost of two map lookups by strings that are
 * always the same few (route templates, methods), a status lookup and a bucket search. prom-client
 * would build and look up a key from a label object for each of the two series.
 *
 * The counts go to a prom-client counter when the registry is read (a scrape, or another thread's
 * merge), the durations to a PlainHistogram as they come. Idempotent per registry, like
 * createServiceMetrics.
 */
export class RequestTally {
  readonly #routes = new Map<string, Map<string, RouteSeries>>();
  readonly #durations: PlainHistogram;

  private constructor(durations: PlainHistogram) {
    this.#durations = durations;
  }

  static register(registry: Registry): RequestTally {
    const known = tallies.get(registry);
    if (known) return known;
    // The counter first: the exposition lists the metrics in the order they were registered.
    new Counter({
      name: 'eas_http_requests_total',
      help: 'HTTP requests answered, by route template and status code',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
      collect() {
        for (const methods of tally.#routes.values()) {
          for (const { labels, pending } of methods.values()) {
            for (const [status, answered] of pending) this.inc({ ...labels, status: String(status) }, answered);
            pending.clear();
          }
        }
      },
    });
    const tally = new RequestTally(PlainHistogram.register(registry, 'eas_http_request_duration_seconds', "Time from a request's arrival to the end of its response", HTTP_BUCKETS));
    tallies.set(registry, tally);
    return tally;
  }

  /** One answered request. `method` and `route` must come from small fixed sets: each pair is a series. */
  record(method: string, route: string, status: number, seconds: number): void {
    let methods = this.#routes.get(route);
    if (methods === undefined) this.#routes.set(route, (methods = new Map<string, RouteSeries>()));
    let series = methods.get(method);
    if (series === undefined) {
      const labels = { method, route };
      methods.set(method, (series = { labels, pending: new Map(), duration: this.#durations.series(labels) }));
    }
    series.pending.set(status, (series.pending.get(status) ?? 0) + 1);
    series.duration.observe(seconds);
  }
}

const tallies = new WeakMap<Registry, RequestTally>();
