import type { IncomingMessage, ServerResponse } from 'node:http';
import { beginRequestLog } from './request-log.js';
import type { Logger } from '../observability/logger.js';

/**
 * Cross-origin access to the ingest endpoints, for code running in a browser (the client library,
 * a web app's own tracking): `CORS_ALLOWED_ORIGINS` lists the origins whose pages may send events with
 * an API key, or `*` for any. An API key only adds events to its app, which is why it may live in a
 * page; management requests (client secrets) stay same-origin: the dashboard is served by the API.
 * Without the setting no cross-origin request is allowed, as before.
 */
const ALLOWED_HEADERS = 'content-type, content-encoding, x-api-key, idempotency-key';
/** What a page may read of an answer: what a client needs to pace and retry, and the request id. */
const EXPOSED_HEADERS = 'Retry-After, RateLimit, RateLimit-Policy, Idempotent-Replayed, X-Request-Id';
const PREFLIGHT_MAX_AGE_S = 600;

export interface IngestCors {
  /**
   * Sets the CORS headers of a request to an ingest endpoint from an allowed origin, and answers it
   * when it is a preflight (true: nothing else is to be done with it).
   */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
}

/** `paths`: the endpoints an API key authenticates (POST /v1/ingest, POST /v1/otlp/v1/logs). */
export function ingestCors(paths: readonly string[], allowedOrigins: readonly string[], logger: Logger): IngestCors | undefined {
  if (allowedOrigins.length === 0 || paths.length === 0) return undefined;
  const corsPaths = new Set(paths);
  const any = allowedOrigins.includes('*');
  const allowed = new Set(allowedOrigins);
  return {
    handle(req, res) {
      const origin = req.headers.origin;
      const path = (req.url ?? '/').split('?', 1)[0]!;
      if (origin === undefined || !corsPaths.has(path) || !(any || allowed.has(origin))) return false;
      res.setHeader('Access-Control-Allow-Origin', any ? '*' : origin);
      res.setHeader('Vary', 'Origin');
      if (req.method !== 'OPTIONS') {
        res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
        return false;
      }
      beginRequestLog(logger, req, res, () => ({ template: path, ingest: false }));
      res.setHeader('Access-Control-Allow-Methods', 'POST');
      res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      res.setHeader('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_S));
      res.statusCode = 204;
      res.end();
      return true;
    },
  };
}
