import { describe, expect, it } from 'vitest';
import { OutboundError, type OutboundResponse } from './delivery-types.js';
import { MAX_RETRY_AFTER_MS, bodySnippet, classifyRequestError, classifyResponse, parseRetryAfter } from './delivery-outcome.js';

const now = new Date('2024-05-01T12:00:00.000Z');
const response = (status: number, body = '', headers: Record<string, string> = {}): OutboundResponse => ({
  status,
  body,
  headers,
});

describe('parseRetryAfter', () => {
  it('reads delay-seconds and HTTP dates, capped at an hour', () => {
    expect(parseRetryAfter('7', now)).toBe(7000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Wed, 01 May 2024 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Wed, 01 May 2024 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('86400', now)).toBe(MAX_RETRY_AFTER_MS);
  });

  it('ignores what it cannot read', () => {
    for (const value of [undefined, '', 'soon', '-3', '1.5', '2024-05-01']) expect(parseRetryAfter(value, now)).toBeNull();
  });
});

describe('classifyResponse', () => {
  it('treats 2xx as delivered', () => {
    expect(classifyResponse(response(204), now)).toEqual({ ok: true, retriable: false, status: 204, error: null, retryAfterMs: null });
  });

  it('does not retry a redirect and says it was not followed', () => {
    const result = classifyResponse(response(302, '', { location: 'http://10.0.0.1/' }), now);
    expect(result).toMatchObject({ ok: false, retriable: false, status: 302 });
    expect(result.error).toContain('redirects are not followed');
  });

  it('retries 408, 429 and 5xx, honouring Retry-After', () => {
    expect(classifyResponse(response(429, 'slow down', { 'retry-after': '7' }), now)).toEqual({
      ok: false,
      retriable: true,
      status: 429,
      error: 'receiver answered HTTP 429: slow down',
      retryAfterMs: 7000,
    });
    expect(classifyResponse(response(503), now)).toMatchObject({ retriable: true, retryAfterMs: null });
    expect(classifyResponse(response(408), now)).toMatchObject({ retriable: true });
  });

  it('does not retry other 4xx', () => {
    for (const status of [400, 401, 403, 404, 410, 413]) {
      expect(classifyResponse(response(status, 'no', { 'retry-after': '5' }), now)).toMatchObject({
        retriable: false,
        retryAfterMs: null,
      });
    }
  });

  it('keeps a short one-line snippet of the body, without the URL secret echoed back', () => {
    const secretPath = '/services/T000/B000/XXXXXXXXXXXX';
    const result = classifyResponse(response(404, `no_service for ${secretPath}\n${'z'.repeat(1000)}`), now, [secretPath]);
    expect(result.error).not.toContain('XXXXXXXXXXXX');
    expect(result.error).not.toContain('\n');
    expect(result.error!.length).toBeLessThan(260);
    expect(bodySnippet('  a \r\n\t b  ')).toBe('a b');
  });
});

describe('classifyRequestError', () => {
  it('retries timeouts and network errors, not blocked addresses or invalid URLs', () => {
    expect(classifyRequestError(new OutboundError('timeout', 'request timed out'))).toMatchObject({ retriable: true, status: null });
    expect(classifyRequestError(new OutboundError('network', 'connection refused'))).toMatchObject({ retriable: true });
    expect(classifyRequestError(new OutboundError('blocked_address', 'private address'))).toMatchObject({ retriable: false });
    expect(classifyRequestError(new OutboundError('invalid_url', 'bad url'))).toMatchObject({ retriable: false });
  });

  it('reports an unexpected error by kind only, since its message may hold the URL', () => {
    const result = classifyRequestError(new TypeError('fetch failed for https://hooks.slack.com/services/T/B/SECRET'));
    expect(result.error).not.toContain('SECRET');
    expect(result.retriable).toBe(true);
  });
});
