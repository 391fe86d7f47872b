import { z } from 'zod';
import { defineRoute, idOnlyView, paginationQuery, type AnyRoute } from '../route.js';
import { appIdParam, appParams } from './app-params.js';
import { displayNameSchema } from './display-name.js';
import type { ApiDeps } from './api-deps.js';
import { CHANNELS } from '../../domain/alerting.js';

const URL_TYPES = CHANNELS.filter((c) => c !== 'email');
const MAX_URL_LENGTH = 2048;

/**
 * Any http(s) URL: no host allow-list, since self-hosted Slack-compatible receivers (Mattermost,
 * Rocket.Chat) and local test receivers must work. Private addresses are refused by the service's
 * address policy (checkDestinationUrl), which knows OUTBOUND_ALLOW_PRIVATE.
 */
const urlSchema = z
  .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
  .max(MAX_URL_LENGTH, `must be at most ${MAX_URL_LENGTH} characters`)
  .describe('Webhook URL (slack, discord, webhook). A secret: responses show it masked.');

const emailSchema = z.email({ error: 'must be an e-mail address' }).max(320, 'must be at most 320 characters').describe('Recipient address (email)');

const typeSchema = z.enum(CHANNELS, { error: `must be one of: ${CHANNELS.join(', ')}` }).describe('Channel type');

const createBody = z
  .strictObject({ type: typeSchema, label: displayNameSchema.describe('Display label, 1–200 characters'), url: urlSchema.optional(), email: emailSchema.optional() })
  .superRefine((body, ctx) => {
    // One object with cross-field checks rather than a union per type: the errors then name the field.
    const wantsUrl = body.type !== 'email';
    if (wantsUrl && body.url === undefined) ctx.addIssue({ code: 'custom', path: ['url'], message: `is required for type ${body.type}` });
    if (wantsUrl && body.email !== undefined) ctx.addIssue({ code: 'custom', path: ['email'], message: `is only for type email; type ${body.type} takes url` });
    if (!wantsUrl && body.email === undefined) ctx.addIssue({ code: 'custom', path: ['email'], message: 'is required for type email' });
    if (!wantsUrl && body.url !== undefined) ctx.addIssue({ code: 'custom', path: ['url'], message: `is only for types ${URL_TYPES.join(', ')}; type email takes email` });
  });

const updateBody = z.strictObject(
  { label: displayNameSchema.optional(), url: urlSchema.optional(), email: emailSchema.optional() },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys' && issue.keys.includes('type') ? 'type cannot be changed; create a destination of the new type instead' : undefined,
  },
);

export const destinationSchema = z
  .object({
    id: z.uuid(),
    appId: z.uuid(),
    type: z.enum(CHANNELS),
    label: z.string(),
    url: z.string().nullable().describe('Masked: scheme, host and the public part of the path; null for email'),
    email: z.string().nullable().describe('Null for url types'),
    verified: z.boolean().describe('True after a successful test; false again when url or email changes'),
    verifiedAt: z.iso.datetime().nullable(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Destination' });

const createdDestinationSchema = destinationSchema
  .extend({
    signingSecret: z
      .string()
      .optional()
      .describe('`whsec_…`, webhook destinations only: the Standard Webhooks signing secret. Shown in this response only; store it now.'),
  })
  .meta({ id: 'CreatedDestination' });

const destinationParams = z.object({ appId: appIdParam, destinationId: z.string().describe('The destination id') });

/** Destinations of an app: create, list, read, update, delete, and send a test alert. */
export function destinationRoutes(deps: ApiDeps): AnyRoute[] {
  const base = '/v1/apps/{appId}/destinations';
  const one = `${base}/{destinationId}`;
  return [
    defineRoute({
      method: 'post',
      path: base,
      operationId: 'createDestination',
      summary: 'Add a destination: a Slack or Discord webhook, a signed webhook, or an e-mail address',
      description: 'A URL whose host is or resolves to a private, loopback or link-local address is refused unless the service runs with OUTBOUND_ALLOW_PRIVATE.',
      tags: ['destinations'],
      auth: 'client',
      params: appParams,
      body: createBody,
      responses: { 201: { description: 'Created; a webhook destination carries its signing secret this once', schema: createdDestinationSchema } },
      writeOnlyView: idOnlyView.extend({ signingSecret: z.string().optional() }),
      handler: async ({ params, body, principal }) => ({ status: 201, body: await deps.services.destinations.create(principal.accountId, params.appId, body) }),
    }),
    defineRoute({
      method: 'get',
      path: base,
      operationId: 'listDestinations',
      summary: "List the app's destinations, oldest first",
      description: 'The app\'s destinations (webhook, Slack, Discord, e-mail), in pages of `limit` from `offset`, oldest first. Webhook URLs are shown masked: they are secrets.',
      tags: ['destinations'],
      auth: 'client',
      params: appParams,
      query: paginationQuery,
      responses: { 200: { description: 'A page of destinations', schema: z.array(destinationSchema) } },
      handler: async ({ params, query, principal }) => ({ status: 200, body: await deps.services.destinations.list(principal.accountId, params.appId, query) }),
    }),
    defineRoute({
      method: 'get',
      path: one,
      operationId: 'getDestination',
      summary: 'Read one destination',
      description: 'One destination of the app, its URL masked. A webhook\'s signing secret is shown only when the destination is created.',
      tags: ['destinations'],
      auth: 'client',
      params: destinationParams,
      responses: { 200: { description: 'The destination', schema: destinationSchema } },
      handler: async ({ params, principal }) => ({ status: 200, body: await deps.services.destinations.get(principal.accountId, params.appId, params.destinationId) }),
    }),
    defineRoute({
      method: 'patch',
      path: one,
      operationId: 'updateDestination',
      summary: 'Change the label, url or email of a destination',
      description: 'The type cannot change. A new url or email makes the destination unverified until it is tested again.',
      tags: ['destinations'],
      auth: 'client',
      params: destinationParams,
      body: updateBody,
      responses: { 200: { description: 'The updated destination', schema: destinationSchema } },
      writeOnlyView: idOnlyView,
      handler: async ({ params, body, principal }) => ({
        status: 200,
        body: await deps.services.destinations.update(principal.accountId, params.appId, params.destinationId, body),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: one,
      operationId: 'deleteDestination',
      summary: 'Delete a destination',
      description: '409 while an action of a rule (enabled or not) uses it.',
      tags: ['destinations'],
      auth: 'client',
      params: destinationParams,
      responses: { 204: { description: 'Deleted' } },
      errors: [409],
      handler: async ({ params, principal }) => {
        await deps.services.destinations.delete(principal.accountId, params.appId, params.destinationId);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: `${one}/test`,
      operationId: 'testDestination',
      summary: 'Send a test alert to the destination',
      description: 'Success marks the destination verified. A failure is a 502 whose message says why; the destination stays unverified.',
      tags: ['destinations'],
      auth: 'client',
      params: destinationParams,
      responses: { 200: { description: 'Delivered; the destination, now verified', schema: destinationSchema } },
      writeOnlyView: idOnlyView,
      errors: [502],
      handler: async ({ params, principal }) => ({ status: 200, body: await deps.services.destinations.test(principal.accountId, params.appId, params.destinationId) }),
    }),
  ];
}
