import type { Delivery, DeliveryStatus } from '../adapters/metadata/entities/delivery.entity.js';
import { DeliveryRepository } from '../adapters/metadata/repositories/delivery-repository.js';
import type { MetadataStore } from '../adapters/metadata/metadata-store.js';
import { decodeCursor, encodeCursor, type CursorScope } from '../domain/cursor.js';
import { requireApp } from './app-lookup.js';
import { CursorSigningKey } from './cursor-signing-key.js';

export interface DeliveryView {
  readonly id: string;
  readonly ruleId: string;
  readonly actionId: string;
  readonly destinationId: string;
  readonly eventId: string;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly lastError: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface DeliveryListQuery {
  readonly ruleId?: string | undefined;
  readonly status?: DeliveryStatus | undefined;
  readonly limit: number;
  readonly cursor?: string | undefined;
}

/**
 * The deliveries list, newest first, with the signed keyset cursor of the events list
 * (domain/cursor.ts): bound to the app and the filters, refused (400) when not issued by the service.
 * `list: deliveries` is part of the bound filters, so an events cursor is refused here.
 */
export class DeliveriesService {
  readonly #repository: DeliveryRepository;
  readonly #cursorKey: CursorSigningKey;

  constructor(private readonly deps: { metadata: MetadataStore }) {
    this.#repository = new DeliveryRepository(deps.metadata);
    this.#cursorKey = new CursorSigningKey(deps.metadata);
  }

  async list(accountId: string, appIdOrSlug: string, query: DeliveryListQuery): Promise<{ items: DeliveryView[]; nextCursor: string | null }> {
    const app = await requireApp(this.deps.metadata.em(), accountId, appIdOrSlug);
    const scope: CursorScope = { appId: app.id, filters: { list: 'deliveries', ruleId: query.ruleId, status: query.status } };
    const key = await this.#cursorKey.get();
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, scope, key).id;
    // One more than asked tells whether another page exists without a count query.
    const rows = await this.#repository.list(app.id, { ruleId: query.ruleId, status: query.status, limit: query.limit + 1, after });
    const items = rows.slice(0, query.limit);
    const last = items.at(-1);
    const nextCursor = rows.length > query.limit && last ? encodeCursor({ timestamp: last.createdAt, id: last.id }, scope, key) : null;
    return { items: items.map(toView), nextCursor };
  }
}

function toView(delivery: Delivery): DeliveryView {
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
