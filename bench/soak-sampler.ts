import { setTimeout as delay } from 'node:timers/promises';
import type { AlertReceiver } from './alert-receiver.js';
import type { CpuUsage } from './cpu.js';
import type { PacedInterval } from './soak-pacer.js';
import { LagReader, scrape, serviceMemory, stackMemory, total, type LagWatch, type StackServers } from './soak-readings.js';
import { serviceErrorsSince, type SoakCounters, type SoakSample } from './soak-results.js';
import type { Target } from './targets.js';

/**
 * One soak sample at a time: the readings of bench/soak-readings.ts put together, with the service's
 * counters turned into the figures the verdicts need, and a line in the log for whoever watches the run.
 */

type Metrics = Awaited<ReturnType<typeof scrape>>;

function counters(api: Metrics, worker: Metrics): SoakCounters {
  const both = (name: string, where?: (l: Readonly<Record<string, string>>) => boolean): number => total(api, name, where) + total(worker, name, where);
  const deliveries = (outcome: string): number => total(worker, 'eas_deliveries_total', (l) => l.outcome === outcome);
  return {
    eventsAccepted: total(api, 'eas_events_accepted_total'),
    eventsRejected: total(api, 'eas_events_rejected_total'),
    http5xx: both('eas_http_requests_total', (l) => l.status?.startsWith('5') ?? false),
    produceErrors: both('eas_kafka_produce_errors_total'),
    rateLimiterFailOpen: total(api, 'eas_rate_limiter_fail_open_total'),
    rowsInserted: total(worker, 'eas_clickhouse_insert_rows_total'),
    insertErrors: total(worker, 'eas_clickhouse_insert_errors_total'),
    deadLettered: total(worker, 'eas_events_dead_lettered_total'),
    rulesFired: firedOf(worker),
    deliveriesSucceeded: deliveries('succeeded'),
    deliveriesRetried: deliveries('retry'),
    deliveriesFailed: deliveries('failed'),
  };
}

/** Matches the worker counted for the first time (a redelivered event's match is `again`). */
const firedOf = (worker: Metrics): number => total(worker, 'eas_rule_triggers_total', (l) => l.outcome === 'fired');

export type LagWatches = Readonly<Record<'worker' | 'rules' | 'delivery', LagWatch>>;

export interface SamplerOptions {
  readonly target: Target;
  readonly servers: StackServers;
  readonly lag: LagReader;
  readonly watches: LagWatches;
  /** Events each request of the load carries. */
  readonly eventsPerRequest: number;
  readonly problems: string[];
  readonly log: (message: string) => void;
}

export interface SampleInput {
  readonly label: string;
  readonly atSeconds: number;
  readonly load: PacedInterval | null;
  readonly cpu: CpuUsage | null;
  /** The load's failures since it started. */
  readonly loadErrors: number;
}

export class SoakSampler {
  readonly #o: SamplerOptions;
  /** The counters just before the paced load: the service errors of every later sample count from here. */
  #baseline: SoakCounters | null = null;

  constructor(options: SamplerOptions) {
    this.#o = options;
  }

  setBaseline(counters: SoakCounters | null): void {
    this.#baseline = counters;
  }

  async take(input: SampleInput): Promise<SoakSample> {
    const { target, servers } = this.#o;
    const [api, worker, lags] = await Promise.all([this.#scrape('api'), this.#scrape('worker'), this.#lags()]);
    const now = api && worker ? counters(api, worker) : null;
    const { load } = input;
    const sample: SoakSample = {
      label: input.label,
      atSeconds: input.atSeconds,
      takenAt: new Date().toISOString(),
      services: { api: serviceMemory(target.pids.api!, api), worker: serviceMemory(target.pids.worker!, worker) },
      stack: stackMemory(servers),
      lag: lags,
      counters: now,
      loadErrors: input.loadErrors,
      serviceErrors: serviceErrorsSince(this.#baseline, now),
      load,
      eventsPerSecond: load ? (load.accepted * this.#o.eventsPerRequest) / load.seconds : null,
      cpu: input.cpu,
    };
    for (const role of ['api', 'worker'] as const) {
      if (sample.services[role].rssBytes === null) this.#o.problems.push(`the ${role} process (pid ${target.pids[role]}) was gone at the "${input.label}" sample`);
    }
    this.#o.log(describe(sample));
    return sample;
  }

  /**
   * Waits until no group has anything uncommitted and every alert the worker fired reached the
   * receiver; resolves with the seconds since `since` (performance.now()), or null once
   * `timeoutSeconds` have passed since then.
   */
  async drained(since: number, timeoutSeconds: number, receiver: AlertReceiver, ruleId: string): Promise<number | null> {
    while (performance.now() - since < timeoutSeconds * 1000) {
      const [lags, metrics] = await Promise.all([this.#lags(), scrape(this.#o.target.urls.worker!).catch(() => null)]);
      const fired = metrics ? firedOf(metrics) : Number.POSITIVE_INFINITY;
      if (Object.values(lags).every((lag) => lag === 0) && receiver.arrivals(ruleId).length >= fired) return (performance.now() - since) / 1000;
      await delay(1000);
    }
    return null;
  }

  /** Every watched group's lag, read at once. */
  async #lags(): Promise<SoakSample['lag']> {
    const { lag, watches } = this.#o;
    const [worker, rules, delivery] = await Promise.all([lag.lag(watches.worker), lag.lag(watches.rules), lag.lag(watches.delivery)]);
    return { worker, rules, delivery };
  }

  async #scrape(role: 'api' | 'worker'): Promise<Metrics | null> {
    try {
      return await scrape(this.#o.target.urls[role]!);
    } catch (err) {
      this.#o.problems.push(`${role} /metrics could not be read: ${err instanceof Error ? err.message : String(err)}`);
      return null;
    }
  }
}

function describe(s: SoakSample): string {
  const mb = (b: number | null): string => (b === null ? 'n/a' : String(Math.round(b / 1024 / 1024)));
  const rate = s.eventsPerSecond === null ? '' : `${Math.round(s.eventsPerSecond)} events/s, p99 ${s.load?.latencyMs?.p99 ?? 'n/a'} ms; `;
  return (
    `${s.label} (t=${Math.round(s.atSeconds)} s): ${rate}RSS api ${mb(s.services.api.rssBytes)} MB worker ${mb(s.services.worker.rssBytes)} MB; ` +
    `lag worker ${s.lag.worker ?? 'n/a'} rules ${s.lag.rules ?? 'n/a'} delivery ${s.lag.delivery ?? 'n/a'}; errors load ${s.loadErrors} service ${s.serviceErrors ?? 'n/a'}`
  );
}
