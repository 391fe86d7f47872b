import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { generateClientSecret } from '../../src/domain/credentials.js';
import { isolatedDistributedEnv, type IsolatedDistributedEnv } from '../helpers/distributed-env.js';
import { requestJson } from '../helpers/http-json.js';
import { spawnService, startService, waitFor, type ServiceProcess } from '../helpers/service-process.js';

/**
 * The slim image leaves chDB (its engine alone is over 500 MB, and published for linux-x64 only) out
 * of node_modules. Here the service runs with chDB made impossible to find by module hooks, as there:
 * distributed mode works end to end, and embedded mode refuses to start with a message that says why.
 */
const WITHOUT_CHDB = { NODE_OPTIONS: `--import=${fileURLToPath(new URL('../helpers/without-chdb/register.mjs', import.meta.url))}` };

describe('the service without chDB installed (the slim image)', () => {
  let isolated: IsolatedDistributedEnv | undefined;
  let service: ServiceProcess | undefined;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'eas-no-chdb-'));

  afterAll(async () => {
    await service?.stop();
    await isolated?.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs distributed mode: accepts, stores and reads back events', async () => {
    isolated = await isolatedDistributedEnv('no_chdb');
    const secret = generateClientSecret();
    service = await startService({ ...isolated.env, ...WITHOUT_CHDB, BOOTSTRAP_CLIENT_SECRET: secret });
    const auth = { authorization: `Bearer ${secret}` };
    const app = await requestJson(service.url, 'POST', '/v1/apps', auth, { name: 'Slim' });
    expect(app.status, JSON.stringify(app.body)).toBe(201);
    const ingest = await requestJson(service.url, 'POST', '/v1/ingest', { 'x-api-key': app.body.apiKey }, [{ event: 'slim.one' }, { event: 'slim.two' }]);
    expect(ingest.status, JSON.stringify(ingest.body)).toBe(202);
    await waitFor(
      async () => (await requestJson(service!.url, 'GET', `/v1/apps/${app.body.app.id}/events`, auth)).body.items?.length === 2,
      30_000,
      'both events readable',
    );
    expect((await requestJson(service.url, 'GET', '/readyz', {})).status).toBe(200);
  });

  it('refuses embedded mode at start, exit 1, saying what is missing and what to do', async () => {
    const { child, output } = spawnService({ DATA_DIR: dataDir, ...WITHOUT_CHDB });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, output()).toBe(1);
    expect(output()).toContain('embedded mode needs chDB, which this installation does not have');
    expect(output()).toContain('set KAFKA_BROKERS');
  });
});
