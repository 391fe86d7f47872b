import { Session } from 'chdb';
import type { ClickHouseTransport } from './clickhouse-transport.js';
import { SqlEventStore } from './sql-event-store.js';

export interface ChdbEventStoreOptions {
  /** Data directory of the embedded engine. */
  readonly path: string;
  readonly database: string;
  readonly deleteTimeoutMs?: number;
  readonly retentionDays?: number;
  readonly now?: () => number;
}

/**
 * Embedded mode: the events live in chDB, the ClickHouse engine inside this process.
 *
 * chDB binds one data directory per process. Sessions on the same path share one engine (reference
 * counted) and may run queries concurrently; opening a session on a different path while one is open
 * throws. So the container must open exactly one chDB store path per process. Queries run with
 * queryAsync, on the libuv pool, so a slow read does not block the event loop.
 */
export class ChdbEventStore extends SqlEventStore {
  constructor(options: ChdbEventStoreOptions) {
    super(new ChdbTransport(options.path), options);
  }
}

class ChdbTransport implements ClickHouseTransport {
  readonly #path: string;
  #session: Session | undefined;
  #closed = false;

  constructor(path: string) {
    this.#path = path;
  }

  // Opened on first use so that constructing a store does no I/O.
  #open(): Session {
    if (this.#closed) throw new Error('the chDB event store is closed');
    this.#session ??= new Session(this.#path);
    return this.#session;
  }

  async exec(sql: string): Promise<void> {
    await this.#open().queryAsync(sql);
  }

  async select(sql: string): Promise<unknown[]> {
    const result = await this.#open().queryAsync(sql, { format: 'JSONEachRow' });
    // ChdbResult.json() parses a single document, not one object per line.
    const rows: unknown[] = [];
    for (const line of result.text().split('\n')) {
      if (line.length > 0) rows.push(JSON.parse(line));
    }
    return rows;
  }

  async ping(): Promise<void> {
    await this.#open().queryAsync('SELECT 1');
  }

  close(): Promise<void> {
    this.#closed = true;
    // Idempotent; chDB defers releasing the engine until queries still running on it finish.
    this.#session?.close();
    this.#session = undefined;
    return Promise.resolve();
  }
}
