/**
 * The event store port. Distributed mode: a ClickHouse server over HTTP (clickhouse-event-store.ts).
 * Embedded mode: chDB, the same engine in process (chdb-event-store.ts). Both run the same SQL, which
 * must work on ClickHouse 18.16 (Debian's package), current ClickHouse servers and chDB, and both pass
 * test/contract/event-store.contract.test.ts.
 */
import type { EventLevel, StoredEvent } from '../domain/events.js';

/** Keyset position: the last event of the previous page (newest-first order). */
export interface EventPosition {
  readonly timestamp: Date;
  readonly id: string;
}

export interface EventQuery {
  readonly appId: string;
  readonly level?: EventLevel;
  /** Event name. */
  readonly type?: string;
  readonly customerId?: string;
  /** One event by its id (lowercase UUID). */
  readonly id?: string;
  /** Inclusive. */
  readonly from?: Date;
  /** Exclusive. */
  readonly to?: Date;
  /** Only events strictly after this position in (timestamp desc, id desc) order. */
  readonly after?: EventPosition;
  /** 1..1000; anything else rejects with a RangeError. */
  readonly limit: number;
}

/** What the counting reads filter on: an app's events in [from, to). */
export interface EventFilter {
  readonly appId: string;
  readonly level?: EventLevel | undefined;
  /** Event name. */
  readonly type?: string | undefined;
  readonly customerId?: string | undefined;
  /** Inclusive. */
  readonly from: Date;
  /** Exclusive. */
  readonly to: Date;
}

/** The fields events can be grouped by. Grouping by customer_id leaves out events without one. */
export type EventGroupField = 'level' | 'event' | 'customer_id';

export interface EventCountsQuery extends EventFilter {
  /** Bucket length in ms; buckets start at whole multiples of it since the epoch (UTC-aligned). */
  readonly bucketMs: number;
  /** One series per value of this field (the `limit` largest); without it one series of every event. */
  readonly groupBy?: EventGroupField | undefined;
  /** 1..1000. */
  readonly limit: number;
}

export interface EventSeries {
  /** The group's value; null for the series of every event. */
  readonly key: string | null;
  readonly total: number;
  /** Bucket start (ms) → count, for non-empty buckets only. */
  readonly buckets: ReadonlyMap<number, number>;
}

export interface EventCounts {
  /** Every matching event, grouped or not. */
  readonly total: number;
  /** Distinct customer ids among the matching events. */
  readonly uniqueCustomers: number;
  /** Largest total first, then by key. */
  readonly series: readonly EventSeries[];
}

export interface EventTopQuery extends EventFilter {
  readonly by: EventGroupField;
  /** 1..1000. */
  readonly limit: number;
}

export interface EventTopItem {
  readonly key: string;
  readonly count: number;
  /** The newest matching event's timestamp. */
  readonly lastSeen: Date;
}

/** What one round of upkeep did: partition ids (yyyymmdd days). */
export interface EventStoreUpkeep {
  /** Days wholly older than the retention, dropped. */
  readonly dropped: readonly string[];
  /** Past days stored in several parts, merged into one (which also removes repeated copies). */
  readonly compacted: readonly string[];
  /** Past days in one part whose counts were rolled up, for counting reads to use. */
  readonly rolledUp: readonly string[];
}

export interface EventStore {
  /** Applies the numbered migrations not yet applied; safe to run concurrently and repeatedly. */
  migrate(): Promise<void>;
  /**
   * Inserts a batch. Inserting an event id again never makes it appear twice in `query`. Rejects,
   * storing nothing, a batch with an id that is not a lowercase UUID, or with an appId, event or
   * customerId holding a lone UTF-16 surrogate, which has no UTF-8 form (in data and metadata, JSON
   * text, it is escaped and kept).
   */
  insert(events: readonly StoredEvent[]): Promise<void>;
  /**
   * Newest first: timestamp desc, then id desc; each event id at most once. Like every read, sees no
   * event older than the store's retention.
   */
  query(query: EventQuery): Promise<StoredEvent[]>;
  /** Counts per time bucket (and group), exact: an event stored twice counts once. */
  counts(query: EventCountsQuery): Promise<EventCounts>;
  /** The values of a field with the most events, largest count first, then by key. */
  top(query: EventTopQuery): Promise<EventTopItem[]>;
  /**
   * Background upkeep, safe to run from several processes at once: drops the days past the retention
   * and compacts past days left in several parts.
   */
  upkeep(): Promise<EventStoreUpkeep>;
  /**
   * Removes every event of an app (app deletion). Resolves once reads no longer see them. ClickHouse
   * removes rows with a mutation that rewrites the table's parts: slow on a big table, and past a
   * timeout this rejects while the removal carries on in the background.
   */
  deleteApp(appId: string): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
