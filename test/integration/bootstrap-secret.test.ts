import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateClientSecret } from '../../src/domain/credentials.js';
import { MODES, type Mode } from '../helpers/api-harness.js';
import { isolatedDistributedEnv } from '../helpers/distributed-env.js';
import { startService } from '../helpers/service-process.js';
import { requestJson } from '../helpers/http-json.js';

/**
 * BOOTSTRAP_CLIENT_SECRET, through real service processes that are restarted on the same data: the
 * value works from the first start, keeps working across restarts without a second copy, and, since
 * the setting means "this value is one of the account's active client secrets", a revoked bootstrap
 * secret is active again after the next start.
 */
describe.each(MODES)('BOOTSTRAP_CLIENT_SECRET (%s mode)', (mode: Mode) => {
  const bootstrapSecret = generateClientSecret();
  let env: Record<string, string>;
  const cleanups: Array<() => Promise<void> | void> = [];

  beforeAll(async () => {
    if (mode === 'embedded') {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'eas-bootstrap-'));
      cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
      env = { DATA_DIR: dataDir };
    } else {
      const isolated = await isolatedDistributedEnv('bootstrap');
      cleanups.push(() => isolated.cleanup());
      env = { ROLE: 'api', ...isolated.env };
    }
    env.BOOTSTRAP_CLIENT_SECRET = bootstrapSecret;
  });
  afterAll(async () => {
    for (const cleanup of cleanups) await cleanup();
  });

  const call = (url: string, method: string, urlPath: string, secret: string, body?: unknown) => requestJson(url, method, urlPath, { authorization: `Bearer ${secret}` }, body);

  /** Starts the service on this suite's data, runs `body` against it, always stops it cleanly. */
  async function withService(body: (url: string) => Promise<void>): Promise<void> {
    const service = await startService(env);
    try {
      await body(service.url);
    } finally {
      expect(await service.stop()).toBe(0);
    }
    expect(service.output()).not.toContain(bootstrapSecret);
  }

  it('accepts the secret, keeps it across restarts, and makes it active again after a revocation', async () => {
    let bootstrapId = '';
    let other = '';

    await withService(async (url) => {
      const listed = await call(url, 'GET', '/v1/client-secrets', bootstrapSecret);
      expect(listed.status).toBe(200);
      expect(listed.body).toHaveLength(1);
      expect(listed.body[0]).toMatchObject({ label: 'bootstrap', scopes: ['read', 'write'], hint: `${bootstrapSecret.slice(0, 12)}…`, revokedAt: null });
      bootstrapId = listed.body[0].id;
      // A second secret, so that the bootstrap one is not the last active one and can be revoked.
      const created = await call(url, 'POST', '/v1/client-secrets', bootstrapSecret, { label: 'operator' });
      expect(created.status).toBe(201);
      other = created.body.clientSecret;
    });

    await withService(async (url) => {
      // Same row, not a second copy.
      const listed = await call(url, 'GET', '/v1/client-secrets', bootstrapSecret);
      expect(listed.status).toBe(200);
      expect(listed.body.map((s: any) => s.id)).toEqual([bootstrapId, expect.any(String)]);

      expect((await call(url, 'DELETE', `/v1/client-secrets/${bootstrapId}`, other)).status).toBe(204);
      expect((await call(url, 'GET', '/v1/client-secrets', bootstrapSecret)).status).toBe(401);
    });

    await withService(async (url) => {
      const listed = await call(url, 'GET', '/v1/client-secrets', bootstrapSecret);
      expect(listed.status).toBe(200);
      expect(listed.body.find((s: any) => s.id === bootstrapId).revokedAt).toBeNull();
      expect(listed.body).toHaveLength(2);
      expect((await call(url, 'GET', '/v1/client-secrets', other)).status).toBe(200);
    });
  });
});
