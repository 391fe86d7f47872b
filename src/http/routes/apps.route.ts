import { z } from 'zod';
import { SLUG_PATTERN, isValidSlug } from '../../domain/slug.js';
import { defineRoute, idOnlyView, paginationQuery, type AnyRoute } from '../route.js';
import { appParams } from './app-params.js';
import { displayNameSchema } from './display-name.js';
import type { ApiDeps } from './api-deps.js';

const nameSchema = displayNameSchema;

const slugSchema = z
  .string({ error: 'must be a string' })
  .regex(SLUG_PATTERN, 'must be 1–63 lower-case letters, digits or hyphens, starting with a letter or digit')
  // Only for a slug of the right form: one that breaks the pattern already has its message.
  .refine((value) => !SLUG_PATTERN.test(value) || isValidSlug(value), 'must not have the form of a UUID (a path would read it as an app id)')
  .describe('URL-friendly identifier, unique within the account: `^[a-z0-9][a-z0-9-]{0,62}$`, not a UUID');

export const appSchema = z
  .object({
    id: z.uuid(),
    accountId: z.string(),
    name: z.string(),
    slug: z.string(),
    apiKeyPrefix: z.string().describe('The first 12 characters of the current API key'),
    apiKeyHint: z.string().describe('The masked key: its prefix followed by an ellipsis'),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'App', description: 'An app: one event namespace with one active API key. The full key is never part of it.' });

const appWithKeySchema = z
  .object({
    app: appSchema,
    apiKey: z.string().describe('The full API key (`svc_live_…`). Shown only in this response; store it now.'),
  })
  .meta({ id: 'AppWithApiKey' });

const createBody = z.strictObject({
  name: nameSchema,
  slug: slugSchema.optional().describe('Generated from the name when omitted (made unique with a numeric suffix)'),
});

const updateBody = z.strictObject({
  name: nameSchema.optional(),
  slug: slugSchema.optional().describe('New slug; the old one stops resolving at once'),
});

/** What a write-only secret gets of a created or rotated app: the id and the key it made. */
const appWithKeyView = z.object({ app: idOnlyView, apiKey: z.string() });

/** Apps: create, list, read, update, delete, and rotate the API key (under two paths). */
export function appRoutes(deps: ApiDeps): AnyRoute[] {
  const rotate = (path: string, operationId: string, summary: string): AnyRoute =>
    defineRoute({
      method: 'post',
      path,
      operationId,
      summary,
      description: 'A new key becomes the only active key and is returned once; the old key fails with 401 from this response on, on every API process.',
      tags: ['apps'],
      auth: 'client',
      params: appParams,
      responses: { 200: { description: 'The app and its new full API key', schema: appWithKeySchema } },
      writeOnlyView: appWithKeyView,
      handler: async ({ params, principal }) => ({ status: 200, body: await deps.services.appKeys.rotate(principal.accountId, params.appId) }),
    });

  return [
    defineRoute({
      method: 'post',
      path: '/v1/apps',
      operationId: 'createApp',
      summary: 'Create an app',
      description: 'The app gets a slug (from its name unless given) and an API key (`svc_live_…`) for `POST /v1/ingest`. The full key is in this response only: the service keeps a digest of it.',
      tags: ['apps'],
      auth: 'client',
      body: createBody,
      responses: { 201: { description: 'The app and its full API key, shown this once', schema: appWithKeySchema } },
      writeOnlyView: appWithKeyView,
      handler: async ({ body, principal }) => ({ status: 201, body: await deps.services.apps.create(principal.accountId, body) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/apps',
      operationId: 'listApps',
      summary: "List the account's apps, oldest first",
      description: 'Every app of the account the client secret belongs to, in pages of `limit` from `offset`, oldest first. API keys are never listed: each app shows only the first characters of its key.',
      tags: ['apps'],
      auth: 'client',
      query: paginationQuery,
      responses: { 200: { description: 'A page of apps', schema: z.array(appSchema) } },
      handler: async ({ query, principal }) => ({ status: 200, body: await deps.services.apps.list(principal.accountId, query) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/apps/{appId}',
      operationId: 'getApp',
      summary: 'Read one app',
      description: 'One app of the account, named by its id or its slug. Its API key shows only as its first characters.',
      tags: ['apps'],
      auth: 'client',
      params: appParams,
      responses: { 200: { description: 'The app', schema: appSchema } },
      handler: async ({ params, principal }) => ({ status: 200, body: await deps.services.apps.get(principal.accountId, params.appId) }),
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/apps/{appId}',
      operationId: 'updateApp',
      summary: 'Rename an app or change its slug',
      description: 'Renaming keeps the slug; only an explicit `slug` changes it.',
      tags: ['apps'],
      auth: 'client',
      params: appParams,
      body: updateBody,
      responses: { 200: { description: 'The updated app', schema: appSchema } },
      writeOnlyView: idOnlyView,
      handler: async ({ params, body, principal }) => ({ status: 200, body: await deps.services.apps.update(principal.accountId, params.appId, body) }),
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/apps/{appId}',
      operationId: 'deleteApp',
      summary: 'Delete an app with its key, schemas, rules, destinations and events',
      description: 'Deletes the app and everything that belongs to it: its API key (refused with 401 from the answer on), schemas, notification rules, destinations and stored events. Cannot be undone.',
      tags: ['apps'],
      auth: 'client',
      params: appParams,
      responses: { 204: { description: 'Deleted; its API key fails with 401 from now on' } },
      handler: async ({ params, principal }) => {
        await deps.services.apps.delete(principal.accountId, params.appId);
        return { status: 204 };
      },
    }),
    rotate('/v1/apps/{appId}/keys/rotate', 'rotateAppKey', "Rotate the app's API key"),
    rotate('/v1/apps/{appId}/rotate-key', 'rotateAppKeyAlternatePath', "Rotate the app's API key (the same operation at a second path, kept for clients that use it)"),
  ];
}
