/** The outbound HTTP client's vocabulary: what a receiver answered, and why no answer came. */

/** A receiver's answer as the outbound client returns it; a 3xx is returned, never followed. */
export interface OutboundResponse {
  readonly status: number;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  /** At most the client's body cap, decoded as UTF-8 (enough to explain a failure). */
  readonly body: string;
}

export type OutboundFailure = 'blocked_address' | 'invalid_url' | 'timeout' | 'network';

/** Why the outbound client did not get a response. `message` never holds the URL's path or query. */
export class OutboundError extends Error {
  override readonly name = 'OutboundError';
  constructor(
    readonly reason: OutboundFailure,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
  }
}

/** The one outbound HTTP client every delivery uses (src/delivery/outbound-http.ts implements it). */
export interface OutboundHttp {
  post(url: string, body: string, headers: Readonly<Record<string, string>>): Promise<OutboundResponse>;
}
