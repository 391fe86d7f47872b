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
  415: 'Body not JSON, or in a charset other than UTF-8, or in a content encoding other than gzip, deflate or br',
  429: 'Rate limited; see Retry-After',
  500: 'Unexpected internal failure',
  502: 'The receiver refused or failed the delivery; `message` says why',
  503: 'A dependency is unavailable; retry after Retry-After',
};

type JsonSchema = Record<string, unknown>;

/** Every tag an operation may carry, each described; one style: lowercase, words joined by hyphens. */
export const API_TAGS: Readonly<Record<string, string>> = {
  ingest: 'Sending events: `POST /v1/ingest` with an app API key',
  events: "Reading an app's events back: pages, single events, counts over time and top values",
  apps: 'Apps, their API keys and default metadata',
  schemas: 'Event schemas: what the events of one name must carry',
  'notification-rules': 'Rules that turn matching events, or their absence, into alerts',
  destinations: 'Where alerts go: webhooks, Slack, Discord and e-mail',
  deliveries: 'Each alert sent to a destination, with its attempts',
  'client-secrets': "The account's client secrets, the credentials of every request but ingest",
  meta: 'This document',
};

/**
 * Response headers a client needs to pace itself: the per-account budget (draft-ietf-httpapi-ratelimit-
 * headers) on every answer to an authenticated request while the rate limiter answers, and when to try
 * again after a 429 or a 503.
 */
const HEADERS: Readonly<Record<string, JsonSchema>> = {
  'RateLimit-Policy': {
    description: 'The account\'s budget: `"default";q=<requests>;w=<window seconds>`. Absent while the rate limiter is unreachable (requests are then served unchecked).',
    schema: { type: 'string' },
  },
  RateLimit: { description: 'What is left of the budget: `"default";r=<remaining>;t=<seconds until the window resets>`', schema: { type: 'string' } },
  'Retry-After': { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 0 } },
};
/** A body in a binary encoding (OTLP's protobuf), described by the operation's text. */
const BINARY: JsonSchema = { type: 'string', format: 'binary' };

const header = (name: string): JsonSchema => ({ $ref: `#/components/headers/${name}` });
const RATE_LIMIT_HEADERS = { 'RateLimit-Policy': header('RateLimit-Policy'), RateLimit: header('RateLimit') };

/** The `Idempotency-Key` request header of the ingest operations. */
const IDEMPOTENCY_KEY: JsonSchema = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry safe: a repeat of the same body under the same key within 24 hours gets the first answer back and stores nothing new; the same key with another body, or while its first request is still being answered, is a 409. 1 to 255 printable ASCII characters; use one key per batch of events.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

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
  if (io === 'input') defaultsAsText(rewritten);
  delete rewritten.$schema;
  for (const [id, def] of Object.entries(rewritten.$defs ?? {})) components[id] = def;
  delete rewritten.$defs;
  return rewritten;
}

/**
 * A request field with a default may be left out: it is not `required`. Client generators read a
 * `default` otherwise, though (openapi-typescript makes such a field required in the type a client must
 * fill in), so in request schemas each default is said in the field's description instead.
 */
function defaultsAsText(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) defaultsAsText(item);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const schema = node as JsonSchema;
  if ('default' in schema) {
    const said = `Default: \`${JSON.stringify(schema.default)}\`.`;
    schema.description = typeof schema.description === 'string' ? `${schema.description.replace(/\.$/, '')}. ${said}` : said;
    delete schema.default;
  }
  for (const value of Object.values(schema)) defaultsAsText(value);
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

/** A body in each media type the route reads (JSON unless its body reader says more): JSON by `schema`, the others binary. */
function contentOf(route: AnyRoute, schema: JsonSchema): JsonSchema {
  const mediaTypes = route.bodyReader?.mediaTypes ?? ['application/json'];
  return Object.fromEntries(mediaTypes.map((type) => [type, { schema: type === 'application/json' ? schema : BINARY }]));
}

function responses(route: AnyRoute, components: Record<string, JsonSchema>): JsonSchema {
  const out: JsonSchema = {};
  const limited = route.auth !== 'none';
  for (const [status, spec] of Object.entries<ResponseSpec>(route.responses)) {
    const description = route.writeOnlyView && spec.schema ? `${spec.description}. ${writeOnlyNote(route.writeOnlyView)}` : spec.description;
    out[status] = {
      description,
      ...(limited ? { headers: RATE_LIMIT_HEADERS } : {}),
      // A route reading other media types answers in the request's.
      ...(spec.schema ? { content: contentOf(route, toJsonSchema(spec.schema, 'output', components)) } : {}),
    };
  }
  // Authenticated requests reach the stores: any of them may find one unavailable (503).
  const errors = [400, 500, ...(limited ? [401, 429, 503] : []), ...(route.auth === 'client' ? [403] : []), ...(route.path.includes('{') ? [404] : []), ...(route.body ? [413, 415] : [])];
  if (route.method === 'post' || route.method === 'patch' || route.method === 'put') errors.push(409);
  errors.push(...(route.errors ?? []));
  for (const status of [...new Set(errors)].sort()) {
    const headers = status === 429 ? { ...RATE_LIMIT_HEADERS, 'Retry-After': header('Retry-After') } : status === 503 ? { 'Retry-After': header('Retry-After') } : undefined;
    out[String(status)] = { description: ERROR_RESPONSES[status], ...(headers ? { headers } : {}), content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
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
      parameters: [...parameters(route, components), ...(route.ingest ? [IDEMPOTENCY_KEY] : [])],
      responses: responses(route, components),
    };
    if (route.body) {
      operation.requestBody = { required: true, content: contentOf(route, toJsonSchema((route.documentedBody ?? route.body) as z.ZodType, 'input', components)) };
    }
    (paths[route.path] ??= {})[route.method] = operation;
    for (const tag of route.tags) if (API_TAGS[tag] === undefined) throw new Error(`${route.operationId}: tag ${tag} is not one of API_TAGS`);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Event alerting service',
      version: info.version,
      description: 'Ingest application events, read them back, and raise alerts through notification rules.',
      license: { name: 'MIT', identifier: 'MIT' },
      contact: { name: 'The event alerting service maintainers' },
    },
    tags: Object.entries(API_TAGS).map(([name, description]) => ({ name, description })),
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: components,
      headers: HEADERS,
      securitySchemes: {
        clientSecret: { type: 'http', scheme: 'bearer', description: 'A client secret (`svc_cs_…`), for management' },
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'An app API key (`svc_live_…`), for ingestion only' },
      },
    },
  };
}
