import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Registry } from 'prom-client';
import type { RouteTable, RouteTemplate } from '../lib/route-table.js';
import { createServiceMetrics, type EventRejectionReason, type ServiceMetrics } from './service-metrics.js';

/** What `route` says for a request no template matched (the 404 of an unknown path). */
export const UNMATCHED_ROUTE = 'unmatched';

/** Methods get their own label value; anything else is `other`, so a client cannot invent series. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/**
 * What a route tells the metrics about its request beyond the status: why its events were rejected,
 * where the status alone cannot say (a 400 is `validation` unless the route knows the events broke
 * the app's schema).
 */
export interface ExchangeNotes {
  eventsRejection?: EventRejectionReason;
  /** How many events the request carried, once its body was read (a request refused before that counts as one). */
  events?: number;
  /** A request answered with a partial success (OTLP): its events accepted and refused, whatever the status. */
  partial?: { readonly accepted: number; readonly rejected: number };
  /**
   * The `route` label of a request no template matches but a handler served all the same (the
   * dashboard's files and deep links, src/http/dashboard.ts): a fixed name, never the raw path,
   * so that clients cannot create series at will.
   */
  routeLabel?: string;
}

/** The route's notes, asked once the response has finished. */
export type ExchangeOutcome = () => ExchangeNotes | undefined;

export interface EdgeMetrics {
  /** The route template a request is counted under; undefined when no template matches. */
  routeOf(method: string, path: string): RouteTemplate | undefined;
  /**
   * Starts timing the request; returns what to call once its response has closed, which records it if
   * it was sent: its count and duration by route, and its events on ingest routes. A response whose
   * connection was lost before it was sent is not counted.
   */
  begin(req: IncomingMessage, res: ServerResponse, route: RouteTemplate | undefined, outcome: ExchangeOutcome): () => void;
}

/**
 * Records every answered request: its count by method, route template and status, and its duration
 * from arrival (begin is called first thing) to the response's end. On ingest routes it also counts
 * the request's events as accepted (202) or rejected with a reason.
 *
 * The route is found by matching the path against the templates here rather than read from Express
 * after routing: requests that end before reaching their route (a 413 from the body reader, a 401, a
 * 429 from the rate limiter) still carry their route, and only a path outside every template is
 * `unmatched`. Plain node objects, so that the ingest endpoint, which bypasses Express, is counted
 * like every other route.
 */
export function edgeMetrics(registry: Registry, routes: RouteTable): EdgeMetrics {
  const metrics = createServiceMetrics(registry);
  return {
    routeOf: (method, path) => routes.find(method, path),
    begin(req, res, route, outcome) {
      const started = process.hrtime.bigint();
      return () => {
        if (!res.writableFinished) return;
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const method = req.method !== undefined && METHODS.has(req.method) ? req.method : 'other';
        const label = route?.path ?? outcome()?.routeLabel ?? UNMATCHED_ROUTE;
        metrics.httpRequests.record(method, label, res.statusCode, seconds);
        if (route?.ingest) countEvents(metrics, res.statusCode, outcome());
      };
    },
  };
}

/** edgeMetrics as the first Express middleware; routes leave their notes in `res.locals.notes`. */
export function httpMetrics(edge: EdgeMetrics): RequestHandler {
  return (req, res, next) => {
    res.on('close', edge.begin(req, res, edge.routeOf(req.method, req.path), () => res.locals.notes));
    next();
  };
}

function countEvents(metrics: ServiceMetrics, status: number, notes: ExchangeNotes | undefined): void {
  if (notes?.partial && status < 300) {
    metrics.eventsAccepted.inc(notes.partial.accepted);
    if (notes.partial.rejected > 0) metrics.eventsRejected.inc({ reason: 'validation' }, notes.partial.rejected);
    return;
  }
  const events = notes?.events ?? 1;
  if (status === 202) metrics.eventsAccepted.inc(events);
  else if (status >= 400) metrics.eventsRejected.inc({ reason: notes?.eventsRejection ?? rejectionReasonOf(status) }, events);
}

/** The reason a status stands for (error-response.ts maps error codes to these statuses). */
function rejectionReasonOf(status: number): EventRejectionReason {
  switch (status) {
    case 401:
    case 403:
      return 'unauthenticated';
    case 409:
      return 'conflict';
    case 413:
      return 'payload_too_large';
    case 429:
      return 'rate_limited';
    default:
      // 400, and the other client errors (a 404 for an app of another account, a 415): the request
      // itself was wrong. Server-side failures (503 and any 5xx) mean "not accepted now, retry".
      return status >= 500 ? 'unavailable' : 'validation';
  }
}
