import { z } from 'zod';
import { isUuid } from '../../domain/uuid.js';
import { cursorPageQueryFields, defineRoute, idOnlyView, type AnyRoute } from '../route.js';
import { appIdParam, appParams } from './app-params.js';
import type { ApiDeps } from './api-deps.js';
import { DELIVERY_STATUSES } from '../../domain/alerting.js';
import { DELIVERY_ATTEMPT_OUTCOMES } from '../../domain/alerting.js';

const listQuery = z.strictObject({
  // A malformed rule id is a 400 (a filter that can match nothing is a client mistake); an unknown
  // one, or a deleted rule's, lists what there is.
  ruleId: z
    .string()
    .refine(isUuid, 'must be a rule id')
    .transform((id) => id.toLowerCase())
    .optional()
    .describe('Only the deliveries of this rule (deleted rules included)'),
  status: z.enum(DELIVERY_STATUSES, { error: `must be one of ${DELIVERY_STATUSES.join(', ')}` }).optional().describe('Only the deliveries in this state'),
  ...cursorPageQueryFields,
});

export const deliverySchema = z
  .object({
    id: z.uuid(),
    ruleId: z.uuid(),
    actionId: z.uuid(),
    destinationId: z.uuid(),
    eventId: z.uuid(),
    status: z.enum(DELIVERY_STATUSES).describe('`pending` while attempts remain, then `succeeded` or `failed`'),
    attempts: z.number().int(),
    lastError: z.string().nullable().describe('Why the last attempt failed; never holds a webhook URL or secret'),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'Delivery' });

const deliveryAttemptSchema = z
  .object({
    number: z.number().int().describe('From 1, in the order made; a retry by hand goes on counting'),
    startedAt: z.iso.datetime(),
    durationMs: z.number().int().nullable().describe('Whole milliseconds; null while in progress and for an abandoned attempt'),
    outcome: z
      .enum(DELIVERY_ATTEMPT_OUTCOMES)
      .describe('`abandoned`: the worker making it stopped before recording how it went, and another attempt took over (the receiver may have got it)'),
    httpStatus: z.number().int().optional().describe("The receiver's HTTP status; absent when no HTTP response came"),
    error: z.string().optional().describe('Why the attempt failed; never holds a webhook URL or secret'),
  })
  .meta({ id: 'DeliveryAttempt' });

export const deliveryDetailSchema = deliverySchema
  .extend({ attempts: z.array(deliveryAttemptSchema).describe('Every attempt made, oldest first (in the list, `attempts` is their number)') })
  .meta({ id: 'DeliveryWithAttempts' });

const deliveryParams = z.object({ appId: appIdParam, deliveryId: z.string().describe('The delivery id') });

const deliveryPageSchema = z
  .object({ items: z.array(deliverySchema), nextCursor: z.string().nullable().describe('null when no more pages exist') })
  .meta({ id: 'DeliveryPage' });

/** Deliveries: what each rule action sent, and how it went. */
export function deliveryRoutes(deps: ApiDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/apps/{appId}/deliveries',
      operationId: 'listDeliveries',
      summary: "Page through an app's deliveries, newest first",
      description: 'Pass `nextCursor` as `cursor` for the next page, with the same filters.',
      tags: ['deliveries'],
      auth: 'client',
      params: appParams,
      query: listQuery,
      responses: { 200: { description: 'One page of deliveries', schema: deliveryPageSchema } },
      handler: async ({ params, query, principal }) => ({ status: 200, body: await deps.services.deliveries.list(principal.accountId, params.appId, query) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/apps/{appId}/deliveries/{deliveryId}',
      operationId: 'getDelivery',
      summary: 'Read one delivery with its attempts',
      description: 'One alert delivery of the app: the rule, action, destination and event it came from, its state, and every attempt with when it started, how long it took, and the receiver\'s answer.',
      tags: ['deliveries'],
      auth: 'client',
      params: deliveryParams,
      responses: { 200: { description: 'The delivery and every attempt made, oldest first', schema: deliveryDetailSchema } },
      handler: async ({ params, principal }) => ({ status: 200, body: await deps.services.deliveries.get(principal.accountId, params.appId, params.deliveryId) }),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/apps/{appId}/deliveries/{deliveryId}/retry',
      operationId: 'retryDelivery',
      summary: 'Send a failed delivery again',
      description:
        'The delivery becomes `pending` and is attempted again within about a second, on a fresh retry schedule. Its attempts so far stay listed, and the new ones are numbered after them. 409 unless the delivery is `failed`.',
      tags: ['deliveries'],
      auth: 'client',
      params: deliveryParams,
      responses: { 202: { description: 'Accepted: the delivery, now pending', schema: deliveryDetailSchema } },
      writeOnlyView: idOnlyView,
      errors: [409],
      handler: async ({ params, principal }) => ({ status: 202, body: await deps.services.deliveries.retry(principal.accountId, params.appId, params.deliveryId) }),
    }),
  ];
}
