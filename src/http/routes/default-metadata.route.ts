import { z } from 'zod';
import { MAX_DEFAULT_METADATA_KEYS, MAX_METADATA_STRING_LENGTH, METADATA_KEY_PATTERN, METADATA_KEY_RULE } from '../../domain/default-metadata.js';
import { UNSTORABLE_TEXT_MESSAGE, isStorableText } from '../../domain/text.js';
import { defineRoute, type AnyRoute } from '../route.js';
import { appParams } from './app-params.js';
import type { ApiDeps } from './api-deps.js';

const VALUE_MESSAGE = `must be a string (at most ${MAX_METADATA_STRING_LENGTH} characters), a number or a boolean`;

const metadataValue = z.union([z.string().max(MAX_METADATA_STRING_LENGTH, VALUE_MESSAGE).refine(isStorableText, UNSTORABLE_TEXT_MESSAGE), z.number(), z.boolean()], {
  error: VALUE_MESSAGE,
});

export const defaultMetadataSchema = z
  .record(z.string().regex(METADATA_KEY_PATTERN), metadataValue, {
    error: (issue) => {
      if (issue.code === 'invalid_key') return `keys must be ${METADATA_KEY_RULE}`;
      if (issue.code === 'invalid_type') return 'must be an object';
      return undefined;
    },
  })
  .refine((values) => Object.keys(values).length <= MAX_DEFAULT_METADATA_KEYS, `must have at most ${MAX_DEFAULT_METADATA_KEYS} keys`)
  .meta({
    id: 'DefaultMetadata',
    description: 'Key-value pairs attached to every event the app ingests; keys sent with the event win.',
    maxProperties: MAX_DEFAULT_METADATA_KEYS,
  });

/** Default metadata of an app: read it, or replace it whole with PUT. */
export function defaultMetadataRoutes(deps: ApiDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/apps/{appId}/default-metadata',
      operationId: 'getDefaultMetadata',
      summary: "Read the app's default metadata",
      description: 'The metadata merged into every event the app ingests from then on: an event\'s own metadata wins where both name a key. `{}` when none is set.',
      tags: ['apps'],
      auth: 'client',
      params: appParams,
      responses: { 200: { description: 'The default metadata ({} when none is set)', schema: defaultMetadataSchema } },
      handler: async ({ params, principal }) => ({ status: 200, body: await deps.services.defaultMetadata.get(principal.accountId, params.appId) }),
    }),
    defineRoute({
      method: 'put',
      path: '/v1/apps/{appId}/default-metadata',
      operationId: 'replaceDefaultMetadata',
      summary: "Replace the app's default metadata",
      description: `The object becomes the whole default metadata (\`{}\` clears it): at most ${MAX_DEFAULT_METADATA_KEYS} keys; values string, number or boolean.`,
      tags: ['apps'],
      auth: 'client',
      params: appParams,
      body: defaultMetadataSchema,
      responses: { 200: { description: 'The stored default metadata', schema: defaultMetadataSchema } },
      // The stored object is the one the request sent, nothing more.
      writeOnlyView: defaultMetadataSchema,
      handler: async ({ params, body, principal }) => ({ status: 200, body: await deps.services.defaultMetadata.replace(principal.accountId, params.appId, body) }),
    }),
  ];
}
