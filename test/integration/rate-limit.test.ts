import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { generateClientSecret } from '../../src/domain/credentials.js';
import { MODES, startApi, type ApiHarness } from '../helpers/api-harness.js';
import { createTestApp } from '../helpers/api-assertions.js';
import { isolatedDistributedEnv, type IsolatedDistributedEnv } from '../helpers/distributed-env.js';
import { PrivateRedis } from '../helpers/private-redis.js';
import { startService, type ServiceProcess } from '../helpers/service-process.js';

/**
 * Per-account rate limits (429 with `Retry-After` and the RateLimit headers): a budget of 5 requests
 * per minute, counted per account whichever credential is used, shared by every API process, and
 * failing open when Redis does not answer.
 */
const BUDGET = { RATE_LIMIT_POINTS: '5', RATE_LIMIT_DURATION_S: '60' };
const POLICY = '"default";q=5;w=60';

/** `RateLimit: "default";r=<remaining>;t=<seconds>` → its numbers, or null when absent. */
function serviceLimit(headers: Headers): { r: number; t: number } | null {
  const value = headers.get('ratelimit');
  if (value === null) return null;
  const match = /^"default";r=(\d+);t=(\d+)$/.exec(value);
  if (!match) throw new Error(`malformed RateLimit header: ${value}`);
  return { r: Number(match[1]), t: Number(match[2]) };
}

/** The value of an unlabelled metric in a Prometheus text scrape of `baseUrl`. */
async function metric(baseUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const match = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  if (!match) throw new Error(`no ${name} in /metrics`);
  return Number(match[1]);
}

function expectRateLimited(res: { status: number; body: any; headers: Headers }, path: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(429);
  expect(Object.keys(res.body).sort()).toEqual(['error', 'message', 'path', 'statusCode', 'timestamp']);
  expect(res.body).toMatchObject({ statusCode: 429, error: 'Too Many Requests', path, message: expect.stringMatching(/rate limit/i) });
  expect(res.headers.get('ratelimit-policy')).toBe(POLICY);
  const limit = serviceLimit(res.headers)!;
  expect(limit.r).toBe(0);
  expect(limit.t).toBeGreaterThan(0);
  expect(limit.t).toBeLessThanOrEqual(60);
  // Retry-After in whole seconds, not before the end of the window the RateLimit header names.
  expect(res.headers.get('retry-after')).toBe(String(limit.t));
}

for (const mode of MODES) {
  describe(`per-account rate limit (${mode})`, () => {
    let api: ApiHarness;

    beforeAll(async () => {
      api = await startApi(mode, BUDGET);
    });

    afterAll(async () => {
      await api?.stop();
    });

    it("refuses an account's 6th request with 429 and the headers, whatever its credential, and leaves other accounts alone", async () => {
      const limitedBefore = await metric(api.url, 'eas_rate_limited_requests_total');
      const failOpenBefore = await metric(api.url, 'eas_rate_limiter_fail_open_total');
      const account = await api.newAccount();
      const other = await api.newAccount();

      // 1: the client secret creates an app; 2–5: its API key ingests, counting against the same account.
      const { apiKey } = await createTestApp(api, account);
      const remaining: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await api.request('POST', '/v1/ingest', { headers: { 'x-api-key': apiKey }, body: { event: 'signup' } });
        expect(res.status, JSON.stringify(res.body)).toBe(202);
        expect(res.headers.get('ratelimit-policy')).toBe(POLICY);
        remaining.push(serviceLimit(res.headers)!.r);
      }
      expect(remaining).toEqual([3, 2, 1, 0]);

      // 6 and 7: over the budget, through either credential.
      expectRateLimited(await api.request('GET', '/v1/apps', { headers: account.auth }), '/v1/apps');
      expectRateLimited(await api.request('POST', '/v1/ingest', { headers: { 'x-api-key': apiKey }, body: { event: 'signup' } }), '/v1/ingest');

      // Another account has its whole budget.
      const elsewhere = await api.request('GET', '/v1/apps', { headers: other.auth });
      expect(elsewhere.status).toBe(200);
      expect(elsewhere.headers.get('ratelimit-policy')).toBe(POLICY);
      expect(serviceLimit(elsewhere.headers)!.r).toBe(4);

      expect(await metric(api.url, 'eas_rate_limited_requests_total')).toBe(limitedBefore + 2);
      // Redis answered every check: nothing was let through unchecked.
      expect(await metric(api.url, 'eas_rate_limiter_fail_open_total')).toBe(failOpenBefore);
    });

    it('counts and labels every authenticated response, a 400 or 403 too, but no unauthenticated one', async () => {
      const account = await api.newAccount();
      // Unauthenticated: no account to charge, no RateLimit headers, and nothing counted.
      for (let i = 0; i < 3; i++) {
        const res = await api.request('GET', '/v1/apps');
        expect(res.status).toBe(401);
        expect(res.headers.get('ratelimit')).toBeNull();
        expect(res.headers.get('ratelimit-policy')).toBeNull();
      }
      const invalid = await api.request('POST', '/v1/apps', { headers: account.auth, body: { name: '' } });
      expect(invalid.status).toBe(400);
      expect(serviceLimit(invalid.headers)!.r).toBe(4);
      const readOnly = await api.request('POST', '/v1/client-secrets', { headers: account.auth, body: { label: 'read only', scopes: ['read'] } });
      expect(readOnly.status).toBe(201);
      const forbidden = await api.request('POST', '/v1/apps', { headers: { authorization: `Bearer ${readOnly.body.clientSecret}` }, body: { name: 'x' } });
      expect(forbidden.status).toBe(403);
      expect(serviceLimit(forbidden.headers)!.r).toBe(2);
    });
  });
}

describe('one budget across two API processes (distributed mode)', () => {
  const bootstrapSecret = generateClientSecret();
  let isolated: IsolatedDistributedEnv;
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    isolated = await isolatedDistributedEnv('ratelimit');
    const env = { ROLE: 'api', ...isolated.env, ...BUDGET, BOOTSTRAP_CLIENT_SECRET: bootstrapSecret };
    processes.push(...(await Promise.all([startService(env), startService(env)])));
  });

  afterAll(async () => {
    for (const p of processes) await p.stop();
    await isolated?.cleanup();
  });

  it('lets the account make 5 requests in all, alternating between the processes, and refuses the rest on both', async () => {
    const call = (p: ServiceProcess) => fetch(`${p.url}/v1/client-secrets`, { headers: { authorization: `Bearer ${bootstrapSecret}` } });
    const [first, second] = processes as [ServiceProcess, ServiceProcess];
    const seen: Array<[number, number | undefined]> = [];
    for (let i = 0; i < 7; i++) {
      const res = await call(i % 2 === 0 ? first : second);
      await res.body?.cancel();
      seen.push([res.status, serviceLimit(res.headers)?.r]);
    }
    expect(seen).toEqual([
      [200, 4],
      [200, 3],
      [200, 2],
      [200, 1],
      [200, 0],
      [429, 0],
      [429, 0],
    ]);
  });
});

describe('failing open when Redis stops (distributed mode, a private Redis)', () => {
  let redis: PrivateRedis;
  let api: ApiHarness;

  beforeAll(async () => {
    redis = await PrivateRedis.start();
    api = await startApi('distributed', { ...BUDGET, REDIS_URL: redis.url });
  });

  afterAll(async () => {
    await api?.stop();
    await redis?.dispose();
  });

  it('serves requests unchecked while Redis is down, counts them, says so once, and limits again once Redis is back', async () => {
    const account = await api.newAccount();
    const list = () => api.request('GET', '/v1/apps', { headers: account.auth });
    const failingOpen = () => metric(api.url, 'eas_rate_limiter_failing_open');
    const warnings = () => api.logLines().filter((line) => line.includes('rate limiter unavailable'));
    const recoveries = () => api.logLines().filter((line) => line.includes('rate limiter answers again'));

    const healthy = await list();
    expect(healthy.status).toBe(200);
    expect(serviceLimit(healthy.headers)!.r).toBe(4);
    expect(await failingOpen()).toBe(0);
    const failOpenBefore = await metric(api.url, 'eas_rate_limiter_fail_open_total');

    await redis.stop();
    // Twice the budget: every one is served, none is limited.
    for (let i = 0; i < 10; i++) {
      const res = await list();
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.headers.get('ratelimit-policy')).toBe(POLICY);
      // The remaining budget is unknown, so it is not stated.
      expect(res.headers.get('ratelimit')).toBeNull();
    }
    expect(await metric(api.url, 'eas_rate_limiter_fail_open_total')).toBe(failOpenBefore + 10);
    expect(await failingOpen()).toBe(1);
    expect(warnings()).toHaveLength(1);
    expect(JSON.parse(warnings()[0]!)).toMatchObject({ level: 40, component: 'rate-limit' });

    await redis.restart();
    // A probe goes to Redis a few seconds after the last failure; requests keep coming until one does.
    await vi.waitFor(
      async () => {
        expect((await list()).status).toBe(200);
        expect(await failingOpen()).toBe(0);
      },
      { timeout: 20_000, interval: 250 },
    );
    expect(recoveries()).toHaveLength(1);
    expect(warnings()).toHaveLength(1);

    // Limits hold again (the restarted Redis is empty: a fresh window).
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await list()).status);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    const after = await list();
    expect(after.status).toBe(429);
    expect(serviceLimit(after.headers)!.r).toBe(0);
  });
});
