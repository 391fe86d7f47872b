/**
 * Turns what a receiver did into a DeliveryAttemptResult: whether it worked, whether trying again can
 * help, and a short reason that is safe to store, show and log. The delivery loop decides what to do
 * with it; nothing here retries.
 */
import { OutboundError, type OutboundResponse } from './delivery-types.js';
import type { DeliveryAttemptResult } from '../ports/alert-sender.js';

/** A receiver asking for more than an hour is capped: the delivery's own backoff limits still apply. */
export const MAX_RETRY_AFTER_MS = 60 * 60 * 1000;
const SNIPPET_MAX = 200;

export const succeeded = (status: number | null): DeliveryAttemptResult => ({
  ok: true,
  retriable: false,
  status,
  error: null,
  retryAfterMs: null,
});

export const failed = (
  error: string,
  retriable: boolean,
  status: number | null = null,
  retryAfterMs: number | null = null,
): DeliveryAttemptResult => ({ ok: false, retriable, status, error, retryAfterMs });

/**
 * `Retry-After` is either delay-seconds or an HTTP date (RFC 9110 §10.2.3). Returns milliseconds,
 * capped at an hour; null when absent or unreadable. A date in the past means "now": 0.
 */
export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  // Only an IMF-fixdate-like value (it has a weekday and a GMT) is a date; a bare number like "1.5"
  // or "-3" is not a valid header and is ignored rather than read by Date.parse's lenient rules.
  if (!/[a-z]{3},.*GMT$/i.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(at - now.getTime(), 0), MAX_RETRY_AFTER_MS);
}

/**
 * The start of a receiver's body, on one line: enough to tell "invalid_payload" from "no_service".
 * `secrets` (the URL's path and query) are cut out in case a receiver echoes the request URL back.
 */
export function bodySnippet(body: string, secrets: readonly string[] = []): string {
  let text = body;
  for (const secret of secrets) if (secret.length >= 8) text = text.replaceAll(secret, '…');
  // eslint-disable-next-line no-control-regex -- control characters must not reach logs or the API
  text = text.replace(/[\u0000-\u001f\u007f\s]+/g, ' ').trim();
  return text.length > SNIPPET_MAX ? `${text.slice(0, SNIPPET_MAX - 1)}…` : text;
}

function withSnippet(sentence: string, snippet: string): string {
  return snippet === '' ? sentence : `${sentence}: ${snippet}`;
}

/**
 * 2xx worked. 3xx is a failure the receiver's owner must fix (redirects are never followed, since a
 * redirect could point the request at an internal address). 408, 429 and 5xx are worth retrying,
 * honouring Retry-After; any other 4xx will fail the same way again.
 */
export function classifyResponse(response: OutboundResponse, now: Date, secrets: readonly string[] = []): DeliveryAttemptResult {
  const { status } = response;
  if (status >= 200 && status < 300) return succeeded(status);
  const snippet = bodySnippet(response.body, secrets);
  if (status >= 300 && status < 400) {
    return failed(`receiver answered HTTP ${status}; redirects are not followed`, false, status);
  }
  const retriable = status === 408 || status === 429 || status >= 500;
  const retryAfterMs = retriable ? parseRetryAfter(response.headers['retry-after'], now) : null;
  return failed(withSnippet(`receiver answered HTTP ${status}`, snippet), retriable, status, retryAfterMs);
}

/**
 * A request that got no response. Timeouts and network errors may pass; a blocked address or a bad
 * URL will not change by itself. OutboundError messages never hold the URL's path (its contract); any
 * other error is unexpected, so only its kind is reported and it is retried in case it was transient.
 */
export function classifyRequestError(error: unknown): DeliveryAttemptResult {
  if (error instanceof OutboundError) {
    const retriable = error.reason === 'timeout' || error.reason === 'network';
    return failed(error.message, retriable);
  }
  return failed('unexpected error while sending the request', true);
}
