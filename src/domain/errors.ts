/**
 * Domain errors know nothing of HTTP. Each has a stable code and says whether the caller may retry;
 * src/http/error-response.ts is the one place that maps codes to statuses.
 */
export const ERROR_CODES = [
  'validation_failed',
  'unauthenticated',
  'forbidden',
  'not_found',
  'conflict',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  /** An outbound delivery (a destination test) was refused or failed at the receiver. */
  'delivery_failed',
  'unavailable',
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorDetail {
  readonly path: string;
  readonly message: string;
}

export class DomainError extends Error {
  override readonly name = 'DomainError';
  readonly details: readonly ErrorDetail[] | undefined;
  /** Seconds after which a retry makes sense, for `unavailable` and `rate_limited`. */
  readonly retryAfterSeconds: number | undefined;
  /** Protocol-level headers that belong with this error (a 401's challenge); no HTTP status knowledge. */
  readonly headers: Readonly<Record<string, string>> | undefined;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: { details?: readonly ErrorDetail[]; retryAfterSeconds?: number; headers?: Readonly<Record<string, string>>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.headers = options.headers;
  }

  get retriable(): boolean {
    return this.code === 'unavailable' || this.code === 'rate_limited';
  }
}
