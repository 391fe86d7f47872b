import { z } from 'zod';
import { isUuid } from '../../domain/uuid.js';
import { cursorPageQueryFields, defineRoute, type AnyRoute } from '../route.js';
import { appParams } from './app-params.js';
import type { ApiDeps } from './api-deps.js';
import { DELIVERY_STATUSES } from '../../domain/alerting.js';

const listQuery = z.strictObject({
  // A malformed rule id is a 400 (a filter that can match nothing is a client mistake); an unknown
  // one, or a deleted rule's, lists what there is.
  ruleId: z
    .string()
    .refine(isUuid, 'must be a rule id')
    .transform((id) => id.toLowerCase())
    .optional()
    .describe('Only the deliveries of this rule (deleted rules included)'),
  status: z.enum(DELIVERY_STATUSES, { error: `must be one of ${DELIVERY_STATUSES.join(', ')}` }).optional(),
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
  ];
}
