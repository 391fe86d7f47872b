import type { DeliveryListQuery as StoredDeliveryQuery, DeliveryRecord, MetadataStore } from '../ports/metadata.js';
import { decodeCursor, encodeCursor, type CursorScope } from '../domain/cursor.js';
import { requireApp } from './app-lookup.js';
import type { CursorSigningKey } from './cursor-signing-key.js';

export interface DeliveryView extends Pick<DeliveryRecord, 'id' | 'ruleId' | 'actionId' | 'destinationId' | 'eventId' | 'status' | 'attempts' | 'lastError'> {
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** The filters of the stored list, with a signed cursor instead of the keyset position. */
export interface DeliveryListQuery extends Omit<StoredDeliveryQuery, 'after'> {
  readonly cursor?: string | undefined;
}

/**
 * The deliveries list, newest first, with the signed keyset cursor of the events list
 * (domain/cursor.ts): bound to the app and the filters, refused (400) when not issued by the service.
 * `list: deliveries` is part of the bound filters, so an events cursor is refused here.
 */
export class DeliveriesService {
  constructor(private readonly deps: { metadata: MetadataStore; cursorKey: CursorSigningKey }) {}

  async list(accountId: string, appIdOrSlug: string, query: DeliveryListQuery): Promise<{ items: DeliveryView[]; nextCursor: string | null }> {
    const app = await requireApp(this.deps.metadata.apps, accountId, appIdOrSlug);
    const scope: CursorScope = { appId: app.id, filters: { list: 'deliveries', ruleId: query.ruleId, status: query.status } };
    const key = await this.deps.cursorKey.get();
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, scope, key).id;
    // One more than asked tells whether another page exists without a count query.
    const rows = await this.deps.metadata.deliveries.list(app.id, { ruleId: query.ruleId, status: query.status, limit: query.limit + 1, after });
    const items = rows.slice(0, query.limit);
    const last = items.at(-1);
    const nextCursor = rows.length > query.limit && last ? encodeCursor({ timestamp: last.createdAt, id: last.id }, scope, key) : null;
    return { items: items.map(toView), nextCursor };
  }
}

function toView(delivery: DeliveryRecord): DeliveryView {
  return {
    id: delivery.id,
    ruleId: delivery.ruleId,
    actionId: delivery.actionId,
    destinationId: delivery.destinationId,
    eventId: delivery.eventId,
    status: delivery.status,
    attempts: delivery.attempts,
    lastError: delivery.lastError,
    createdAt: delivery.createdAt.toISOString(),
    updatedAt: delivery.updatedAt.toISOString(),
  };
}
