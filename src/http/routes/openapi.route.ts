import { z } from 'zod';
import { buildOpenApiDocument } from '../openapi.js';
import { defineRoute, type AnyRoute } from '../route.js';

/** `GET /v1/openapi.json`: public, built once from the same declarations the server mounts. */
export function openApiRoute(routes: readonly AnyRoute[], version: string): AnyRoute {
  let document: unknown;
  const self = defineRoute({
    method: 'get',
    path: '/v1/openapi.json',
    operationId: 'getOpenApiDocument',
    summary: 'This API described in OpenAPI 3.1',
    description: 'This document: every operation, its parameters, bodies, answers and errors, as JSON. Public, no credentials needed.',
    tags: ['meta'],
    auth: 'none',
    responses: { 200: { description: 'The OpenAPI document', schema: z.record(z.string(), z.unknown()) } },
    handler: () => {
      document ??= buildOpenApiDocument([...routes, self], { version });
      return Promise.resolve({ status: 200, body: document });
    },
  });
  return self;
}
