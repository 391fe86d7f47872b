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
  /** Newest first: timestamp desc, then id desc; each event id at most once. */
  query(query: EventQuery): Promise<StoredEvent[]>;
  /**
   * Removes every event of an app (app deletion). Resolves once reads no longer see them. ClickHouse
   * removes rows with a mutation that rewrites the table's parts: slow on a big table, and past a
   * timeout this rejects while the removal carries on in the background.
   */
  deleteApp(appId: string): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
