import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateClientSecret } from '../../src/domain/credentials.js';
import { outputField, printedClientSecret, runCli } from '../helpers/cli.js';
import { expectErrorBody, INVALID_AUTH } from '../helpers/api-assertions.js';
import { isolatedDistributedEnv, type IsolatedDistributedEnv } from '../helpers/distributed-env.js';
import { startService, type ServiceProcess } from '../helpers/service-process.js';
import { requestJson } from '../helpers/http-json.js';

/**
 * A revoked client secret fails with 401 from that moment on, on every API process.
 * Two real API processes share one PostgreSQL database and one Redis; the secret is revoked through
 * the first, after the second has checked (and cached) it.
 */
describe('client secret revocation across two API processes (distributed mode)', () => {
  const bootstrapSecret = generateClientSecret();
  let isolated: IsolatedDistributedEnv;
  let env: Record<string, string>;
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    isolated = await isolatedDistributedEnv('multiauth');
    env = { ROLE: 'api', ...isolated.env, BOOTSTRAP_CLIENT_SECRET: bootstrapSecret };
    // One after the other: this suite is about revocation, not about concurrent start-up.
    processes.push(await startService(env));
    processes.push(await startService(env));
  });

  afterAll(async () => {
    for (const p of processes) await p.stop();
    await isolated?.cleanup();
  });

  const call = (target: ServiceProcess, method: string, path: string, secret: string, body?: unknown) => requestJson(target.url, method, path, { authorization: `Bearer ${secret}` }, body);

  it('refuses the secret on the other process on the very next request', async () => {
    const [first, second] = processes as [ServiceProcess, ServiceProcess];
    const created = await call(first, 'POST', '/v1/client-secrets', bootstrapSecret, { label: 'shared' });
    expect(created.status).toBe(201);
    const secret = created.body.clientSecret as string;

    // Checked, and so cached, by the second process.
    for (let i = 0; i < 3; i++) expect((await call(second, 'GET', '/v1/client-secrets', secret)).status).toBe(200);

    expect((await call(first, 'DELETE', `/v1/client-secrets/${created.body.secret.id}`, bootstrapSecret)).status).toBe(204);

    expectErrorBody(await call(second, 'GET', '/v1/client-secrets', secret), { status: 401, path: '/v1/client-secrets', message: INVALID_AUTH });
    expectErrorBody(await call(first, 'GET', '/v1/client-secrets', secret), { status: 401, path: '/v1/client-secrets', message: INVALID_AUTH });
    // The secret that did the revoking still works on both.
    expect((await call(second, 'GET', '/v1/client-secrets', bootstrapSecret)).status).toBe(200);
    expect((await call(first, 'GET', '/v1/client-secrets', bootstrapSecret)).status).toBe(200);
  });

  it('does the same when the revoking and the refusing process are swapped', async () => {
    const [first, second] = processes as [ServiceProcess, ServiceProcess];
    const created = await call(second, 'POST', '/v1/client-secrets', bootstrapSecret, { label: 'shared the other way' });
    const secret = created.body.clientSecret as string;
    expect((await call(first, 'GET', '/v1/client-secrets', secret)).status).toBe(200);
    expect((await call(second, 'DELETE', `/v1/client-secrets/${created.body.secret.id}`, secret)).status).toBe(204);
    expect((await call(first, 'GET', '/v1/client-secrets', secret)).status).toBe(401);
  });

  it('refuses a secret on both processes on the very next request after the CLI revoked it', async () => {
    const [first, second] = processes as [ServiceProcess, ServiceProcess];
    // The CLI is a third process: it reaches the API processes only through PostgreSQL and Redis.
    const created = await runCli(['create-account', '--name', 'cli account'], env);
    expect(created.code, created.stderr).toBe(0);
    const secret = printedClientSecret(created.stdout);
    // A second secret, so that the CLI's is not the account's last active one.
    const spare = await call(first, 'POST', '/v1/client-secrets', secret, { label: 'spare' });
    expect(spare.status).toBe(201);
    for (const p of processes) expect((await call(p, 'GET', '/v1/client-secrets', secret)).status).toBe(200);

    const revoked = await runCli(['revoke-secret', '--id', outputField(created.stdout, 'secret id')], env);
    expect(revoked.code, revoked.stderr).toBe(0);

    expect((await call(first, 'GET', '/v1/client-secrets', secret)).status).toBe(401);
    expect((await call(second, 'GET', '/v1/client-secrets', secret)).status).toBe(401);
    expect((await call(second, 'GET', '/v1/client-secrets', spare.body.clientSecret)).status).toBe(200);
  });

  it('writes no secret value to either process output', () => {
    for (const p of processes) expect(p.output()).not.toContain('svc_cs_');
  });
});
