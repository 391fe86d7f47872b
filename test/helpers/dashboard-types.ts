import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import type { OpenAPI3 } from 'openapi-typescript';
import type { ApiDeps } from '../../src/http/routes/api-deps.js';
import { v1Routes } from '../../src/http/routes/v1.js';

/**
 * The dashboard's view of the `/v1` API's JSON, generated from the OpenAPI document the service serves
 * (`GET /v1/openapi.json`), so that it cannot drift from what the server validates and answers. The
 * dashboard may not import server code (an ESLint rule), so its types come from the document, as any
 * other client's would. `npm run dashboard:types` writes the file; test/unit/dashboard-types.test.ts
 * fails when the committed file is not what the current route declarations give.
 */
export const DASHBOARD_TYPES_FILE = fileURLToPath(new URL('../../src/dashboard/api/openapi.gen.ts', import.meta.url));
/**
 * The client library's types (clients/js), made the same way from the part of the document it uses:
 * the ingest operation and the schemas it names. The package ships on its own, so it carries them.
 */
export const CLIENT_TYPES_FILE = fileURLToPath(new URL('../../clients/js/src/api-types.ts', import.meta.url));

const HEADER = `/**
 * Generated from GET /v1/openapi.json by \`npm run dashboard:types\` (openapi-typescript); do not edit.
 * test/unit/dashboard-types.test.ts fails when this file is behind the route declarations.
 */
`;

/**
 * The document as \`GET /v1/openapi.json\` serves it. Route factories only keep their dependencies for
 * their handlers, which describing the routes never runs, so the declarations are built without any.
 */
export async function v1OpenApiDocument(): Promise<OpenAPI3> {
  const describeOnly = {} as ApiDeps;
  const route = v1Routes(describeOnly).find((r) => r.operationId === 'getOpenApiDocument');
  if (!route) throw new Error('no route serves the OpenAPI document');
  const result = await route.handler({ params: undefined, query: undefined, body: undefined, principal: null, headers: {}, rawBody: undefined, notes: {} });
  return result.body as OpenAPI3;
}

/** The text of src/dashboard/api/openapi.gen.ts (and of the client library's copy) for the current route declarations. */
export async function renderDashboardTypes(): Promise<string> {
  const ast = await openapiTS(await v1OpenApiDocument(), { immutable: true });
  return HEADER + astToString(ast);
}

const CLIENT_HEADER = `/**
 * Generated from the ingest operation of GET /v1/openapi.json by \`npm run dashboard:types\` in the
 * service's repository (openapi-typescript); do not edit.
 */
`;

/** The text of clients/js/src/api-types.ts: the ingest operation and every schema it refers to. */
export async function renderClientTypes(): Promise<string> {
  const document = await v1OpenApiDocument();
  const paths = { '/v1/ingest': document.paths!['/v1/ingest']! };
  const schemas = document.components!.schemas!;
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    const text = JSON.stringify(node);
    for (const [, name] of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      if (used.has(name!)) continue;
      used.add(name!);
      visit(schemas[name!]);
    }
  };
  visit(paths);
  const trimmed = { ...document, paths, components: { ...document.components, schemas: Object.fromEntries([...used].sort().map((name) => [name, schemas[name]!])) } };
  return CLIENT_HEADER + astToString(await openapiTS(trimmed, { immutable: true }));
}

export function committedDashboardTypes(file = DASHBOARD_TYPES_FILE): string {
  return readFileSync(file, 'utf8');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [file, types] of [[DASHBOARD_TYPES_FILE, await renderDashboardTypes()], [CLIENT_TYPES_FILE, await renderClientTypes()]] as const) {
    writeFileSync(file, types);
    process.stdout.write(`wrote ${file}\n`);
  }
}
