import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../helpers/api-assertions.js';
import { apiWithAccount } from '../helpers/api-harness.js';
import { waitFor } from '../helpers/service-process.js';
import { uniqueName } from '../helpers/stack-env.js';

const run = promisify(execFile);

/**
 * Clients generated from the document the service serves, as adopting teams make them, each compiled
 * and then run against the real service (it ingests an event with nothing but its required fields
 * and reads it back):
 * - openapi-typescript's types with openapi-fetch, compiled by tsc in strict mode (a defaulted request
 *   field made required fails the compile);
 * - openapi-generator's Java client (the `native` library, java.net.http and Jackson), the generator
 *   and the client's dependencies from Maven Central, compiled by Maven (an object-or-array body made
 *   it fail to compile).
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Inside the repository, so that the program resolves openapi-fetch from its node_modules.
const DIR = path.join(ROOT, 'test-artifacts', `generated-client-${process.pid}`);

/** openapi-generator from Maven Central; the version is pinned so that the generated code is too. */
const OPENAPI_GENERATOR = 'org.openapitools:openapi-generator-cli:7.16.0';

const JAVA_PROGRAM = `import eas.client.ApiClient;
import eas.client.api.EventsApi;
import eas.client.api.IngestApi;
import eas.client.model.Event;
import eas.client.model.IngestEvent;
import java.util.List;

public class Main {
  public static void main(String[] args) throws Exception {
    ApiClient ingest = new ApiClient();
    ingest.updateBaseUri(System.getenv("BASE_URL"));
    ingest.setRequestInterceptor(request -> request.header("x-api-key", System.getenv("API_KEY")));
    String id = new IngestApi(ingest).ingestEvents(List.of(new IngestEvent().event("java.client").customerId("cus_java")), "java-1").getEvents().get(0).getId();
    ApiClient reader = new ApiClient();
    reader.updateBaseUri(System.getenv("BASE_URL"));
    reader.setRequestInterceptor(request -> request.header("Authorization", "Bearer " + System.getenv("CLIENT_SECRET")));
    for (int attempt = 0; attempt < 100; attempt++) {
      for (Event event : new EventsApi(reader).listEvents(System.getenv("APP_ID"), null, null, "cus_java", null, null, 5, null).getItems()) {
        if (event.getId().equals(id)) {
          System.out.println("{\\"event\\":\\"" + event.getEvent() + "\\",\\"level\\":\\"" + event.getLevel() + "\\"}");
          return;
        }
      }
      Thread.sleep(200);
    }
    throw new IllegalStateException("the event was not readable");
  }
}
`;

const PROGRAM = `import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

const client = createClient<paths>({ baseUrl: process.env.BASE_URL! });
const ingested = await client.POST('/v1/ingest', {
  headers: { 'x-api-key': process.env.API_KEY!, 'Idempotency-Key': 'generated-1' },
  body: [{ event: 'generated.client', customer_id: 'cus_gen' }],
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
  const s = apiWithAccount('embedded');
  afterAll(() => rmSync(DIR, { recursive: true, force: true }));

  it('compiles in strict mode and ingests and reads an event against the service', { timeout: 120_000 }, async () => {
    const document = (await s.api.request('GET', '/v1/openapi.json')).body as OpenAPI3;
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

    const { app, apiKey } = await createTestApp(s.api, s.account, { name: uniqueName('generated') });
    let output = '';
    await waitFor(
      async () => {
        const result = await run(process.execPath, ['--import', 'tsx', 'client.ts'], {
          cwd: DIR,
          env: { PATH: process.env.PATH ?? '', BASE_URL: s.api.url, API_KEY: apiKey, APP_ID: app.id, CLIENT_SECRET: s.account.secret },
        });
        output = result.stdout.trim();
        return output.length > 0;
      },
      60_000,
      'the generated client to finish',
    );
    expect(JSON.parse(output)).toEqual({ status: 202, event: 'generated.client', level: 'info' });
  });

  it('generates a Java client that compiles and ingests and reads an event against the service', { timeout: 600_000 }, async () => {
    const document = (await s.api.request('GET', '/v1/openapi.json')).body as OpenAPI3;
    const dir = path.join(DIR, 'java');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(document));
    await run('mvn', ['-q', '-B', 'dependency:copy', `-Dartifact=${OPENAPI_GENERATOR}`, `-DoutputDirectory=${dir}`], { cwd: dir });
    const jar = path.join(dir, `${OPENAPI_GENERATOR.split(':')[1]}-${OPENAPI_GENERATOR.split(':')[2]}.jar`);
    const project = path.join(dir, 'client');
    await run(
      'java',
      ['-jar', jar, 'generate', '-i', path.join(dir, 'openapi.json'), '-g', 'java', '--library', 'native', '-o', project, '--additional-properties=invokerPackage=eas.client,apiPackage=eas.client.api,modelPackage=eas.client.model,hideGenerationTimestamp=true'],
      { cwd: dir, maxBuffer: 64 * 1024 * 1024 },
    );
    writeFileSync(path.join(project, 'src/main/java/Main.java'), JAVA_PROGRAM);
    const compiled = await run('mvn', ['-q', '-B', '-DskipTests', 'compile', 'dependency:build-classpath', '-Dmdep.outputFile=classpath.txt'], { cwd: project, maxBuffer: 64 * 1024 * 1024 }).catch(
      (err: Error & { stdout?: string }) => ({ stdout: err.stdout ?? err.message, failed: true }),
    );
    expect(compiled, compiled.stdout).not.toHaveProperty('failed');

    const { app, apiKey } = await createTestApp(s.api, s.account, { name: uniqueName('generated-java') });
    const classpath = `${path.join(project, 'target/classes')}:${readFileSync(path.join(project, 'classpath.txt'), 'utf8').trim()}`;
    const result = await run('java', ['-cp', classpath, 'Main'], { cwd: project, env: { PATH: process.env.PATH ?? '', BASE_URL: s.api.url, API_KEY: apiKey, APP_ID: app.id, CLIENT_SECRET: s.account.secret } });
    expect(JSON.parse(result.stdout.trim())).toEqual({ event: 'java.client', level: 'info' });
  });
});
