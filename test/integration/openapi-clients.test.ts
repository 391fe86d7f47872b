import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/api-assertions.js';
import { startApi, type ApiHarness, type TestAccount } from '../helpers/api-harness.js';
import { waitFor } from '../helpers/service-process.js';
import { uniqueName } from '../helpers/stack-env.js';

const run = promisify(execFile);

/**
 * A client generated from the document the service serves, as an adopting team would make one:
 * openapi-typescript's types with openapi-fetch, compiled by tsc in strict mode (a defaulted request
 * field made required, or a body the types cannot express, fails the compile), then run against the
 * real service: it ingests an event with nothing but its required fields and reads it back.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Inside the repository, so that the program resolves openapi-fetch from its node_modules.
const DIR = path.join(ROOT, 'test-artifacts', `generated-client-${process.pid}`);

const PROGRAM = `import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

const client = createClient<paths>({ baseUrl: process.env.BASE_URL! });
const ingested = await client.POST('/v1/ingest', {
  headers: { 'x-api-key': process.env.API_KEY!, 'Idempotency-Key': 'generated-1' },
  body: { event: 'generated.client', customer_id: 'cus_gen' },
});
if (ingested.error !== undefined) throw new Error(ingested.error.message);
const id: string = ingested.data.events[0]!.id;

for (let attempt = 0; attempt < 100; attempt++) {
  const read = await client.GET('/v1/apps/{appId}/events', {
    params: { path: { appId: process.env.APP_ID! }, query: { customer_id: 'cus_gen', limit: 5 } },
    headers: { authorization: \`Bearer \${process.env.CLIENT_SECRET!}\` },
  });
  const found = read.data?.items.find((event) => event.id === id);
  if (found !== undefined) {
    console.log(JSON.stringify({ status: ingested.response.status, event: found.event, level: found.level }));
    process.exit(0);
  }
  await new Promise((resolve) => setTimeout(resolve, 200));
}
throw new Error('the event was not readable');
`;

describe('a client generated from the OpenAPI document (openapi-typescript + openapi-fetch)', () => {
  let api: ApiHarness;
  let account: TestAccount;

  beforeAll(async () => {
    api = await startApi('embedded');
    account = await api.newAccount();
  });
  afterAll(async () => {
    await api?.stop();
    rmSync(DIR, { recursive: true, force: true });
  });

  it('compiles in strict mode and ingests and reads an event against the service', { timeout: 120_000 }, async () => {
    const document = (await api.request('GET', '/v1/openapi.json')).body as OpenAPI3;
    mkdirSync(DIR, { recursive: true });
    writeFileSync(path.join(DIR, 'schema.ts'), astToString(await openapiTS(document)));
    writeFileSync(path.join(DIR, 'client.ts'), PROGRAM);
    writeFileSync(
      path.join(DIR, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', skipLibCheck: false, types: ['node'] }, include: ['*.ts'] }),
    );
    writeFileSync(path.join(DIR, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    const compiled = await run(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', DIR], { cwd: DIR }).catch((err: Error & { stdout?: string }) => ({ stdout: err.stdout ?? err.message, failed: true }));
    expect(compiled, compiled.stdout).not.toHaveProperty('failed');

    const { app, apiKey } = await createTestApp(api, account, { name: uniqueName('generated') });
    let output = '';
    await waitFor(
      async () => {
        const result = await run(process.execPath, ['--import', 'tsx', 'client.ts'], {
          cwd: DIR,
          env: { PATH: process.env.PATH ?? '', BASE_URL: api.url, API_KEY: apiKey, APP_ID: app.id, CLIENT_SECRET: account.secret },
        });
        output = result.stdout.trim();
        return output.length > 0;
      },
      60_000,
      'the generated client to finish',
    );
    expect(JSON.parse(output)).toEqual({ status: 202, event: 'generated.client', level: 'info' });
  });
});
