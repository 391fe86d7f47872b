import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiHarness } from '../helpers/api-harness.js';

/** The document is generated from the route declarations; a real OpenAPI 3.1 validator checks it. */
describe('GET /v1/openapi.json', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi('embedded');
  });
  afterAll(async () => {
    await api.stop();
  });

  it('serves a valid OpenAPI 3.1 document without authentication', async () => {
    const res = await api.request('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    const result = await new Validator().validate(res.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('describes itself and the standard error body', async () => {
    const { body } = await api.request('GET', '/v1/openapi.json');
    expect(body.paths['/v1/openapi.json'].get.operationId).toBe('getOpenApiDocument');
    expect(body.components.schemas.Error.required).toEqual(expect.arrayContaining(['statusCode', 'error', 'message', 'timestamp', 'path']));
  });
});
