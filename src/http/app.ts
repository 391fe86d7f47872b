import express, { type Express } from 'express';
import type { Registry } from 'prom-client';
import type { RequestListener } from 'node:http';
import { edgeMetrics, httpMetrics, type EdgeMetrics, type RouteTemplate } from '../observability/http-metrics.js';
import type { Logger } from '../observability/logger.js';
import type { Authenticator } from '../services/authenticator.js';
import type { DependencyCheck } from '../services/readiness.js';
import { dashboardRouter } from './dashboard.js';
import { errorHandler, notFoundHandler } from './error-response.js';
import { ingestEndpoint, INGEST_PATH } from './ingest-endpoint.js';
import { jsonBodyParser } from './json-body.js';
import { mountRoutes } from './mount-routes.js';
import type { AccountRateLimit } from './rate-limit.js';
import type { AnyRoute } from './route.js';
import { systemRouter } from './routes/system.route.js';
import { requestLog } from './request-log.js';

export interface HttpAppDeps {
  readonly logger: Logger;
  readonly metrics: Registry;
  readonly checks: readonly DependencyCheck[];
  /** The `/v1` API; absent in a worker process, which serves only probes and metrics. */
  readonly api?: { readonly routes: readonly AnyRoute[]; readonly authenticator: Authenticator; readonly rateLimit?: AccountRateLimit };
}

/** What systemRouter serves, as route templates for the HTTP metrics. */
const SYSTEM_ROUTES = [
  { method: 'get', path: '/healthz' },
  { method: 'get', path: '/readyz' },
  { method: 'get', path: '/metrics' },
];

/** Every route template the edge counts requests under. */
function routeTemplates(deps: HttpAppDeps): RouteTemplate[] {
  return [...SYSTEM_ROUTES, ...(deps.api?.routes ?? [])];
}

/**
 * The whole HTTP edge as a node request listener: `POST /v1/ingest` through its own endpoint
 * (ingest-endpoint.ts: the one route whose request rate matters, served without Express), every other
 * request through the Express app. Both share the metrics, the request log and the route code.
 */
export function createRequestListener(deps: HttpAppDeps): RequestListener {
  const metrics = edgeMetrics(deps.metrics, routeTemplates(deps));
  const app = createHttpApp(deps, metrics);
  const route = deps.api?.routes.find((r) => r.method === 'post' && r.path === INGEST_PATH);
  if (!deps.api || !route) return app;
  const endpoint = ingestEndpoint({ route, routeDeps: deps.api, logger: deps.logger, metrics });
  return (req, res) => {
    if (endpoint.handles(req)) endpoint.handle(req, res);
    else app(req, res);
  };
}

/** Builds the Express app without listening, so tests can drive it over a real socket they own. */
export function createHttpApp(deps: HttpAppDeps, metrics: EdgeMetrics = edgeMetrics(deps.metrics, routeTemplates(deps))): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Behind a load balancer the client address comes from X-Forwarded-For (rate limits, logs).
  app.set('trust proxy', true);

  // First: the request id and the one log line per request cover everything below, probes included.
  app.use(requestLog(deps.logger));
  // Before every route, so that probes, 404s and requests refused before their route are counted too.
  app.use(httpMetrics(metrics));
  app.use(systemRouter({ checks: deps.checks, metrics: deps.metrics }));
  app.use(jsonBodyParser());
  if (deps.api) {
    app.use(mountRoutes(deps.api.routes, deps.api));
    // The dashboard talks to this API only, so it is served where the API is; after it, so that an
    // API path never reaches the static files.
    app.use(dashboardRouter());
  }

  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
