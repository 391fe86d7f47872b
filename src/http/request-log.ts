import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';
import type { ExchangeNotes } from '../observability/http-metrics.js';
import { runWithRequestId, type Logger } from '../observability/logger.js';
import { responseHeader, setResponseHeader } from './response-head.js';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- Express types res.locals through this namespace
  namespace Express {
    interface Locals {
      /** This request's id, also in the `X-Request-Id` response header. */
      requestId: string;
      /** What the route tells the HTTP metrics about its request (http-metrics.ts). */
      notes?: ExchangeNotes;
    }
  }
}

export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * An id the client (or a proxy in front) chose is kept, so its logs and ours can be joined, but
 * only if it is a short plain token: it goes into every log line and a response header, where a long
 * or odd value would be a way to forge or flood them.
 */
const ACCEPTED_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/**
 * Probes, polled every few seconds by the orchestrator and Prometheus, are logged at debug: at info
 * they would drown the requests an operator reads the log for. Their failures show in /readyz's own
 * body and in the metrics.
 */
const PROBE_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics']);

function requestIdOf(req: IncomingMessage): string {
  const presented = req.headers['x-request-id'];
  return typeof presented === 'string' && ACCEPTED_REQUEST_ID.test(presented) ? presented : randomUUID();
}

/**
 * A 502 is a receiver's failure reported by this service (a destination test whose webhook is down;
 * error-response.ts gives it to `delivery_failed` only): the customer's problem, not an error here.
 */
const BAD_GATEWAY = 502;

/**
 * The level of a request's line: error for a 5xx other than a 502; debug for routine traffic, which
 * is the probes and events accepted on the ingest routes; info for everything else.
 *
 * Accepted events at debug: telemetry arrives at thousands of requests a second, each counted by the
 * HTTP and event metrics. At info their lines were most of the log (gigabytes a day for the operator
 * to ship and store) and hid the lines an operator reads it for: refused ingest requests, the
 * management API, failures. Writing one also cost about a tenth of the api's CPU per single-event
 * request (bench/NOTES.md). `LOG_LEVEL=debug` shows them.
 */
function levelOf(status: number, path: string, routine: boolean): 'error' | 'info' | 'debug' {
  if (status >= 500 && status !== BAD_GATEWAY) return 'error';
  if (PROBE_PATHS.has(path) || (routine && status < 300)) return 'debug';
  return 'info';
}

/** What requestLine is told about the request's route once the response has ended. */
export interface RequestRoute {
  /** Its template (`/v1/apps/:appId`); undefined when no route matched. */
  readonly template: string | undefined;
  /** An ingest route: its successful requests are routine traffic (levelOf). */
  readonly ingest: boolean;
}

/**
 * Gives a request its id (echoed in `X-Request-Id`) and returns, with it, `written`: the function
 * writing the request's one line, at the level levelOf gives, for the caller to call once the
 * response has closed (beginRequestLog registers it itself). The line names the path without its
 * query string (which may hold anything a client put there, a misplaced key included) and no header
 * at all. `route` is asked when the line is written, once the route is known; the line is not even
 * built when its level is not logged. Plain node objects, so that the ingest endpoint, which bypasses
 * Express, logs like every other route.
 *
 * On `close`, not `finish`: a response closes whether it was sent or its connection was lost first,
 * so one listener sees both (an aborted one is marked so), and the ingest endpoint can serve this and
 * the HTTP metrics from a single listener of its own (bench/NOTES.md).
 */
export function requestLine(logger: Logger, req: IncomingMessage, res: ServerResponse, route: () => RequestRoute): { requestId: string; written: () => void } {
  const started = process.hrtime.bigint();
  const requestId = requestIdOf(req);
  setResponseHeader(res, REQUEST_ID_HEADER, requestId);
  const path = (req.url ?? '/').split('?', 1)[0]!;

  const written = (): void => {
    const { template, ingest } = route();
    const level = levelOf(res.statusCode, path, ingest);
    if (!logger.isLevelEnabled(level)) return;
    // The id is named here: `close` comes outside the request's scope (runWithRequestId).
    const line = {
      requestId,
      method: req.method,
      route: template,
      path,
      status: res.statusCode,
      durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e4) / 100,
      contentLength: contentLength(res),
      ...(res.writableFinished ? {} : { aborted: true }),
    };
    logger[level](line, level === 'error' ? 'request failed' : 'request completed');
  };
  return { requestId, written };
}

/** requestLine with its line written when the response closes. */
export function beginRequestLog(logger: Logger, req: IncomingMessage, res: ServerResponse, route: () => RequestRoute): { requestId: string } {
  const { requestId, written } = requestLine(logger, req, res, route);
  res.on('close', written);
  return { requestId };
}

/**
 * beginRequestLog for Express, with every log line written while the request is handled carrying
 * its id, whichever logger writes it. Mounted first, so that it sees every request, probes and 404s
 * included. `ingestRoutes`: the templates of the ingest routes, as Express names them.
 */
export function requestLog(logger: Logger, ingestRoutes: ReadonlySet<string>): RequestHandler {
  return (req, res, next) => {
    const { requestId } = beginRequestLog(logger, req, res, () => {
      const template = routeTemplate(req);
      return { template, ingest: template !== undefined && ingestRoutes.has(template) };
    });
    res.locals.requestId = requestId;
    runWithRequestId(requestId, next);
  };
}

/**
 * Express keeps the matched route on the request; the template (`/v1/apps/:appId`) groups requests
 * the way an operator thinks of them. Absent when nothing matched (a 404, or a probe router's own path).
 */
function routeTemplate(req: Request): string | undefined {
  const route: unknown = req.route;
  if (typeof route !== 'object' || route === null || !('path' in route) || typeof route.path !== 'string') return undefined;
  return `${req.baseUrl}${route.path}`;
}

function contentLength(res: ServerResponse): number | undefined {
  const header = responseHeader(res, 'content-length');
  const value = typeof header === 'string' ? Number(header) : header;
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}
