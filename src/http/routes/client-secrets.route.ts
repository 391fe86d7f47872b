import { z } from 'zod';
import { defineRoute, idOnlyView, paginationQuery, type AnyRoute } from '../route.js';
import {
  CLIENT_SECRET_SCOPES,
  clientSecretLabel,
  clientSecretScopes,
} from '../../services/client-secrets.service.js';
import type { ApiDeps } from './api-deps.js';

const TAGS = ['client-secrets'];

const secretSchema = z
  .object({
    id: z.uuid(),
    label: z.string(),
    scopes: z.array(z.enum(CLIENT_SECRET_SCOPES)),
    hint: z.string().describe('The first 12 characters of the secret followed by an ellipsis'),
    createdAt: z.iso.datetime(),
    lastUsedAt: z.iso.datetime().nullable().describe('Recorded at most once a minute per API process'),
    revokedAt: z.iso.datetime().nullable(),
  })
  .meta({ id: 'ClientSecret', description: 'A client secret as listed: never its value' });

const createBody = z
  .object({
    label: clientSecretLabel.describe('What the secret is for; 1 to 200 characters, trimmed'),
    scopes: clientSecretScopes.optional().describe('Default: both read and write. A secret cannot grant a scope it lacks itself (403)'),
  })
  .strict();

// No component id of its own: openapi.ts rewrites `$ref`s only in a response's top-level schema, so
// a component nesting another component would keep a `#/$defs/…` reference that resolves nowhere.
const createdSchema = z.object({
  clientSecret: z.string().describe('The full secret (`svc_cs_…`); shown only in this response'),
  secret: secretSchema,
});

const idParams = z.object({ id: z.string().describe('Client secret id (UUID)') }).strict();

/** Client secrets: create, list and revoke, always inside the caller's own account. */
export function clientSecretRoutes(deps: ApiDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: '/v1/client-secrets',
      operationId: 'createClientSecret',
      summary: 'Create a client secret',
      description: 'The value is returned once, in `clientSecret`; afterwards only its `hint` is visible.',
      tags: TAGS,
      auth: 'client',
      body: createBody,
      responses: { 201: { description: 'Secret created', schema: createdSchema } },
      writeOnlyView: z.object({ clientSecret: z.string(), secret: idOnlyView }),
      async handler({ body, principal }) {
        const created = await deps.services.clientSecrets.create({
          accountId: principal.accountId,
          label: body.label,
          scopes: body.scopes ?? CLIENT_SECRET_SCOPES,
          grantedBy: principal.scopes,
        });
        return { status: 201, body: created };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/client-secrets',
      operationId: 'listClientSecrets',
      summary: "List the account's client secrets",
      description: 'Revoked secrets included (with `revokedAt`), oldest first.',
      tags: TAGS,
      auth: 'client',
      query: paginationQuery,
      responses: { 200: { description: 'Client secrets', schema: z.array(secretSchema) } },
      async handler({ query, principal }) {
        return { status: 200, body: await deps.services.clientSecrets.list(principal.accountId, query) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/client-secrets/{id}',
      operationId: 'revokeClientSecret',
      summary: 'Revoke a client secret',
      description:
        'The secret fails with 401 from the moment of the response, on every API process. Revoking an already revoked ' +
        'secret also gives 204 (DELETE is idempotent). 409 when it is the last active secret of the account. ' +
        'An id that is unknown, malformed or of another account is 404.',
      tags: TAGS,
      auth: 'client',
      params: idParams,
      responses: { 204: { description: 'Revoked' } },
      async handler({ params, principal }) {
        await deps.services.clientSecrets.revoke({ accountId: principal.accountId, secretId: params.id });
        return { status: 204 };
      },
    }),
  ];
}
