import type { EventFilter, EventGroupField, EventStore, EventTopItem } from '../ports/event-store.js';
import { DomainError } from '../domain/errors.js';
import { INTERVALS, MAX_BUCKETS, bucketGrid, defaultInterval, fillBuckets, type Interval } from '../domain/event-stats.js';
import type { AppRepository } from '../ports/metadata.js';
import { decodeCursor, encodeCursor, type CursorScope } from '../domain/cursor.js';
import { notFound, requireApp } from './app-lookup.js';
import { isUuid } from '../domain/uuid.js';
import type { CursorSigningKey } from './cursor-signing-key.js';
import type { EventLevel, StoredEvent } from '../domain/events.js';

/** What every read narrows to. For the counting reads a missing `to` is now, a missing `from` a day before `to`. */
export interface EventRangeQuery {
  readonly level?: EventLevel | undefined;
  readonly type?: string | undefined;
  readonly customerId?: string | undefined;
  readonly from?: Date | undefined;
  readonly to?: Date | undefined;
}

export interface EventListQuery extends EventRangeQuery {
  readonly limit: number;
  readonly cursor?: string | undefined;
}

export interface EventCountsRequest extends EventRangeQuery {
  readonly interval?: Interval | undefined;
  readonly groupBy?: EventGroupField | undefined;
  readonly limit: number;
}

export interface EventCountsView {
  readonly from: Date;
  readonly to: Date;
  readonly interval: Interval;
  readonly total: number;
  readonly uniqueCustomers: number;
  readonly series: { key: string | null; total: number; buckets: { start: Date; count: number }[] }[];
}

export interface EventTopRequest extends EventRangeQuery {
  readonly by: EventGroupField;
  readonly limit: number;
}

export interface EventPage {
  readonly items: StoredEvent[];
  readonly nextCursor: string | null;
}

/**
 * Pages through an app's events newest first with a keyset cursor: each page starts strictly after
 * the last event of the previous one in (timestamp desc, id desc) order, so paging never shows an
 * event twice or skips one, however many events arrive meanwhile.
 */
export class EventsQueryService {
  constructor(private readonly deps: { apps: AppRepository; events: EventStore; cursorKey: CursorSigningKey; now?: () => number }) {}

  async list(accountId: string, appIdOrSlug: string, query: EventListQuery): Promise<EventPage> {
    if (query.from && query.to) assertOrdered(query.from, query.to);
    const app = await requireApp(this.deps.apps, accountId, appIdOrSlug);
    const scope: CursorScope = {
      appId: app.id,
      filters: {
        level: query.level,
        type: query.type,
        customerId: query.customerId,
        from: query.from?.toISOString(),
        to: query.to?.toISOString(),
      },
    };
    const key = await this.deps.cursorKey.get();
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, scope, key);
    // One more than asked tells whether another page exists without a count query.
    const rows = await this.deps.events.query({
      appId: app.id,
      level: query.level,
      type: query.type,
      customerId: query.customerId,
      from: query.from,
      to: query.to,
      after,
      limit: query.limit + 1,
    });
    const items = rows.slice(0, query.limit);
    const last = items.at(-1);
    const nextCursor = rows.length > query.limit && last ? encodeCursor({ timestamp: last.timestamp, id: last.id }, scope, key) : null;
    return { items, nextCursor };
  }

  /**
   * Event counts per bucket of [from, to), zero-filled, one series per group value (the `limit`
   * largest) or one of every event. Refuses a grid of more than MAX_BUCKETS buckets.
   */
  async counts(accountId: string, appIdOrSlug: string, query: EventCountsRequest): Promise<EventCountsView> {
    const filter = this.#filter(query);
    const { from, to } = filter;
    const interval = query.interval ?? defaultInterval(from, to);
    const grid = bucketGrid(from, to, interval);
    if (grid.count > MAX_BUCKETS) {
      const message = `${from.toISOString()} to ${to.toISOString()} by ${interval} makes ${grid.count} buckets, more than ${MAX_BUCKETS}; ask for a wider interval or a shorter range`;
      throw new DomainError('validation_failed', `interval: ${message}`, { details: [{ path: 'interval', message }] });
    }
    const app = await requireApp(this.deps.apps, accountId, appIdOrSlug);
    const counts = await this.deps.events.counts({ appId: app.id, ...filter, bucketMs: INTERVALS[interval], groupBy: query.groupBy, limit: query.limit });
    return {
      from,
      to,
      interval,
      total: counts.total,
      uniqueCustomers: counts.uniqueCustomers,
      series: counts.series.map((series) => ({ key: series.key, total: series.total, buckets: fillBuckets(grid, interval, series.buckets) })),
    };
  }

  /** The values of a field with the most events in [from, to), largest count first. */
  async top(accountId: string, appIdOrSlug: string, query: EventTopRequest): Promise<EventTopItem[]> {
    const filter = this.#filter(query);
    const app = await requireApp(this.deps.apps, accountId, appIdOrSlug);
    return this.deps.events.top({ appId: app.id, ...filter, by: query.by, limit: query.limit });
  }

  /** The filter of a counting read, its range filled in and checked. */
  #filter(query: EventRangeQuery): Omit<EventFilter, 'appId'> {
    const to = query.to ?? new Date((this.deps.now ?? Date.now)());
    const from = query.from ?? new Date(to.getTime() - INTERVALS.day);
    assertOrdered(from, to);
    return { level: query.level, type: query.type, customerId: query.customerId, from, to };
  }


  /** One event of the app by its id; not found when the app has no such event (or the id is no UUID). */
  async get(accountId: string, appIdOrSlug: string, eventId: string): Promise<StoredEvent> {
    const app = await requireApp(this.deps.apps, accountId, appIdOrSlug);
    const event = await findStoredEvent(this.deps.events, app.id, eventId);
    if (!event) throw notFound();
    return event;
  }
}

function assertOrdered(from: Date, to: Date): void {
  if (from.getTime() >= to.getTime()) {
    throw new DomainError('validation_failed', 'from: must be earlier than to', { details: [{ path: 'from', message: 'must be earlier than to' }] });
  }
}

/** The app's stored event of that id (any case); undefined when there is none or the id is no UUID. */
export async function findStoredEvent(events: Pick<EventStore, 'query'>, appId: string, eventId: string): Promise<StoredEvent | undefined> {
  if (!isUuid(eventId)) return undefined;
  const [event] = await events.query({ appId, id: eventId.toLowerCase(), limit: 1 });
  return event;
}
