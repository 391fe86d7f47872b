import { z } from 'zod';
import type { AnyRoute, ResponseSpec } from './route.js';

/**
 * The OpenAPI 3.1 document of the `/v1` API, built from the route declarations themselves: the
 * request schemas are the zod schemas that validate requests, the response schemas the ones handlers
 * are typed against. OpenAPI 3.1 uses JSON Schema 2020-12, which is what zod emits.
 */
export const errorBodySchema = z
  .object({
    statusCode: z.number().int(),
    error: z.string().describe('HTTP status text'),
    message: z.string(),
    timestamp: z.iso.datetime(),
    path: z.string(),
    details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Error', description: 'The body of every error response' });

const ERROR_RESPONSES: Readonly<Record<number, string>> = {
  400: 'Validation error: `message` says what is wrong, `details` lists each problem',
  401: 'Credentials missing or invalid',
  403: 'Valid credentials with insufficient scope',
  404: 'Resource not found',
  409: 'Conflict with an existing resource',
  413: 'Body larger than 1 MiB',
  429: 'Rate limited; see Retry-After',
  500: 'Unexpected internal failure',
  502: 'The receiver refused or failed the delivery; `message` says why',
  503: 'A dependency is unavailable; retry after Retry-After',
};

type JsonSchema = Record<string, unknown>;

/** Converts one schema, collecting schemas that carry a `meta({ id })` into shared components. */
function toJsonSchema(schema: z.ZodType, io: 'input' | 'output', components: Record<string, JsonSchema>): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io,
    target: 'draft-2020-12',
    unrepresentable: 'any',
    reused: 'inline',
    override: (ctx) => {
      // Dates travel as ISO strings; zod's `z.date()` is only used for values we format ourselves.
      if ((ctx.zodSchema as { _zod?: { def?: { type?: string } } })._zod?.def?.type === 'date') {
        ctx.jsonSchema.type = 'string';
        ctx.jsonSchema.format = 'date-time';
      }
    },
  });
  // Rewritten before the split: a component may refer to another one (`AppWithApiKey` → `App`).
  const rewritten = JSON.parse(JSON.stringify(json).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema & { $defs?: Record<string, JsonSchema> };
  delete rewritten.$schema;
  for (const [id, def] of Object.entries(rewritten.$defs ?? {})) components[id] = def;
  delete rewritten.$defs;
  return rewritten;
}

function parameters(route: AnyRoute, components: Record<string, JsonSchema>): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const [where, schema] of [['path', route.params], ['query', route.query]] as const) {
    if (!schema) continue;
    const json = toJsonSchema(schema as z.ZodType, 'input', components) as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, property] of Object.entries(json.properties ?? {})) {
      out.push({
        name,
        in: where,
        required: where === 'path' || (json.required ?? []).includes(name),
        schema: property,
        ...(typeof property.description === 'string' ? { description: property.description } : {}),
      });
    }
  }
  return out;
}

function responses(route: AnyRoute, components: Record<string, JsonSchema>): JsonSchema {
  const out: JsonSchema = {};
  for (const [status, spec] of Object.entries<ResponseSpec>(route.responses)) {
    const description = route.writeOnlyView && spec.schema ? `${spec.description}. ${writeOnlyNote(route.writeOnlyView)}` : spec.description;
    out[status] = spec.schema
      ? { description, content: { 'application/json': { schema: toJsonSchema(spec.schema, 'output', components) } } }
      : { description };
  }
  const errors = [400, 500, ...(route.auth === 'none' ? [] : [401, 429]), ...(route.auth === 'client' ? [403] : []), ...(route.path.includes('{') ? [404] : []), ...(route.body ? [413] : [])];
  if (route.method === 'post' || route.method === 'patch' || route.method === 'put') errors.push(409);
  errors.push(...(route.errors ?? []));
  for (const status of errors.sort()) {
    out[String(status)] = { description: ERROR_RESPONSES[status], content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  }
  return out;
}

/** Which fields a write-only client secret gets, read off the view's schema: `app.id, apiKey`. */
function writeOnlyNote(view: z.ZodType): string {
  const fields = (schema: z.ZodType, prefix: string): string[] =>
    schema instanceof z.ZodObject ? Object.entries(schema.shape as Record<string, z.ZodType>).flatMap(([key, value]) => fields(unwrapped(value), `${prefix}${key}.`)) : [prefix.slice(0, -1)];
  const unwrapped = (schema: z.ZodType): z.ZodType => (schema instanceof z.ZodOptional ? (schema.unwrap() as z.ZodType) : schema);
  return `A client secret without the \`read\` scope gets only ${fields(view, '').map((f) => `\`${f}\``).join(', ')}`;
}

export function buildOpenApiDocument(routes: readonly AnyRoute[], info: { version: string }): JsonSchema {
  const components: Record<string, JsonSchema> = {};
  // Registers `Error` (it carries a meta id) in components; the returned `$ref` is not needed here.
  toJsonSchema(errorBodySchema, 'output', components);
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const route of routes) {
    const operation: JsonSchema = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: [...route.tags],
      security: route.auth === 'client' ? [{ clientSecret: [] }] : route.auth === 'api_key' ? [{ apiKey: [] }] : [],
      parameters: parameters(route, components),
      responses: responses(route, components),
    };
    if (route.body) {
      operation.requestBody = { required: true, content: { 'application/json': { schema: toJsonSchema(route.body as z.ZodType, 'input', components) } } };
    }
    (paths[route.path] ??= {})[route.method] = operation;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Event alerting service',
      version: info.version,
      description: 'Ingest application events, read them back, and raise alerts through notification rules.',
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        clientSecret: { type: 'http', scheme: 'bearer', description: 'A client secret (`svc_cs_…`), for management' },
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'An app API key (`svc_live_…`), for ingestion only' },
      },
    },
  };
}
