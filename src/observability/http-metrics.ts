import type { RequestHandler, Response } from 'express';
import type { Registry } from 'prom-client';
import { createServiceMetrics, type EventRejectionReason, type ServiceMetrics } from './service-metrics.js';

/** A path the edge serves, in OpenAPI form (`/v1/apps/{appId}`), as route declarations give it. */
export interface RouteTemplate {
  readonly method: string;
  readonly path: string;
  /** Events arrive through this route: its requests count in eas_events_accepted/rejected_total. */
  readonly ingest?: boolean;
}

/** What `route` says for a request no template matched (the 404 of an unknown path). */
export const UNMATCHED_ROUTE = 'unmatched';

/** Methods get their own label value; anything else is `other`, so a client cannot invent series. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

const REJECTION_KEY = 'eventsRejectionReason';

/**
 * Tells the metrics why this request's events were rejected, where the status alone cannot (a 400
 * is `validation` unless the route knows the events broke the app's schema).
 */
export function markEventsRejected(res: Response, reason: EventRejectionReason): void {
  (res.locals as Record<string, unknown>)[REJECTION_KEY] = reason;
}

/**
 * Records every answered request: its count by method, route template and status, and its duration
 * from arrival (this middleware comes first) to the response's end. On ingest routes it also counts
 * the request's events as accepted (202) or rejected with a reason.
 *
 * The route is found by matching the path against the templates here rather than read from Express
 * after routing: requests that end before reaching their route (a 413 from the body parser, a 401, a
 * 429 from the rate limiter) still carry their route, and only a path outside every template is
 * `unmatched`.
 */
export function httpMetrics(registry: Registry, routes: readonly RouteTemplate[]): RequestHandler {
  const metrics = createServiceMetrics(registry);
  const matchRoute = routeMatcher(routes);
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const method = METHODS.has(req.method) ? req.method : 'other';
      const route = matchRoute(req.method, req.path);
      metrics.httpRequests.inc({ method, route: route?.path ?? UNMATCHED_ROUTE, status: String(res.statusCode) });
      metrics.httpRequestDuration.observe({ method, route: route?.path ?? UNMATCHED_ROUTE }, seconds);
      if (route?.ingest) countEvents(metrics, res, req.body);
    });
    next();
  };
}

function countEvents(metrics: ServiceMetrics, res: Response, body: unknown): void {
  const status = res.statusCode;
  // An array body holds its events; anything else (one event, or a body never parsed) counts as one.
  const events = Array.isArray(body) ? Math.max(1, body.length) : 1;
  if (status === 202) metrics.eventsAccepted.inc(events);
  else if (status >= 400) {
    const marked = (res.locals as Record<string, unknown>)[REJECTION_KEY] as EventRejectionReason | undefined;
    metrics.eventsRejected.inc({ reason: marked ?? rejectionReasonOf(status) }, events);
  }
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

/**
 * Template → matcher, as Express matches them: `{name}` is one path segment, a trailing slash is
 * allowed, case is ignored; HEAD is served by a GET route.
 */
function routeMatcher(routes: readonly RouteTemplate[]): (method: string, path: string) => RouteTemplate | undefined {
  const compiled = routes.map((route) => ({
    route,
    method: route.method.toUpperCase(),
    pattern: new RegExp(`^${route.path.split(/\{[A-Za-z0-9_]+\}/).map(escapeRegExp).join('[^/]+')}/?$`, 'i'),
  }));
  return (method, path) => {
    const wanted = method === 'HEAD' ? ['HEAD', 'GET'] : [method];
    return compiled.find((c) => wanted.includes(c.method) && c.pattern.test(path))?.route;
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
