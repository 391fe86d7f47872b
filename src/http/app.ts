import express, { type Express } from 'express';
import type { Registry } from 'prom-client';
import type { RequestListener } from 'node:http';
import { edgeMetrics, httpMetrics, type EdgeMetrics } from '../observability/http-metrics.js';
import type { Logger } from '../observability/logger.js';
import type { MetricsExposition } from '../observability/metrics.js';
import type { ReadinessService } from '../services/readiness.service.js';
import { dashboardRouter } from './dashboard.js';
import { routeTable, type RouteTable, type RouteTemplate } from '../lib/route-table.js';
import { errorHandler, methodNotAllowedHandler, notFoundHandler } from './error-response.js';
import { ingestCors } from './cors.js';
import { ingestEndpoint, INGEST_PATH } from './ingest-endpoint.js';
import { expressPath, mountRoutes, type RouteDeps } from './mount-routes.js';
import type { AnyRoute } from './route.js';
import { systemRouter } from './routes/system.route.js';
import { requestLog } from './request-log.js';
import { holdHeaders, setResponseHeader } from './response-head.js';

export interface HttpAppDeps {
  readonly logger: Logger;
  /** Where the edge records its metrics. */
  readonly metrics: Registry;
  /** What `/metrics` serves; `metrics` when absent. */
  readonly exposition?: MetricsExposition;
  /** What `/readyz` asks: every dependency of this process's role. */
  readonly readiness: Pick<ReadinessService, 'check'>;
  /** The `/v1` API; absent in a worker process, which serves only probes and metrics. */
  readonly api?: RouteDeps & { readonly routes: readonly AnyRoute[] };
  /** Origins whose pages may call the ingest endpoints (cors.ts); `*` for any. None by default. */
  readonly corsAllowedOrigins?: readonly string[];
}

/** What systemRouter serves, as route templates for the HTTP metrics. */
const SYSTEM_ROUTES = [
  { method: 'get', path: '/healthz' },
  { method: 'get', path: '/readyz' },
  { method: 'get', path: '/metrics' },
];

/** Every route the edge serves, for the metrics' route label and a 405's `Allow`. */
function routesOf(deps: HttpAppDeps): RouteTable {
  const templates: RouteTemplate[] = [...SYSTEM_ROUTES, ...(deps.api?.routes ?? [])];
  return routeTable(templates);
}

/**
 * The whole HTTP edge as a node request listener: `POST /v1/ingest` through its own endpoint
 * (ingest-endpoint.ts: the one route whose request rate matters, served without Express), every other
 * request through the Express app. Both share the metrics, the request log and the route code.
 * Every response says `nosniff`: browsers must take a JSON error body for JSON, whatever it holds.
 */
export function createRequestListener(deps: HttpAppDeps): RequestListener {
  const routes = routesOf(deps);
  const metrics = edgeMetrics(deps.metrics, routes);
  const app = createHttpApp(deps, routes, metrics);
  const route = deps.api?.routes.find((r) => r.method === 'post' && r.path === INGEST_PATH);
  const endpoint = deps.api && route ? ingestEndpoint({ route, routeDeps: deps.api, logger: deps.logger, metrics }) : undefined;
  const keyed = (deps.api?.routes ?? []).filter((r) => r.auth === 'api_key').map((r) => r.path);
  const cors = ingestCors(keyed, deps.corsAllowedOrigins ?? [], deps.logger);
  return (req, res) => {
    const ingest = endpoint?.handles(req) === true;
    if (ingest) holdHeaders(res);
    setResponseHeader(res, 'X-Content-Type-Options', 'nosniff');
    if (cors?.handle(req, res)) return;
    if (ingest) endpoint.handle(req, res);
    else app(req, res);
  };
}

/** The Express part of the edge: every request but `POST /v1/ingest`. */
function createHttpApp(deps: HttpAppDeps, routes: RouteTable, metrics: EdgeMetrics): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Behind a load balancer the client address comes from X-Forwarded-For (rate limits, logs).
  app.set('trust proxy', true);

  // First: the request id and the one log line per request cover everything below, probes included.
  app.use(requestLog(deps.logger, new Set((deps.api?.routes ?? []).filter((r) => r.ingest).map((r) => expressPath(r.path)))));
  // Before every route, so that probes, 404s and requests refused before their route are counted too.
  app.use(httpMetrics(metrics));
  app.use(systemRouter({ readiness: deps.readiness, metrics: deps.exposition ?? deps.metrics, logger: deps.logger }));
  if (deps.api) {
    app.use(mountRoutes(deps.api.routes, deps.api, routes));
    // The dashboard talks to this API only, so it is served where the API is; after it, so that an
    // API path never reaches the static files.
    app.use(dashboardRouter());
  }

  app.use(methodNotAllowedHandler(routes));
  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
