import type { EventStore } from '../ports/event-store.js';
import type { AppRepository } from '../ports/metadata.js';
import { decodeCursor, encodeCursor, type CursorScope } from '../domain/cursor.js';
import { notFound, requireApp } from './app-lookup.js';
import { isUuid } from '../domain/uuid.js';
import type { CursorSigningKey } from './cursor-signing-key.js';
import type { EventLevel, StoredEvent } from '../domain/events.js';

export interface EventListQuery {
  readonly level?: EventLevel | undefined;
  readonly type?: string | undefined;
  readonly customerId?: string | undefined;
  readonly from?: Date | undefined;
  readonly to?: Date | undefined;
  readonly limit: number;
  readonly cursor?: string | undefined;
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
  constructor(private readonly deps: { apps: AppRepository; events: EventStore; cursorKey: CursorSigningKey }) {}

  async list(accountId: string, appIdOrSlug: string, query: EventListQuery): Promise<EventPage> {
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

  /** One event of the app by its id; not found when the app has no such event (or the id is no UUID). */
  async get(accountId: string, appIdOrSlug: string, eventId: string): Promise<StoredEvent> {
    const app = await requireApp(this.deps.apps, accountId, appIdOrSlug);
    const event = await findStoredEvent(this.deps.events, app.id, eventId);
    if (!event) throw notFound();
    return event;
  }
}

/** The app's stored event of that id (any case); undefined when there is none or the id is no UUID. */
export async function findStoredEvent(events: Pick<EventStore, 'query'>, appId: string, eventId: string): Promise<StoredEvent | undefined> {
  if (!isUuid(eventId)) return undefined;
  const [event] = await events.query({ appId, id: eventId.toLowerCase(), limit: 1 });
  return event;
}
