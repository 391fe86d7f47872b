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

/** The text of src/dashboard/api/openapi.gen.ts for the current route declarations. */
export async function renderDashboardTypes(): Promise<string> {
  const ast = await openapiTS(await v1OpenApiDocument(), { immutable: true });
  return HEADER + astToString(ast);
}

export function committedDashboardTypes(): string {
  return readFileSync(DASHBOARD_TYPES_FILE, 'utf8');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(DASHBOARD_TYPES_FILE, await renderDashboardTypes());
  process.stdout.write(`wrote ${DASHBOARD_TYPES_FILE}\n`);
}
