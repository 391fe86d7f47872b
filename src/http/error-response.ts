import { STATUS_CODES } from 'node:http';
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import { DomainError, type ErrorCode, type ErrorDetail } from '../domain/errors.js';
import type { Logger } from '../observability/logger.js';

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

export function sendError(req: Request, res: Response, status: number, message: string, details?: readonly ErrorDetail[]): void {
  res.status(status).json(errorBody(status, message, req.path, details));
}

export function sendDomainError(req: Request, res: Response, err: DomainError): void {
  if (err.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(Math.ceil(err.retryAfterSeconds)));
  for (const [name, value] of Object.entries(err.headers ?? {})) res.setHeader(name, value);
  sendError(req, res, STATUS_BY_CODE[err.code], err.message, err.details);
}

export const notFoundHandler: RequestHandler = (req, res) => {
  sendError(req, res, 404, 'Resource not found');
};

/** body-parser tags its failures with `type`; these are the client's fault, not ours. */
const BODY_PARSER_ERRORS: Readonly<Record<string, { status: number; message: string }>> = {
  'entity.parse.failed': { status: 400, message: 'Malformed JSON body' },
  'entity.too.large': { status: 413, message: 'Request body exceeds the 1 MiB limit' },
  'encoding.unsupported': { status: 415, message: 'Unsupported content encoding' },
  'charset.unsupported': { status: 415, message: 'Unsupported charset' },
  'request.aborted': { status: 400, message: 'Request aborted' },
};

function bodyParserError(err: unknown): { status: number; message: string } | undefined {
  if (typeof err !== 'object' || err === null || !('type' in err) || typeof err.type !== 'string') return undefined;
  return BODY_PARSER_ERRORS[err.type];
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    if (res.headersSent) {
      next(err);
      return;
    }
    if (err instanceof DomainError) {
      sendDomainError(req, res, err);
      return;
    }
    const parserError = bodyParserError(err);
    if (parserError) {
      sendError(req, res, parserError.status, parserError.message);
      return;
    }
    // The request's own logger (request-log.ts), so this line carries the request id.
    (res.locals.logger ?? logger).error({ err, method: req.method, path: req.path }, 'unhandled error');
    sendError(req, res, 500, 'Internal server error');
  };
}
