import { STATUS_CODES } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { DomainError, type ErrorCode, type ErrorDetail } from '../domain/errors.js';
import type { Logger } from '../observability/logger.js';
import type { RouteTable } from '../lib/route-table.js';
import { setResponseHeader, writeResponseHead } from './response-head.js';

/** The one mapping from domain error codes to HTTP statuses; domain errors know nothing of HTTP. */
export const STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = {
  validation_failed: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  // The receiver, not this service, failed: 502 Bad Gateway, as a proxy reports an upstream failure.
  delivery_failed: 502,
  unavailable: 503,
  internal: 500,
};

/** The same body for every error, `details` only on validation errors. */
export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  timestamp: string;
  path: string;
  details?: readonly ErrorDetail[];
}

export function errorBody(status: number, message: string, path: string, details?: readonly ErrorDetail[]): ErrorBody {
  return {
    statusCode: status,
    error: STATUS_CODES[status] ?? 'Error',
    message,
    timestamp: new Date().toISOString(),
    path,
    ...(details && details.length > 0 ? { details } : {}),
  };
}

/** A JSON answer on a plain node response, as Express's `res.status().json()` writes it. */
export function writeJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  setResponseHeader(res, 'Content-Type', 'application/json; charset=utf-8');
  setResponseHeader(res, 'Content-Length', Buffer.byteLength(text));
  writeResponseHead(res, status);
  res.end(text);
}

/** Express decodes path parameters itself, and throws a URIError for `%` not followed by two hex digits. */
const MALFORMED_PATH = new DomainError('validation_failed', 'The path holds a malformed percent-encoding', {
  details: [{ path: 'path', message: 'must be valid percent-encoded UTF-8' }],
});

/**
 * How much of a body the service reads and drops after answering before the body arrived (a 401, 413
 * or 429 given without reading it). Closing at once instead would reset the connection under a client
 * that is still sending, and the client would never see the answer (a "lingering close", as web
 * servers do it). Beyond these bounds the client is not sending a request body but a stream, and the
 * connection is cut.
 */
const DRAIN_MAX_BYTES = 64 * 1024 * 1024;
const DRAIN_MAX_MS = 10_000;

/** Reads and drops what is left of a body that will not be read, within the bounds above; never decoded or kept. */
function drainUnreadBody(res: ServerResponse): void {
  const req = res.req;
  if (req.complete || req.listenerCount('data') > 0) return;
  let dropped = 0;
  let cut = false;
  const cutOff = (): void => {
    if (cut) return;
    cut = true;
    // After the answer has gone out, so that the client has it before the connection goes.
    if (res.writableFinished) req.socket.destroy();
    else res.once('finish', () => req.socket.destroy());
  };
  const timer = setTimeout(cutOff, DRAIN_MAX_MS);
  timer.unref();
  req.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > DRAIN_MAX_BYTES) cutOff();
  });
  req.once('close', () => clearTimeout(timer));
  req.resume();
}

/**
 * The one answer to an error thrown while handling a request: a DomainError's status, message,
 * details and headers; anything else is a 500 that says nothing of its cause (the log does).
 */
export function writeError(res: ServerResponse, err: unknown, path: string, logger: Logger): void {
  drainUnreadBody(res);
  const known = err instanceof URIError ? MALFORMED_PATH : err;
  if (known instanceof DomainError) {
    if (known.retryAfterSeconds !== undefined) setResponseHeader(res, 'Retry-After', String(Math.ceil(known.retryAfterSeconds)));
    for (const [name, value] of Object.entries(known.headers ?? {})) setResponseHeader(res, name, value);
    const status = STATUS_BY_CODE[known.code];
    writeJson(res, status, errorBody(status, known.message, path, known.details));
    return;
  }
  logger.error({ err, method: res.req.method, path }, 'unhandled error');
  writeJson(res, 500, errorBody(500, 'Internal server error', path));
}

/** A path some route serves, asked with a method none of them serves: 405 with the methods that are. */
export function methodNotAllowedHandler(routes: RouteTable): RequestHandler {
  return (req, res, next) => {
    const allowed = routes.methodsAt(req.path);
    if (allowed.length === 0) {
      next();
      return;
    }
    res.setHeader('Allow', allowed.join(', '));
    writeJson(res, 405, errorBody(405, `Method ${req.method} is not allowed here; allowed: ${allowed.join(', ')}`, req.path));
  };
}

export const notFoundHandler: RequestHandler = (req, res) => {
  writeJson(res, 404, errorBody(404, 'Resource not found', req.path));
};

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    // Within the request's scope: the line carries its id.
    writeError(res, err, req.path, logger);
  };
}
