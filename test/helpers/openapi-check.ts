import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ApiHarness } from './api-harness.js';

// ajv-formats is CommonJS with a default export; under NodeNext its namespace arrives as the default.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/**
 * Checks response bodies against the service's own OpenAPI document: the schema documented for
 * (method, path, status) must accept what the server actually sent. Response objects are generated
 * with `additionalProperties: false`, so a field that leaks into a body without being documented
 * (a key digest, say) fails here too.
 */
export interface OpenApiCheck {
  /** Throws, naming every mismatch, unless `body` matches the documented schema. */
  assertResponse(method: string, path: string, status: number, body: unknown): void;
}

const DOCUMENT_ID = 'https://event-alerting.test/openapi.json';

/** Fetches /v1/openapi.json once from `api`; call it in `beforeAll`. */
export async function openApiCheck(api: Pick<ApiHarness, 'request'>): Promise<OpenApiCheck> {
  const res = await api.request('GET', '/v1/openapi.json');
  if (res.status !== 200) throw new Error(`GET /v1/openapi.json answered ${res.status}`);
  const document = res.body as { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }>> };

  // The document is not itself a JSON Schema (it has `openapi`, `paths` …), hence strict off; the
  // `$ref`s inside it point at `#/components/schemas/…`, which resolve once it is registered whole.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(document, DOCUMENT_ID);
  const validators = new Map<string, ValidateFunction>();

  return {
    assertResponse(method, path, status, body) {
      const operation = document.paths[path]?.[method.toLowerCase()];
      if (!operation) throw new Error(`the OpenAPI document has no ${method.toUpperCase()} ${path}`);
      const response = operation.responses[String(status)];
      if (!response) throw new Error(`${method.toUpperCase()} ${path} does not document status ${status}`);
      const key = `${method} ${path} ${status}`;
      if (!response.content?.['application/json']?.schema) {
        if (body !== undefined && body !== '') throw new Error(`${key} documents no body, but one was sent: ${JSON.stringify(body)}`);
        return;
      }
      let validate = validators.get(key);
      if (!validate) {
        const pointer = ['paths', path, method.toLowerCase(), 'responses', String(status), 'content', 'application/json', 'schema']
          .map((part) => part.replaceAll('~', '~0').replaceAll('/', '~1'))
          .join('/');
        validate = ajv.compile({ $ref: `${DOCUMENT_ID}#/${pointer}` });
        validators.set(key, validate);
      }
      if (!validate(body)) {
        throw new Error(`${key}: body does not match the documented schema:\n${ajv.errorsText(validate.errors, { separator: '\n' })}\nbody: ${JSON.stringify(body)}`);
      }
    },
  };
}
