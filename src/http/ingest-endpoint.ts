import type { IncomingMessage, ServerResponse } from 'node:http';
import type { EdgeMetrics, ExchangeNotes } from '../observability/http-metrics.js';
import { runWithRequestId, type Logger } from '../observability/logger.js';
import { writeError } from './error-response.js';
import { readJsonBody } from './json-body.js';
import { serveRoute, writeResult, type RouteDeps } from './mount-routes.js';
import { requestLine, type RequestRoute } from './request-log.js';
import type { AnyRoute } from './route.js';

/** The endpoint's path as clients write it; other spellings (a trailing slash, capitals) still reach it through Express. */
export const INGEST_PATH = '/v1/ingest';

export interface IngestEndpoint {
  /** True for `POST /v1/ingest` (with or without a query string). */
  handles(req: IncomingMessage): boolean;
  handle(req: IncomingMessage, res: ServerResponse): void;
}

/**
 * `POST /v1/ingest` served without Express. Telemetry ingest is the one endpoint whose request rate
 * matters, and on it Express 5's own per-request work (its request and response objects, the
 * middleware and router walk, `res.json`) cost about as much CPU as everything the service itself
 * does for a single event (bench/NOTES.md). Everything else is the same code the Express routes use:
 * the request log line and id, the HTTP metrics, the JSON body reader, serveRoute (authentication,
 * rate limit, validation, the route's handler) and the error body, so the endpoint answers exactly
 * as it would through Express.
 */
export function ingestEndpoint(deps: { route: AnyRoute; routeDeps: RouteDeps; logger: Logger; metrics: EdgeMetrics }): IngestEndpoint {
  const { route } = deps;
  const template = deps.metrics.routeOf('POST', INGEST_PATH);
  const loggedRoute: RequestRoute = { template: route.path, ingest: true };
  const routeOfLine = (): RequestRoute => loggedRoute;

  const failed = (res: ServerResponse, err: unknown): void => {
    if (res.headersSent) deps.logger.error({ err }, 'ingest request failed after its answer was sent');
    else writeError(res, err, INGEST_PATH, deps.logger);
  };
  // One promise for the answer, where an async function and a catch would make three: it is on every
  // ingest request (lib/awaitable.ts).
  const serve = (req: IncomingMessage, res: ServerResponse, notes: ExchangeNotes): void => {
    serveRoute(route, deps.routeDeps, { headers: req.headers, params: {}, query: {}, readBody: (turns) => readJsonBody(req, { turns }), notes }, res).then(
      (result) => {
        try {
          writeResult(res, result);
        } catch (err) {
          failed(res, err);
        }
      },
      (err: unknown) => failed(res, err),
    );
  };

  return {
    handles: (req) => req.method === 'POST' && (req.url === INGEST_PATH || req.url?.startsWith(`${INGEST_PATH}?`) === true),
    handle(req, res) {
      const { requestId, written } = requestLine(deps.logger, req, res, routeOfLine);
      const notes: ExchangeNotes = {};
      const measured = deps.metrics.begin(req, res, template, () => notes);
      // One listener for both: each listener added to a response is work on every request.
      res.on('close', () => {
        measured();
        written();
      });
      runWithRequestId(requestId, () => serve(req, res, notes));
    },
  };
}
