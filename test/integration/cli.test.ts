import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outputField as field, printedClientSecret as secretIn, runCli as cli } from '../helpers/cli.js';
import { startService, type ServiceProcess } from '../helpers/service-process.js';
import { requestJson } from '../helpers/http-json.js';

/** The operator CLI against an embedded-mode data directory, with and without a running service. */
describe('operator CLI (embedded mode)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'eas-cli-'));
  const env = { DATA_DIR: dataDir };
  let service: ServiceProcess | undefined;

  const request = (method: string, urlPath: string, headers: Record<string, string>, body?: unknown) => requestJson(service!.url, method, urlPath, headers, body);
  const bearer = (secret: string) => ({ authorization: `Bearer ${secret}` });

  async function createAccount(name: string, extra: string[] = []): Promise<{ accountId: string; secretId: string; secret: string }> {
    const res = await cli(['create-account', '--name', name, ...extra], env);
    expect(res.code, res.stderr).toBe(0);
    return { accountId: field(res.stdout, 'account id'), secretId: field(res.stdout, 'secret id'), secret: secretIn(res.stdout) };
  }

  // Runs before the service exists: a fresh data directory is migrated by the CLI itself.
  beforeAll(async () => {
    const migrated = await cli(['migrate'], env);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stdout).toContain('migrations are up to date');
    service = await startService(env);
  });
  afterAll(async () => {
    if (service) expect(await service.stop()).toBe(0);
    rmSync(dataDir, { recursive: true, force: true });
  });

  // Usage errors touch no data, so they run side by side (each CLI start costs about two seconds).
  describe.concurrent('usage', () => {
    it('prints the commands for help and exits 0', async ({ expect }) => {
      const res = await cli(['help'], env);
      expect(res.code).toBe(0);
      for (const command of ['create-account', 'list-accounts', 'create-secret', 'list-secrets', 'revoke-secret', 'rotate-key', 'migrate']) expect(res.stdout).toContain(command);
      expect(res.stdout).toContain('Usage: event-alerting <command>');
    });

    it.for([['create-account', '--help'], ['help', 'create-account'], ['create-account', '-h']])('describes a command for %s %s without its required options', async (args, { expect }) => {
      const res = await cli([...args], env);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toContain('Usage: event-alerting create-account --name <name> [--label <label>] [--scopes read,write] [--json]');
      expect(res.stdout).toMatch(/--name <name>\s+the account's name/);
      expect(res.stdout).toMatch(/--json\s+print the result as one JSON document/);
    });

    it('prints the version of the package for --version', async ({ expect }) => {
      const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
      const res = await cli(['--version'], env);
      expect({ code: res.code, stdout: res.stdout }).toEqual({ code: 0, stdout: `${version}\n` });
    });

    it('reports a wrong command line as JSON on stderr with --json', async ({ expect }) => {
      const res = await cli(['create-account', '--json'], env);
      expect(res.code).toBe(2);
      expect(res.stdout).toBe('');
      expect(JSON.parse(res.stderr)).toEqual({ error: { kind: 'usage', message: '--name is required' } });
    });

    it.for([
      ['no command', [], 'No command given'],
      ['an unknown command', ['make-coffee'], 'Unknown command "make-coffee"'],
      ['a missing required option', ['create-account'], '--name is required'],
      ['an option without its value', ['create-account', '--name'], "Option '--name <value>' argument missing"],
      ['an unknown option', ['create-account', '--name', 'a', '--colour', 'red'], "Unknown option '--colour'"],
      ['a stray argument', ['revoke-secret', '--id', 'x', 'extra'], 'Unexpected argument'],
      ['an unknown scope', ['create-account', '--name', 'a', '--scopes', 'read,admin'], '--scopes: must be read or write'],
      ['a repeated scope', ['create-account', '--name', 'a', '--scopes', 'read,read'], '--scopes: must not repeat a scope'],
      ['a blank label', ['create-secret', '--account', '0190a5d4-0000-7000-8000-000000000000', '--label', '   '], '--label: must be a non-empty string'],
      ['a blank account name', ['create-account', '--name', ' '], '--name: must be a non-empty string'],
      ['an app slug where an id is needed', ['rotate-key', '--app', 'shop'], 'Give the app by its id'],
    ] as const)('exits 2 for %s, with the reason on stderr', async ([, args, message], { expect }) => {
      const res = await cli([...args], env);
      expect(res.code).toBe(2);
      expect(res.stderr).toContain(message);
      expect(res.stdout).toBe('');
    });
  });

  describe('create-account', () => {
    it('prints the account and a working client secret once, and nothing secret on stderr', async () => {
      const res = await cli(['create-account', '--name', 'Acme Ltd', '--label', 'ops laptop'], env);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toContain('Created account "Acme Ltd"');
      const secret = secretIn(res.stdout);
      expect(secret).not.toBe('');
      expect(res.stdout.split(secret)).toHaveLength(2);
      expect(res.stderr).not.toContain(secret);

      const listed = await request('GET', '/v1/client-secrets', bearer(secret));
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual([expect.objectContaining({ id: field(res.stdout, 'secret id'), label: 'ops laptop', scopes: ['read', 'write'] })]);
    });

    it('honours --scopes', async () => {
      const { secret } = await createAccount('Read Only Inc', ['--scopes', 'read']);
      expect((await request('GET', '/v1/client-secrets', bearer(secret))).status).toBe(200);
      expect((await request('POST', '/v1/client-secrets', bearer(secret), { label: 'x' })).status).toBe(403);
    });
  });

  describe('--json', () => {
    it('prints what create-account made as JSON, with a client secret that works', async () => {
      const res = await cli(['create-account', '--name', 'Json Corp', '--scopes', 'read', '--json'], env);
      expect(res.code, res.stderr).toBe(0);
      const created = JSON.parse(res.stdout) as { account: { id: string; name: string }; secret: { id: string; label: string; scopes: string[] }; clientSecret: string };
      expect(created).toEqual({
        account: { id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Json Corp' },
        secret: { id: expect.stringMatching(/^[0-9a-f-]{36}$/), label: 'initial', scopes: ['read'] },
        clientSecret: expect.stringMatching(/^svc_cs_/),
      });
      const listed = await request('GET', '/v1/client-secrets', bearer(created.clientSecret));
      expect(listed.body).toEqual([expect.objectContaining({ id: created.secret.id, scopes: ['read'] })]);
    });

    it('reports a refused operation as JSON on stderr, exit 1', async () => {
      const res = await cli(['revoke-secret', '--id', '0190a5d4-0000-7000-8000-000000000000', '--json'], env);
      expect(res.code).toBe(1);
      expect(res.stdout).toBe('');
      expect(JSON.parse(res.stderr)).toEqual({ error: { kind: 'failed', message: expect.stringContaining('No client secret with id') } });
    });
  });

  describe('list-accounts and list-secrets', () => {
    it('list every account and the secrets of one, revoked ones marked, never a secret value', async () => {
      const owner = await createAccount('Lister');
      const second = await cli(['create-secret', '--account', owner.accountId, '--label', 'ci runner', '--scopes', 'write'], env);
      const secondId = field(second.stdout, 'secret id');
      expect((await cli(['revoke-secret', '--id', secondId], env)).code).toBe(0);

      const accounts = await cli(['list-accounts', '--json'], env);
      expect(accounts.code, accounts.stderr).toBe(0);
      const listed = (JSON.parse(accounts.stdout) as { accounts: Array<{ id: string; name: string; createdAt: string; activeSecrets: number }> }).accounts;
      expect(listed.find((a) => a.id === owner.accountId)).toEqual({ id: owner.accountId, name: 'Lister', createdAt: expect.any(String), activeSecrets: 1 });
      // Oldest first.
      const created = listed.map((a) => a.createdAt);
      expect(created).toEqual([...created].sort());
      const table = await cli(['list-accounts'], env);
      expect(table.stdout).toMatch(/^ACCOUNT ID\s+CREATED\s+SECRETS\s+NAME$/m);
      expect(table.stdout).toMatch(new RegExp(`^${owner.accountId}\\s+\\S+\\s+1\\s+Lister$`, 'm'));

      const secrets = await cli(['list-secrets', '--account', owner.accountId, '--json'], env);
      expect(secrets.code, secrets.stderr).toBe(0);
      const body = JSON.parse(secrets.stdout) as { accountId: string; secrets: Array<Record<string, unknown>> };
      expect(body.accountId).toBe(owner.accountId);
      expect(body.secrets).toEqual([
        expect.objectContaining({ id: owner.secretId, label: 'initial', scopes: ['read', 'write'], revokedAt: null }),
        expect.objectContaining({ id: secondId, label: 'ci runner', scopes: ['write'], revokedAt: expect.any(String) }),
      ]);
      const plain = await cli(['list-secrets', '--account', owner.accountId], env);
      expect(plain.stdout).toMatch(new RegExp(`^${secondId}\\s.*\\sci runner$`, 'm'));
      for (const output of [secrets.stdout, plain.stdout, accounts.stdout, table.stdout]) {
        expect(output).not.toContain(owner.secret);
        expect(output).not.toContain(secretIn(second.stdout));
      }
    });

    it('exits 1 for an unknown account', async () => {
      const res = await cli(['list-secrets', '--account', '0190a5d4-0000-7000-8000-000000000000'], env);
      expect(res.code).toBe(1);
      expect(res.stderr).toContain('Account not found');
    });
  });

  describe('create-secret', () => {
    it('adds a secret with the given label and scopes to the account', async () => {
      const owner = await createAccount('Secret Holder');
      const res = await cli(['create-secret', '--account', owner.accountId, '--label', 'reader', '--scopes', 'read'], env);
      expect(res.code, res.stderr).toBe(0);
      const reader = secretIn(res.stdout);

      const listed = await request('GET', '/v1/client-secrets', bearer(reader));
      expect(listed.status).toBe(200);
      expect(listed.body.map((s: any) => [s.label, s.scopes])).toEqual([
        ['initial', ['read', 'write']],
        ['reader', ['read']],
      ]);
      expect((await request('POST', '/v1/client-secrets', bearer(reader), { label: 'x' })).status).toBe(403);
    });

    it('exits 1 for an unknown account', async () => {
      const res = await cli(['create-secret', '--account', '0190a5d4-0000-7000-8000-000000000000', '--label', 'x'], env);
      expect(res.code).toBe(1);
      expect(res.stderr).toContain('Account not found');
      expect(res.stdout).toBe('');
    });
  });

  describe('revoke-secret', () => {
    it('revokes a secret the running service has just accepted: refused on the very next request', async () => {
      const owner = await createAccount('Revoker');
      const second = await cli(['create-secret', '--account', owner.accountId, '--label', 'to revoke'], env);
      const secret = secretIn(second.stdout);
      for (let i = 0; i < 3; i++) expect((await request('GET', '/v1/client-secrets', bearer(secret))).status).toBe(200);

      const res = await cli(['revoke-secret', '--id', field(second.stdout, 'secret id')], env);
      expect(res.code, res.stderr).toBe(0);
      expect(res.stdout).toContain('Revoked client secret');

      expect((await request('GET', '/v1/client-secrets', bearer(secret))).status).toBe(401);
      expect((await request('GET', '/v1/client-secrets', bearer(owner.secret))).status).toBe(200);

      const again = await cli(['revoke-secret', '--id', field(second.stdout, 'secret id')], env);
      expect(again.code).toBe(0);
      expect(again.stdout).toContain('was already revoked');
    });

    it("exits 1 rather than revoke an account's last active secret", async () => {
      const owner = await createAccount('Last One');
      const res = await cli(['revoke-secret', '--id', owner.secretId], env);
      expect(res.code).toBe(1);
      expect(res.stderr).toContain('last active client secret');
      expect((await request('GET', '/v1/client-secrets', bearer(owner.secret))).status).toBe(200);
    });

    it('exits 1 for an unknown id', async () => {
      const res = await cli(['revoke-secret', '--id', '0190a5d4-0000-7000-8000-000000000000'], env);
      expect(res.code).toBe(1);
      expect(res.stderr).toContain('No client secret with id');
    });
  });

  describe('rotate-key', () => {
    it('prints a new working key once; the old key is refused on the very next request', async () => {
      const owner = await createAccount('Key Owner');
      const created = await request('POST', '/v1/apps', bearer(owner.secret), { name: 'Shop' });
      expect(created.status).toBe(201);
      const oldKey = created.body.apiKey as string;
      const event = { event: 'cli.rotation' };
      expect((await request('POST', '/v1/ingest', { 'x-api-key': oldKey }, event)).status).toBe(202);

      const res = await cli(['rotate-key', '--app', created.body.app.id], env);
      expect(res.code, res.stderr).toBe(0);
      const newKey = /^(svc_live_[A-Za-z0-9_-]{43})$/m.exec(res.stdout)?.[1] ?? '';
      expect(newKey).not.toBe('');
      expect(newKey).not.toBe(oldKey);
      expect(res.stderr).not.toContain(newKey);

      expect((await request('POST', '/v1/ingest', { 'x-api-key': oldKey }, event)).status).toBe(401);
      expect((await request('POST', '/v1/ingest', { 'x-api-key': newKey }, event)).status).toBe(202);
      const app = await request('GET', `/v1/apps/${created.body.app.id}`, bearer(owner.secret));
      expect(app.body.apiKeyPrefix).toBe(newKey.slice(0, 12));
    });

    it('exits 1 for an unknown app', async () => {
      const res = await cli(['rotate-key', '--app', '0190a5d4-0000-7000-8000-000000000000'], env);
      expect(res.code).toBe(1);
      expect(res.stderr).toContain('Resource not found');
    });
  });

  describe('failures', () => {
    it('exits 1 from migrate while the embedded service holds the data directory, and says why', async () => {
      const res = await cli(['migrate'], env);
      expect(res.code).toBe(1);
      expect(res.stderr).toContain('stop the service first');
    });

    it('exits 1 on invalid configuration', async () => {
      const res = await cli(['create-account', '--name', 'x'], { ...env, KAFKA_BROKERS: '127.0.0.1:9092' });
      expect(res.code).toBe(1);
      expect(res.stderr).toContain('CLICKHOUSE_URL: required when KAFKA_BROKERS is set');
    });
  });
});
