import { z } from 'zod';
import { defineRoute, limitParam, type AnyRoute } from '../route.js';
import { appParams } from './app-params.js';
import type { ApiDeps } from './api-deps.js';
import { eventFilterFields, eventFilterOf } from './events.route.js';
import { INTERVALS, MAX_BUCKETS, type Interval } from '../../domain/event-stats.js';

const GROUP_FIELDS = ['level', 'event', 'customer_id'] as const;
const groupField = z.enum(GROUP_FIELDS, { error: `must be one of ${GROUP_FIELDS.join(', ')}` });
const intervals = Object.keys(INTERVALS) as Interval[];

const countsQuery = z
  .object({
    ...eventFilterFields,
    interval: z
      .enum(intervals, { error: `must be one of ${intervals.join(', ')}` })
      .optional()
      .describe('Bucket length; by default minute up to 6 h, hour up to 14 days, else day'),
    groupBy: groupField.optional().describe('One series per value of this field'),
    limit: limitParam(50).default(10).describe('With groupBy: the number of series, the largest by total'),
  })
  .strict();

const topQuery = z
  .object({
    ...eventFilterFields,
    by: groupField.describe('The field whose values are ranked'),
    limit: limitParam(100).default(10).describe('Most values to return, the commonest first'),
  })
  .strict();

const eventCountsSchema = z
  .object({
    from: z.iso.datetime(),
    to: z.iso.datetime(),
    interval: z.enum(intervals),
    total: z.number().int().describe('Every matching event, whether in a listed series or not'),
    uniqueCustomers: z.number().int().describe('Distinct customer ids among the matching events'),
    series: z.array(
      z.object({
        key: z.string().nullable().describe("The group's value; null for the one series without groupBy"),
        total: z.number().int(),
        buckets: z.array(z.object({ start: z.iso.datetime().describe('UTC-aligned; the bucket covers [start, start + interval)'), count: z.number().int() })),
      }),
    ),
  })
  .meta({ id: 'EventCounts' });

const eventTopSchema = z
  .object({ items: z.array(z.object({ key: z.string(), count: z.number().int(), lastSeen: z.iso.datetime().describe('Timestamp of the newest matching event') })) })
  .meta({ id: 'EventTop' });

export function statsRoutes(deps: ApiDeps): AnyRoute[] {
  return [
    defineRoute({
      method: 'get',
      path: '/v1/apps/{appId}/stats/events',
      operationId: 'countEvents',
      summary: 'Count events over time',
      description: `Counts per bucket of [from, to) (default: the 24 h up to now), every bucket present (0 when empty); at most ${MAX_BUCKETS} buckets. Exact: an event stored twice counts once.`,
      tags: ['events'],
      auth: 'client',
      params: appParams,
      query: countsQuery,
      responses: { 200: { description: 'Counts over time', schema: eventCountsSchema } },
      handler: async ({ params, query, principal }) => {
        const counts = await deps.services.events.counts(principal.accountId, params.appId, {
          ...eventFilterOf(query),
          interval: query.interval,
          groupBy: query.groupBy,
          limit: query.limit,
        });
        return {
          status: 200,
          body: {
            from: counts.from.toISOString(),
            to: counts.to.toISOString(),
            interval: counts.interval,
            total: counts.total,
            uniqueCustomers: counts.uniqueCustomers,
            series: counts.series.map((s) => ({ key: s.key, total: s.total, buckets: s.buckets.map((b) => ({ start: b.start.toISOString(), count: b.count })) })),
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/apps/{appId}/stats/top',
      operationId: 'topEventValues',
      summary: 'The event names, customers or levels with the most events',
      description: 'Largest count first, then by key, over [from, to) (default: the 24 h up to now). Events without a customer id are left out of `by=customer_id`.',
      tags: ['events'],
      auth: 'client',
      params: appParams,
      query: topQuery,
      responses: { 200: { description: 'The top values', schema: eventTopSchema } },
      handler: async ({ params, query, principal }) => {
        const items = await deps.services.events.top(principal.accountId, params.appId, { ...eventFilterOf(query), by: query.by, limit: query.limit });
        return { status: 200, body: { items: items.map((item) => ({ key: item.key, count: item.count, lastSeen: item.lastSeen.toISOString() })) } };
      },
    }),
  ];
}
