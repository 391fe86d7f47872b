import autocannon from 'autocannon';
import { eventsPerRequest, requestBody, type RequestShape } from './events.js';

/**
 * One fixed-duration autocannon run against POST /v1/ingest. Closed loop: each connection sends its
 * next request when the previous one is answered, so `connections` is the number of requests in
 * flight, and a slower service shows up as fewer requests per second at a higher latency rather
 * than as a queue that grows in the load generator. With `requestsPerSecond`, the connections
 * together send at most that many requests per second (autocannon's overallRate): a steady
 * background load that leaves the machine room, for measurements taken under it (bench/alerts.ts).
 */

export interface LoadOptions {
  readonly url: string;
  readonly apiKey: string;
  readonly shape: RequestShape;
  readonly connections: number;
  readonly durationSeconds: number;
  /** At most this many requests per second over all connections; unlimited when absent. */
  readonly requestsPerSecond?: number;
  /**
   * Exactly this many requests, each answered before the run ends (autocannon's amount; the run then
   * lasts as long as they take, not `durationSeconds`). A duration-bound run stops with requests in
   * flight that the service may still accept without the load generator counting them: this option is
   * for when every accepted event must be accounted for.
   */
  readonly requests?: number;
  /** The request body, `shape`'s events (`eventsPerRequest(shape)` of them); requestBody(shape) when absent. */
  readonly body?: string;
}

export interface LoadOutcome {
  readonly durationSeconds: number;
  readonly accepted: number;
  readonly eventsPerSecond: number;
  readonly requestsPerSecond: number;
  readonly latency: { readonly p50: number; readonly p99: number; readonly max: number };
  readonly non202: Record<string, number>;
  readonly non202Total: number;
}

/**
 * A request that takes longer than this is counted as a timeout. Well above any latency the service
 * should show, but short enough that a stalled service ends a step instead of hanging it.
 */
const REQUEST_TIMEOUT_SECONDS = 10;

export async function runLoad(options: LoadOptions): Promise<LoadOutcome> {
  const result = await autocannon({
    url: `${options.url}/v1/ingest`,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': options.apiKey },
    body: options.body ?? requestBody(options.shape),
    connections: options.connections,
    duration: options.durationSeconds,
    timeout: REQUEST_TIMEOUT_SECONDS,
    ...(options.requestsPerSecond === undefined ? {} : { overallRate: options.requestsPerSecond }),
    ...(options.requests === undefined ? {} : { amount: options.requests }),
  });
  const accepted = result.statusCodeStats['202']?.count ?? 0;
  const non202: Record<string, number> = {};
  for (const [status, { count }] of Object.entries(result.statusCodeStats)) {
    if (status !== '202' && count > 0) non202[status] = count;
  }
  // Socket errors include the timeouts (autocannon counts a timeout as an error too).
  const socketErrors = result.errors - result.timeouts;
  if (socketErrors > 0) non202.errors = socketErrors;
  if (result.timeouts > 0) non202.timeouts = result.timeouts;
  // autocannon's `duration` is the measured run time in seconds, slightly over the one asked for.
  const seconds = result.duration > 0 ? result.duration : options.durationSeconds;
  return {
    durationSeconds: seconds,
    accepted,
    eventsPerSecond: (accepted * eventsPerRequest(options.shape)) / seconds,
    requestsPerSecond: accepted / seconds,
    latency: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
    non202,
    non202Total: Object.values(non202).reduce((a, b) => a + b, 0),
  };
}
