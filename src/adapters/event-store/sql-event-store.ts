import { setTimeout as delay } from 'node:timers/promises';
import {
  deleteAppSql,
  eventFromRow,
  insertEventsSql,
  pendingFromRow,
  pendingMutationsSql,
  selectEventsSql,
} from './clickhouse-sql.js';
import type { ClickHouseTransport } from './clickhouse-transport.js';
import type { EventPosition, EventQuery, EventStore } from '../../ports/event-store.js';
import { applyMigrations } from './migrations.js';
import { quoteIdentifier, type QuotedIdentifier } from './sql.js';
import type { StoredEvent } from '../../domain/events.js';

export interface SqlEventStoreOptions {
  /** Database holding the events; created by migrate(). Letters, digits and _. */
  readonly database: string;
  /**
   * Longest deleteApp() waits for its mutation. The mutation rewrites every part holding the app's
   * rows, so on a big table it can take a while; it keeps running (and completes) after a timeout.
   */
  readonly deleteTimeoutMs?: number;
}

const MAX_LIMIT = 1000;
// Re-fetch size cap for the rare page thinned by not-yet-merged copies (see query()).
const MAX_FETCH = 10_000;

/**
 * The event store over any ClickHouse engine: the server and chDB differ only in the transport.
 */
export class SqlEventStore implements EventStore {
  readonly #transport: ClickHouseTransport;
  readonly #database: string;
  readonly #db: QuotedIdentifier;
  readonly #deleteTimeoutMs: number;

  constructor(transport: ClickHouseTransport, options: SqlEventStoreOptions) {
    this.#transport = transport;
    this.#database = options.database;
    // Validates the name up front: a bad one fails at wiring time, not at the first query.
    this.#db = quoteIdentifier(options.database);
    this.#deleteTimeoutMs = options.deleteTimeoutMs ?? 120_000;
  }

  async migrate(): Promise<void> {
    await applyMigrations(this.#transport, this.#database);
  }

  async insert(events: readonly StoredEvent[]): Promise<void> {
    if (events.length === 0) return;
    // One statement unless the batch spans more months than one INSERT may; a retry after a partial
    // failure writes the first ones again, which the table's deduplication by id absorbs.
    for (const statement of insertEventsSql(this.#db, events)) await this.#transport.exec(statement);
  }

  /**
   * Reads in (timestamp desc, id desc) order and drops repeated ids. Copies of one event share its
   * sorting key, so they are adjacent; when dropping them leaves the page short and the engine had
   * more rows, it reads on strictly after the last row seen, which also skips that row's remaining
   * copies. Each round moves the position forward, so the loop ends; the fetch size doubles so even a
   * heavily duplicated range takes few rounds.
   */
  async query(query: EventQuery): Promise<StoredEvent[]> {
    if (!Number.isInteger(query.limit) || query.limit < 1 || query.limit > MAX_LIMIT) {
      throw new RangeError(`limit must be an integer from 1 to ${MAX_LIMIT}, got ${query.limit}`);
    }
    const events: StoredEvent[] = [];
    const seen = new Set<string>();
    let after: EventPosition | undefined = query.after;
    let fetch = query.limit;
    for (;;) {
      const rows = await this.#transport.select(selectEventsSql(this.#db, query, after, fetch));
      for (const row of rows) {
        const event = eventFromRow(row);
        if (!seen.has(event.id)) {
          seen.add(event.id);
          events.push(event);
        }
        if (events.length === query.limit) return events;
        after = { timestamp: event.timestamp, id: event.id };
      }
      if (rows.length < fetch) return events;
      fetch = Math.min(fetch * 2, MAX_FETCH);
    }
  }

  async deleteApp(appId: string): Promise<void> {
    await this.#transport.exec(deleteAppSql(this.#db, appId));
    await this.#waitForMutations();
  }

  /**
   * Waits until the events table has no unfinished mutation (ours and any earlier one), polling with
   * backoff. 18.16 cannot make ALTER ... DELETE synchronous (no `mutations_sync`), and the caller
   * needs the app's events gone from reads when this resolves.
   */
  async #waitForMutations(): Promise<void> {
    const deadline = Date.now() + this.#deleteTimeoutMs;
    let pause = 10;
    for (;;) {
      const [row] = await this.#transport.select(pendingMutationsSql(this.#database));
      if (pendingFromRow(row) === 0) return;
      if (Date.now() >= deadline) {
        throw new Error(
          `events of the deleted app are still being removed after ${this.#deleteTimeoutMs} ms; the mutation continues in the background`,
        );
      }
      await delay(pause);
      pause = Math.min(pause * 2, 500);
    }
  }

  async ping(): Promise<void> {
    await this.#transport.ping();
  }

  async close(): Promise<void> {
    await this.#transport.close();
  }
}
