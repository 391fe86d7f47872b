import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequestListener } from './http/app.js';
import { answerClientError } from './http/client-error.js';
import { UnansweredResponses } from './http/unanswered-responses.js';
import { EdgeResponse } from './http/response-head.js';
import { AccountRateLimit } from './http/rate-limit.js';
import { TurnBudget } from './lib/turn-budget.js';
import type { Container } from './container.js';
import type { MetricsExposition } from './observability/metrics.js';
import { v1Routes } from './http/routes/v1.js';

/**
 * How much of an event-loop turn the ingest routes' work on large bodies may take before the rest
 * waits for the next turn. Between two turns the server accepts one new connection (libuv accepts one
 * per turn), so a saturated process with long turns leaves new connections waiting seconds.
 * - Embedded: a batch of a hundred events takes a few milliseconds, so one starts per turn; the turn
 *   also carries the in-process worker's storage.
 * - Distributed: a few batches per turn. There the requests of one turn share a Kafka produce call:
 *   with 1 ms each request made its own and the api lost a third of its batch throughput; with 8 ms it
 *   kept it, and in short runs taken turn about every batch step's request p99 stayed under 1 s,
 *   where two of six did not without a budget.
 * - While connections are being accepted, a turn holds at most one batch in either mode: a burst of new
 *   connections (a step of a load test, clients reconnecting after a deploy) is then taken at the pace
 *   of short turns, and the api's turns grow back to 8 ms once it has taken them all (TurnBudget).
 * bench/NOTES.md ("New connections to a saturated process", "A turn budget for the distributed api too",
 * "Short turns while connections arrive") has the measurements.
 */
const INGEST_TURN_BUDGET_MS = {
  embedded: { budget: 1, whileAccepting: 1 },
  distributed: { budget: 8, whileAccepting: 1 },
} as const;

export interface RunningServer {
  readonly url: string;
  /**
   * Stops accepting, lets in-flight requests finish (bounded by `graceMs`), then stops the container
   * (which answers the requests still waiting on a produce call, see EventSink.close). Safe to call twice.
   */
  shutdown(graceMs: number): Promise<void>;
}

/**
 * Starts the HTTP edge of a built container: used by main.ts and by tests that need a real socket.
 * `exposition` is what `/metrics` serves when it is more than the container's registry.
 */
export async function startServer(container: Container, options: { exposition?: MetricsExposition } = {}): Promise<RunningServer> {
  const servesApi = container.config.role !== 'worker';
  const budget = INGEST_TURN_BUDGET_MS[container.config.distributed ? 'distributed' : 'embedded'];
  const turns = new TurnBudget(budget.budget, { whileAcceptingMs: budget.whileAccepting });
  const listener = createRequestListener({
    logger: container.logger,
    metrics: container.metrics,
    ...(options.exposition ? { exposition: options.exposition } : {}),
    readiness: container.services.readiness,
    corsAllowedOrigins: container.config.http.corsAllowedOrigins,
    ...(servesApi
      ? {
          api: {
            routes: v1Routes({ services: container.services, logger: container.logger }),
            authenticator: container.services.authenticator,
            rateLimit: new AccountRateLimit({ limiter: container.rateLimiter, metrics: container.metrics, logger: container.logger.child({ component: 'rate-limit' }) }),
            turns,
          },
        }
      : {}),
  });
  const { host, port } = container.config.http;
  // Responses not yet sent; once draining, each of them (and any request still arriving on a kept-alive
  // connection) closes its connection, so that the server is left with no idle connection to wait for.
  const unanswered = new UnansweredResponses();
  let draining = false;
  const server = createServer({ ServerResponse: EdgeResponse }, (req, res) => {
    if (draining) res.setHeader('Connection', 'close');
    unanswered.add(res);
    listener(req, res);
  });
  // An idle kept-alive connection is closed after this. Node's 5 s is shorter than what clients and load
  // balancers keep one for (60 s behind an AWS ALB): a client that reused a connection just as the
  // server closed it lost its request before the service saw it. Longer than theirs, the client
  // closes first. Shutdown closes idle connections at once whatever this says.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.on('clientError', answerClientError);
  if (servesApi) server.on('connection', () => turns.connectionAccepted());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${shownHost === '0.0.0.0' ? '127.0.0.1' : shownHost}:${address.port}`;

  let stopping: Promise<void> | undefined;
  const shutdown = async (graceMs: number): Promise<void> => {
    draining = true;
    for (const res of unanswered) if (!res.headersSent) res.setHeader('Connection', 'close');
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Keep-alive sockets with no request in flight would hold close() open until they time out.
    server.closeIdleConnections();
    // A request still unanswered after the grace period loses its connection; its work goes on, and
    // what it published stays published (the client, seeing no answer, retries: at-least-once).
    const deadline = setTimeout(() => {
      container.logger.warn({ graceMs, unanswered: unanswered.size }, 'connections still open after the grace period; closing them');
      server.closeAllConnections();
    }, graceMs);
    await closed;
    clearTimeout(deadline);
    await container.stop();
  };
  return {
    url,
    shutdown: (graceMs) => (stopping ??= shutdown(graceMs)),
  };
}
