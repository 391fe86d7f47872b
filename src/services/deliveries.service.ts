import type { DeliveryAttemptOutcome } from '../domain/alerting.js';
import type {
  DeliveryAttemptRecord,
  DeliveryListQuery as StoredDeliveryQuery,
  DeliveryRecord,
  DeliveryWithAttempts,
  MetadataStore,
} from '../ports/metadata.js';
import { decodeCursor, encodeCursor, type CursorScope } from '../domain/cursor.js';
import { DomainError } from '../domain/errors.js';
import { requireApp, requireById } from './app-lookup.js';
import type { CursorSigningKey } from './cursor-signing-key.js';


export interface DeliveryView extends Pick<DeliveryRecord, 'id' | 'ruleId' | 'actionId' | 'destinationId' | 'eventId' | 'status' | 'attempts' | 'lastError'> {
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** One attempt as the API shows it: `httpStatus` and `error` only when there is one. */
export interface DeliveryAttemptView {
  readonly number: number;
  readonly startedAt: string;
  readonly durationMs: number | null;
  readonly outcome: DeliveryAttemptOutcome;
  readonly httpStatus?: number;
  readonly error?: string;
}

/** One delivery read on its own: as in the list, but `attempts` lists them instead of counting them. */
export interface DeliveryDetailView extends Omit<DeliveryView, 'attempts'> {
  readonly attempts: readonly DeliveryAttemptView[];
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

  /** One delivery of the app, with every attempt made, oldest first; 404 when the app has none with this id. */
  async get(accountId: string, appIdOrSlug: string, id: string): Promise<DeliveryDetailView> {
    const app = await requireApp(this.deps.metadata.apps, accountId, appIdOrSlug);
    return toDetailView(await requireById(id, (deliveryId) => this.deps.metadata.deliveries.findWithAttempts(app.id, deliveryId)));
  }

  /**
   * Sends a failed delivery again: it becomes pending and due now, on a fresh retry schedule, and the
   * workers' poller attempts it within about a second. 409 unless it is failed (pending ones are
   * still being attempted; succeeded ones were delivered), 404 when the app has no such delivery.
   */
  async retry(accountId: string, appIdOrSlug: string, id: string): Promise<DeliveryDetailView> {
    const app = await requireApp(this.deps.metadata.apps, accountId, appIdOrSlug);
    const { deliveries } = this.deps.metadata;
    const result = await requireById(id, async (deliveryId) => {
      const outcome = await deliveries.retry(app.id, deliveryId, new Date());
      return outcome.outcome === 'not_found' ? null : outcome;
    });
    if (result.outcome === 'not_failed') {
      throw new DomainError('conflict', `Only a failed delivery can be retried; this one is ${result.delivery.status}`);
    }
    // Read after the change, with its attempts; a worker may already be making the next one.
    return toDetailView(await requireById(result.delivery.id, (deliveryId) => deliveries.findWithAttempts(app.id, deliveryId)));
  }
}

function toDetailView({ delivery, attempts }: DeliveryWithAttempts): DeliveryDetailView {
  return { ...toView(delivery), attempts: attempts.map(toAttemptView) };
}

function toAttemptView(attempt: DeliveryAttemptRecord): DeliveryAttemptView {
  return {
    number: attempt.number,
    startedAt: attempt.startedAt.toISOString(),
    durationMs: attempt.durationMs,
    outcome: attempt.outcome,
    ...(attempt.httpStatus === null ? {} : { httpStatus: attempt.httpStatus }),
    ...(attempt.error === null ? {} : { error: attempt.error }),
  };
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
