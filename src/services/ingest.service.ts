import { createHash } from 'node:crypto';
import { UuidV7Source } from '../lib/uuidv7.js';
import type { StateStore } from '../ports/state-store.js';
import { DomainError, type ErrorDetail } from '../domain/errors.js';
import { validateAgainstSchema } from '../domain/event-schema.js';
import type { Logger } from '../observability/logger.js';
import type { EventSink } from './event-sink.js';
import type { IngestConfig, IngestConfigCache } from './ingest-config.js';
import type { EventLevel, MetadataValue, StoredEvent } from '../domain/events.js';

/** One event as the client sent it, validated for form at the edge. */
export interface IngestItem {
  readonly event: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly level: EventLevel;
  readonly customerId?: string | undefined;
  readonly timestamp?: Date | undefined;
  readonly metadata?: Readonly<Record<string, MetadataValue>> | undefined;
}

export interface IngestResponse {
  readonly accepted: number;
  readonly events: ReadonlyArray<{ readonly id: string }>;
}

export interface IngestRequest {
  readonly appId: string;
  readonly items: readonly IngestItem[];
  /** True when the body was a single object rather than an array (shapes `details` paths). */
  readonly single: boolean;
  /** Present when the client sent an Idempotency-Key. */
  readonly idempotency?: {
    readonly key: string;
    /** A digest of the request body, to tell a genuine retry from a reused key. */
    readonly bodyDigest: string;
  };
}

/** `replayed`: the response is the stored one of an earlier request with the same Idempotency-Key. */
export interface IngestResult {
  readonly response: IngestResponse;
  readonly replayed: boolean;
}

/** A repeat of an `Idempotency-Key` within 24 h returns the first response. */
const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/**
 * A claim (request in progress) lives far longer than any request can take (a 1 MiB body, a produce
 * bounded to seconds), but not 24 h: should the final record fail to be written after the events were
 * accepted, the key frees itself instead of answering "in progress" for a day.
 */
const IDEMPOTENCY_CLAIM_TTL_MS = 60_000;

interface IdempotencyRecord {
  /** Digest of the first request's body. */
  h: string;
  /** The first response, once it was given. */
  r?: IngestResponse;
}

/**
 * Accepts events for an app: checks them against the app's registered schemas (any invalid item
 * rejects the whole request, so nothing of it is stored), merges the app's default metadata, assigns
 * UUIDv7 ids in request order, and hands the batch to the sink. It answers only once the sink says
 * the events are durable.
 */
export class IngestService {
  readonly #ids = new UuidV7Source();

  constructor(
    private readonly deps: {
      ingestConfig: Pick<IngestConfigCache, 'get'>;
      state: StateStore;
      sink: EventSink;
      logger: Logger;
      settings: {
        /** Records kept per app, so a client inventing a key per request cannot grow them without bound. */
        readonly idempotencyKeysPerApp: number;
      };
    },
  ) {}

  async ingest(request: IngestRequest): Promise<IngestResult> {
    if (request.idempotency !== undefined) return this.#idempotent(request, request.idempotency);
    // The common case in one async step: the app's configuration is cached (at once), the events are
    // built and checked without a wait, and the only await is the sink's (lib/awaitable.ts).
    const config = this.deps.ingestConfig.get(request.appId);
    const events = this.#accepted(request, config instanceof Promise ? await config : config);
    return { response: await this.#publish(request.appId, events), replayed: false };
  }

  /**
   * Accepts the items that pass the app's schemas and reports the others, instead of refusing the
   * whole request for one of them: for protocols that answer with a partial success (OTLP).
   * Idempotency keys do not apply.
   */
  async ingestEach(appId: string, items: readonly IngestItem[]): Promise<{ response: IngestResponse; rejected: Array<{ index: number; message: string }> }> {
    const { events, problems } = this.#build({ appId, items, single: false }, await this.deps.ingestConfig.get(appId));
    const rejected = [...problems].map(([index, found]) => ({ index, message: `${found[0]!.path}: ${found[0]!.message}` }));
    return { response: await this.#publish(appId, events.filter((_, index) => !problems.has(index))), rejected };
  }

  /** The events of the request, or the validation error of every item that breaks the app's schemas. */
  #accepted(request: IngestRequest, config: IngestConfig | null): StoredEvent[] {
    const { events, problems } = this.#build(request, config);
    const all = [...problems.values()].flat();
    if (all.length > 0) throw new DomainError('validation_failed', `${all[0]!.path}: ${all[0]!.message}`, { details: all });
    return events;
  }

  /** The events of the items, with the app's default metadata, ids and times; and each item's schema problems, by index. */
  #build(request: Pick<IngestRequest, 'appId' | 'items' | 'single'>, config: IngestConfig | null): { events: StoredEvent[]; problems: Map<number, ErrorDetail[]> } {
    // The key authenticated a moment ago; its app may have been deleted since.
    if (!config) throw new DomainError('unauthenticated', 'Invalid or missing authentication');

    const now = new Date();
    const problems = new Map<number, ErrorDetail[]>();
    const events: StoredEvent[] = request.items.map((item, index) => {
      const metadata = { ...config.defaultMetadata, ...item.metadata };
      const schema = config.schemas.get(item.event);
      if (schema) {
        const at = request.single ? '' : `${index}.`;
        const found = [
          ...validateAgainstSchema(schema.fields, item.data).map((p) => ({ path: `${at}data.${p.path}`, message: p.message })),
          ...validateAgainstSchema(schema.metadataFields, metadata).map((p) => ({ path: `${at}metadata.${p.path}`, message: p.message })),
        ];
        if (found.length > 0) problems.set(index, found);
      }
      return {
        id: this.#ids.next(),
        appId: request.appId,
        event: item.event,
        customerId: item.customerId ?? null,
        level: item.level,
        data: item.data,
        metadata,
        timestamp: item.timestamp ?? now,
        ingestedAt: now,
      };
    });
    return { events, problems };
  }

  /** Hands the events to the sink; answers only once it says they are durable. */
  #publish(appId: string, events: StoredEvent[]): Promise<IngestResponse> {
    const response = { accepted: events.length, events: events.map((e) => ({ id: e.id })) };
    if (events.length === 0) return Promise.resolve(response);
    // A sink that throws instead of rejecting is answered the same way.
    let published: Promise<void>;
    try {
      published = this.deps.sink.publish(events);
    } catch (err) {
      published = Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return published.then(
      () => response,
      (err: unknown) => {
        // Never a 202 for what was not made durable. The client retries (with its Idempotency-Key).
        this.deps.logger.warn({ err, appId, count: events.length }, 'ingest could not be made durable');
        throw new DomainError('unavailable', 'Events could not be accepted right now; retry shortly', { retryAfterSeconds: 2, cause: err });
      },
    );
  }

  /**
   * The first request with a key claims it atomically (set-if-absent), so two concurrent repeats
   * cannot both publish. A failed attempt releases the key, so the client's retry is processed.
   * Each app keeps its newest `settings.idempotencyKeysPerApp` records: past that, the oldest are forgotten
   * first (a repeat of one of those is then accepted again), which is the price of a bound.
   */
  async #idempotent(request: IngestRequest, idempotency: { key: string; bodyDigest: string }): Promise<IngestResult> {
    const scope = `idem:${request.appId}`;
    const key = `${scope}:${createHash('sha256').update(idempotency.key).digest('base64url')}`;
    const claim: IdempotencyRecord = { h: idempotency.bodyDigest };
    const bound = { scope, max: this.deps.settings.idempotencyKeysPerApp, windowMs: IDEMPOTENCY_TTL_MS };
    let claimed: boolean;
    try {
      claimed = await this.deps.state.setIfAbsentBounded(key, JSON.stringify(claim), IDEMPOTENCY_CLAIM_TTL_MS, bound);
    } catch (err) {
      throw new DomainError('unavailable', 'Idempotency records are unavailable right now; retry shortly', { retryAfterSeconds: 2, cause: err });
    }
    if (!claimed) {
      const existing = await this.deps.state.get(key);
      const record = existing ? (JSON.parse(existing) as IdempotencyRecord) : undefined;
      if (record && record.h !== idempotency.bodyDigest) {
        throw new DomainError('conflict', 'This Idempotency-Key was already used with a different request body');
      }
      if (record?.r) return { response: record.r, replayed: true };
      throw new DomainError('conflict', 'A request with this Idempotency-Key is still being processed; retry shortly');
    }
    let response: IngestResponse;
    try {
      // The claim is held: the request is accepted as one without a key.
      ({ response } = await this.ingest({ ...request, idempotency: undefined }));
    } catch (err) {
      await this.deps.state.delete(key).catch((e: unknown) => this.deps.logger.warn({ err: e }, 'could not release an idempotency key'));
      throw err;
    }
    const record: IdempotencyRecord = { h: idempotency.bodyDigest, r: response };
    try {
      await this.deps.state.set(key, JSON.stringify(record), IDEMPOTENCY_TTL_MS);
    } catch (err) {
      // The events are durable: the client gets its 202. Only a repeat after the claim expired could
      // now be accepted again, which the log line lets an operator see.
      this.deps.logger.warn({ err, appId: request.appId }, 'accepted events, but could not record the idempotency response');
    }
    return { response, replayed: false };
  }
}
