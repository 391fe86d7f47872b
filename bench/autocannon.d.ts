/**
 * The part of autocannon 8's API the benchmark uses. The package ships no types and @types/autocannon
 * is not a dependency; these mirror lib/aggregateResult.js and lib/histUtil.js of autocannon 8.0.
 */
declare module 'autocannon' {
  interface Options {
    url: string;
    method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
    headers?: Record<string, string>;
    body?: string | Buffer;
    connections?: number;
    /** Seconds. */
    duration?: number;
    pipelining?: number;
    /** Seconds before a request counts as timed out. */
    timeout?: number;
    /** Requests per second over all connections (no limit when absent). */
    overallRate?: number;
    /** Requests to make in all; takes precedence over `duration`. */
    amount?: number;
  }

  /** Milliseconds for latency; percentile keys as autocannon names them (p97_5 is the 97.5th). */
  interface Histogram {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p99: number;
    p99_9: number;
  }

  interface Result {
    duration: number;
    start: Date;
    finish: Date;
    errors: number;
    timeouts: number;
    non2xx: number;
    resets: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
    latency: Histogram & { totalCount: number };
    requests: Histogram & { sent: number };
    throughput: Histogram;
  }

  interface Instance extends PromiseLike<Result> {
    stop(): void;
  }

  function autocannon(options: Options): Instance;
  export default autocannon;
  export type { Options, Result, Histogram, Instance };
}
