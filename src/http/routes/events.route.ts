import { z } from 'zod';
import { zonedDateTime } from './date-time.js';
import { EVENT_NAME_PATTERN } from '../../domain/event-schema.js';
import { cursorPageQueryFields, defineRoute, type AnyRoute } from '../route.js';
import { appIdParam, appParams } from './app-params.js';
import type { ApiDeps } from './api-deps.js';
import { EVENT_LEVELS, type EventLevel, type StoredEvent } from '../../domain/events.js';

const dateTime = (what: string) =>
  zonedDateTime().describe(what);

/** The filters of every event read: the list, the counts and the top lists. */
export const eventFilterFields = {
  level: z.enum(EVENT_LEVELS, { error: `must be one of ${EVENT_LEVELS.join(', ')}` }).optional().describe('Only events of this level'),
  type: z.string().regex(EVENT_NAME_PATTERN, 'must be an event name: 1 to 200 characters of A-Z a-z 0-9 . _ : -').optional().describe('Event name'),
  customer_id: z.string().min(1, 'must be a non-empty string').max(256, 'must be at most 256 characters').optional().describe('Only the events of this customer'),
  from: dateTime('Start of the time range (inclusive)').optional(),
  to: dateTime('End of the time range (exclusive)').optional(),
};

/** The filters as the services take them, with from and to as dates. */
export function eventFilterOf(query: { level?: EventLevel | undefined; type?: string | undefined; customer_id?: string | undefined; from?: string | undefined; to?: string | undefined }) {
  return {
    level: query.level,
    type: query.type,
    customerId: query.customer_id,
    from: query.from === undefined ? undefined : new Date(query.from),
    to: query.to === undefined ? undefined : new Date(query.to),
  };
}

const listQuery = z.object({ ...eventFilterFields, ...cursorPageQueryFields }).strict();

export const eventSchema = z
  .object({
    id: z.string(),
    appId: z.string(),
    event: z.string(),
    customer_id: z.string().optional(),
    data: z.record(z.string(), z.unknown()),
    level: z.enum(EVENT_LEVELS),
    metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
    timestamp: z.iso.datetime(),
    ingestedAt: z.iso.datetime(),
  })
  .meta({ id: 'Event' });

const eventPageSchema = z
  .object({ items: z.array(eventSchema), nextCursor: z.string().nullable().describe('null when no more pages exist') })
  .meta({ id: 'EventPage' });

export function eventView(e: StoredEvent): z.output<typeof eventSchema> {
  return {
    id: e.id,
    appId: e.appId,
    event: e.event,
    ...(e.customerId === null ? {} : { customer_id: e.customerId }),
    data: { ...e.data },
    level: e.level,
    metadata: { ...e.metadata },
    timestamp: e.timestamp.toISOString(),
    ingestedAt: e.ingestedAt.toISOString(),
  };
}

export function eventRoutes(deps: ApiDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/apps/{appId}/events',
      operationId: 'listEvents',
      summary: "Page through an app's events, newest first",
      description: 'Newest first (timestamp, then id). Pass `nextCursor` as `cursor` for the next page; a page never repeats or skips an event while new ones arrive.',
      tags: ['events'],
      auth: 'client',
      params: appParams,
      query: listQuery,
      responses: { 200: { description: 'One page of events', schema: eventPageSchema } },
      handler: async ({ params, query, principal }) => {
        const page = await deps.services.events.list(principal.accountId, params.appId, { ...eventFilterOf(query), limit: query.limit, cursor: query.cursor });
        return { status: 200, body: { items: page.items.map(eventView), nextCursor: page.nextCursor } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/apps/{appId}/events/{eventId}',
      operationId: 'getEvent',
      summary: 'Read one event by its id',
      description: 'The event as the list shows it; 404 when the app has no event of that id (a link to an event can be shared).',
      tags: ['events'],
      auth: 'client',
      params: z.object({ appId: appIdParam, eventId: z.string().describe('The event id, as ingest answered it') }),
      responses: { 200: { description: 'The event', schema: eventSchema } },
      handler: async ({ params, principal }) => ({ status: 200, body: eventView(await deps.services.events.get(principal.accountId, params.appId, params.eventId)) }),
    }),
  ];
}
