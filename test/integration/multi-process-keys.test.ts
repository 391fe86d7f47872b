import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresMetadataStore } from '../../src/adapters/metadata/metadata-store.js';
import type { MetadataStore } from '../../src/ports/metadata.js';
import { RedisStateStore } from '../../src/adapters/state/redis-state-store.js';
import { Authenticator } from '../../src/services/authenticator.js';
import { capturingLogger } from '../helpers/logger.js';
import { isolatedDistributedEnv, type IsolatedDistributedEnv } from '../helpers/distributed-env.js';
import { startService, type ServiceProcess } from '../helpers/service-process.js';
import { requestJson } from '../helpers/http-json.js';

/**
 * A rotated key fails with 401 from that moment on, on every API process. Two API processes share one
 * PostgreSQL, ClickHouse and Redis; a key rotated (or an app deleted) through one must be seen by the
 * other on the very next request.
 *
 * The refusal of the old key is shown at ingest on the other process, and also with a third participant: an Authenticator in this test
 * process over the same database and Redis, exactly as an API process builds it. It authenticates
 * the old key first, so the key sits in its cache when the rotation happens elsewhere; it must still
 * refuse the key on its next call. The two services' own view is checked through their API.
 */
describe('API keys across processes (distributed)', () => {
  const bootstrapSecret = `svc_cs_${randomBytes(32).toString('base64url')}`;
  const auth = { authorization: `Bearer ${bootstrapSecret}` };
  let isolated: IsolatedDistributedEnv;
  let first: ServiceProcess;
  let second: ServiceProcess;
  let metadata: MetadataStore;
  let state: RedisStateStore;
  let observer: Authenticator;

  beforeAll(async () => {
    isolated = await isolatedDistributedEnv('keys');
    const env = { ROLE: 'api', ...isolated.env, BOOTSTRAP_CLIENT_SECRET: bootstrapSecret };
    // One after the other: this suite is about keys, not start-up races.
    first = await startService(env);
    second = await startService(env);
    const { logger } = capturingLogger('silent');
    metadata = createPostgresMetadataStore({ url: isolated.env.DATABASE_URL! });
    state = new RedisStateStore({ url: isolated.stack.redisUrl, keyPrefix: isolated.env.REDIS_KEY_PREFIX, logger });
    observer = new Authenticator({ metadata, state, logger });
  });

  afterAll(async () => {
    await Promise.allSettled([first?.stop(), second?.stop(), metadata?.close(), state?.close()]);
    await isolated?.cleanup();
  });

  const ingestOn = (service: ServiceProcess, apiKey: string, body: unknown) =>
    fetch(`${service.url}/v1/ingest`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('refuses the old key at the other process\'s ingest on the very next request', async () => {
    const created = await fetch(`${first.url}/v1/apps`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Ingest keys' }) });
    const { app, apiKey } = (await created.json()) as { app: { id: string }; apiKey: string };
    // The second process checks (and caches) the key first.
    expect((await ingestOn(second, apiKey, { event: 'warm' })).status).toBe(202);
    const rotated = await fetch(`${first.url}/v1/apps/${app.id}/keys/rotate`, { method: 'POST', headers: auth });
    const { apiKey: newKey } = (await rotated.json()) as { apiKey: string };
    expect((await ingestOn(second, apiKey, { event: 'stale' })).status).toBe(401);
    expect((await ingestOn(second, newKey, { event: 'fresh' })).status).toBe(202);
  });

  it('checks ingest on the other process against a schema from the moment it is registered', async () => {
    const created = await fetch(`${first.url}/v1/apps`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Ingest schemas' }) });
    const { app, apiKey } = (await created.json()) as { app: { id: string }; apiKey: string };
    // Cached on the second process without a schema: anything goes.
    expect((await ingestOn(second, apiKey, { event: 'order.created', data: {} })).status).toBe(202);
    const schema = await fetch(`${first.url}/v1/apps/${app.id}/schemas`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ eventName: 'order.created', fields: [{ name: 'amount', type: 'number', required: true }] }),
    });
    expect(schema.status).toBe(201);
    const refused = await ingestOn(second, apiKey, { event: 'order.created', data: {} });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { details: unknown[] }).details).toEqual([{ path: 'data.amount', message: 'is required' }]);
    const metadata = await fetch(`${first.url}/v1/apps/${app.id}/default-metadata`, { method: 'PUT', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ env: 'prod' }) });
    expect(metadata.status).toBe(200);
    expect((await ingestOn(second, apiKey, { event: 'order.created', data: { amount: 1 } })).status).toBe(202);
  });

  const request = (service: ServiceProcess, method: string, path: string, body?: unknown) => requestJson(service.url, method, path, auth, body);

  const hintOf = (key: string) => `${key.slice(0, 12)}…`;

  it.each([
    ['keys/rotate', () => [first, second] as const],
    ['rotate-key', () => [second, first] as const],
  ])('a key rotated through one process (%s) is refused everywhere on the next request', async (path, services) => {
    const [rotating, other] = services();
    const created = await request(rotating, 'POST', '/v1/apps', { name: `Rotated via ${path}` });
    expect(created.status).toBe(201);
    const { app, apiKey: oldKey } = created.body;

    expect((await request(other, 'GET', `/v1/apps/${app.id}`)).body.apiKeyHint).toBe(hintOf(oldKey));
    expect(await observer.authenticate(oldKey)).toMatchObject({ kind: 'api_key', appId: app.id });

    const rotated = await request(rotating, 'POST', `/v1/apps/${app.slug}/${path}`);
    expect(rotated.status).toBe(200);
    const newKey: string = rotated.body.apiKey;

    // No waiting: the very next request on any other process sees the rotation.
    expect(await observer.authenticate(oldKey)).toBeNull();
    expect((await request(other, 'GET', '/v1/apps')).body.find((a: any) => a.id === app.id).apiKeyHint).toBe(hintOf(newKey));
    expect(await observer.authenticate(newKey)).toMatchObject({ kind: 'api_key', appId: app.id });
  });

  it('a deleted app is gone, and its key refused, on every process at once', async () => {
    const { app, apiKey } = (await request(first, 'POST', '/v1/apps', { name: 'Deleted elsewhere' })).body;
    expect(await observer.authenticate(apiKey)).not.toBeNull();
    expect((await request(first, 'GET', `/v1/apps/${app.id}`)).status).toBe(200);

    expect((await request(second, 'DELETE', `/v1/apps/${app.id}`)).status).toBe(204);

    expect(await observer.authenticate(apiKey)).toBeNull();
    expect((await request(first, 'GET', `/v1/apps/${app.id}`)).status).toBe(404);
  });

  /** The process's eas_credential_lookups_total for `result`, from its /metrics. */
  async function lookups(service: ServiceProcess, result: 'found' | 'unknown'): Promise<number> {
    const text = await (await fetch(`${service.url}/metrics`)).text();
    const line = text.split('\n').find((l) => l.startsWith(`eas_credential_lookups_total{result="${result}"}`));
    expect(line, 'eas_credential_lookups_total is exported').toBeDefined();
    return Number(line!.split(' ').pop());
  }

  const unknownKey = () => `svc_live_${randomBytes(32).toString('base64url')}`;

  it('answers every request with an unknown key 401 but looks the key up in the database once, one at a time or all at once', async () => {
    const sequential = unknownKey();
    const before = await lookups(second, 'unknown');
    for (let i = 0; i < 20; i++) expect((await ingestOn(second, sequential, { event: 'nobody' })).status).toBe(401);
    expect(await lookups(second, 'unknown')).toBe(before + 1);

    const concurrent = unknownKey();
    const answers = await Promise.all(Array.from({ length: 50 }, () => ingestOn(second, concurrent, { event: 'nobody' })));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 401));
    expect(await lookups(second, 'unknown')).toBe(before + 2);
  });

  it('refuses a rotated key on every process though it was refused before and found since', async () => {
    const { app, apiKey } = (await request(first, 'POST', '/v1/apps', { name: 'Known, then rotated' })).body;
    expect((await ingestOn(second, apiKey, { event: 'known' })).status).toBe(202);
    const { apiKey: newKey } = (await request(first, 'POST', `/v1/apps/${app.id}/keys/rotate`)).body;
    // Refused, and now remembered as unknown on the second process; the new key is not affected.
    expect((await ingestOn(second, apiKey, { event: 'stale' })).status).toBe(401);
    expect((await ingestOn(second, apiKey, { event: 'stale' })).status).toBe(401);
    expect((await ingestOn(second, newKey, { event: 'fresh' })).status).toBe(202);
  });

  it('accepts a client secret it refused as unknown once another process starts with it as its bootstrap secret', async () => {
    const later = `svc_cs_${randomBytes(32).toString('base64url')}`;
    const withLater = () => requestJson(first.url, 'GET', '/v1/client-secrets', { authorization: `Bearer ${later}` });
    expect((await withLater()).status).toBe(401);
    expect((await withLater()).status).toBe(401);
    const third = await startService({ ROLE: 'api', ...isolated.env, BOOTSTRAP_CLIENT_SECRET: later });
    try {
      // No waiting: registering the secret at the third process's start made every process look again.
      expect((await withLater()).status).toBe(200);
    } finally {
      expect(await third.stop()).toBe(0);
    }
  });
});
