import { STATUS_CODES } from 'node:http';
import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { DomainError, type ErrorCode, type ErrorDetail } from '../domain/errors.js';
import type { Logger } from '../observability/logger.js';
import type { RouteTable } from '../shared/route-table.js';

/** The one mapping from domain error codes to HTTP statuses (STYLE habit 4). */
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

/** Contract section 2: the same body for every error, `details` only on validation errors. */
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
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/**
 * The one answer to an error thrown while handling a request: a DomainError's status, message,
 * details and headers; anything else is a 500 that says nothing of its cause (the log does).
 */
export function writeError(res: ServerResponse, err: unknown, path: string, logger: Logger): void {
  // Refused before its body arrived (a 401, a 429, a 413): closing the connection spares reading the
  // rest of it, which keeping the connection open would require.
  if (!res.req.complete) res.setHeader('Connection', 'close');
  if (err instanceof DomainError) {
    if (err.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(Math.ceil(err.retryAfterSeconds)));
    for (const [name, value] of Object.entries(err.headers ?? {})) res.setHeader(name, value);
    const status = STATUS_BY_CODE[err.code];
    writeJson(res, status, errorBody(status, err.message, path, err.details));
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
