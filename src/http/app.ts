import express, { type Express } from 'express';
import type { Registry } from 'prom-client';
import { httpMetrics } from '../observability/http-metrics.js';
import type { Logger } from '../observability/logger.js';
import type { Authenticator } from '../services/authenticator.js';
import type { DependencyCheck } from '../services/readiness.js';
import { errorHandler, notFoundHandler } from './error-response.js';
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

/** Contract section 2: bodies over 1 MiB get 413. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** Builds the Express app without listening, so tests can drive it over a real socket they own. */
export function createHttpApp(deps: HttpAppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Behind a load balancer the client address comes from X-Forwarded-For (rate limits, logs).
  app.set('trust proxy', true);

  // First: the request id and the one log line per request cover everything below, probes included.
  app.use(requestLog(deps.logger));
  // Before every route, so that probes, 404s and requests refused before their route are counted too.
  app.use(httpMetrics(deps.metrics, [...SYSTEM_ROUTES, ...(deps.api?.routes ?? [])]));
  app.use(systemRouter({ checks: deps.checks, metrics: deps.metrics }));
  app.use(express.json({ limit: BODY_LIMIT_BYTES, strict: false }));
  if (deps.api) app.use(mountRoutes(deps.api.routes, deps.api));

  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
