import { describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/api-assertions.js';
import { apiWithAccount } from '../helpers/api-harness.js';

/**
 * Cross-origin access (CORS_ALLOWED_ORIGINS): the ingest endpoints answer the browser's preflight and
 * expose what a client needs for pages of the origins named, and for no other origin; management
 * endpoints stay same-origin whatever the setting.
 */
describe('CORS on the ingest endpoints', () => {
  const ORIGIN = 'https://shop.example.com';
  const s = apiWithAccount('embedded', { CORS_ALLOWED_ORIGINS: `${ORIGIN},https://app.example.com` });

  const preflight = (path: string, origin: string) =>
    fetch(`${s.api.url}${path}`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-api-key' } });

  it('answers the preflight of an allowed origin for /v1/ingest and /v1/otlp/v1/logs', async () => {
    for (const path of ['/v1/ingest', '/v1/otlp/v1/logs']) {
      const res = await preflight(path, ORIGIN);
      expect(res.status, path).toBe(204);
      expect(Object.fromEntries([...res.headers].filter(([name]) => name.startsWith('access-control-') || name === 'vary'))).toEqual({
        'access-control-allow-origin': ORIGIN,
        'access-control-allow-methods': 'POST',
        'access-control-allow-headers': 'content-type, content-encoding, x-api-key, idempotency-key',
        'access-control-max-age': '600',
        vary: 'Origin',
      });
    }
  });

  it('lets an allowed page read the answer and its pacing headers', async () => {
    const { apiKey } = await createTestApp(s.api, s.account);
    const res = await fetch(`${s.api.url}/v1/ingest`, { method: 'POST', headers: { origin: ORIGIN, 'content-type': 'application/json', 'x-api-key': apiKey }, body: '{"event":"cors.test"}' });
    expect(res.status).toBe(202);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('access-control-expose-headers')).toBe('Retry-After, RateLimit, RateLimit-Policy, Idempotent-Replayed, X-Request-Id');
  });

  it('gives nothing to another origin, nor to a management endpoint', async () => {
    // Answered as any OPTIONS is (Express lists the methods), without leave for a cross-origin request.
    const other = await preflight('/v1/ingest', 'https://evil.example.net');
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(other.headers.get('access-control-allow-methods')).toBeNull();
    const management = await preflight('/v1/apps', ORIGIN);
    expect(management.headers.get('access-control-allow-origin')).toBeNull();
    const list = await fetch(`${s.api.url}/v1/apps`, { headers: { origin: ORIGIN, ...s.account.auth } });
    expect(list.status).toBe(200);
    expect(list.headers.get('access-control-allow-origin')).toBeNull();
  });
});
