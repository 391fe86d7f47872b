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
 * Sessions a store runs its statements on. A chDB session runs one statement at a time: a statement
 * waits for the one before it on the same session, however long that one takes, while sessions on
 * the same path run side by side (`SELECT 1` waited 9.4 s behind an aggregation on its session and
 * took 6 ms on a second one). On one session the worker's inserts waited behind every read, and a
 * slow read held back every other read and every insert. Three, because a statement holds one of
 * libuv's four pool threads while it runs: one stays free for the file system.
 */
export const CHDB_SESSIONS = 3;

/**
 * Embedded mode: the events live in chDB, the ClickHouse engine inside this process.
 *
 * chDB binds one data directory per process. Sessions on the same path share one engine (reference
 * counted) and run their statements concurrently; opening a session on a different path while one is
 * open throws. So the container must open exactly one chDB store path per process. Queries run with
 * queryAsync, on the libuv pool, so a slow read does not block the event loop.
 */
export class ChdbEventStore extends SqlEventStore {
  constructor(options: ChdbEventStoreOptions) {
    super(new ChdbTransport(options.path), options);
  }
}

/** What a statement gets once the store is closed, or while it waits as the store closes. */
function storeClosed(): Error {
  return new Error('the chDB event store is closed');
}

interface Waiter {
  readonly resolve: (session: Session) => void;
  readonly reject: (error: Error) => void;
}

/**
 * Statements on CHDB_SESSIONS sessions, each on the first session free. When all are busy a statement
 * waits for the next one to finish, writes (the worker's inserts, upkeep, migrations) before reads:
 * an event is readable only once its insert ran. Not a pool library's: the sessions are made
 * synchronously on first use, where a failure reaches the caller at once, whereas generic-pool, for
 * one, leaves a request pending when making a resource fails.
 */
export class ChdbTransport implements ClickHouseTransport {
  readonly #path: string;
  readonly #sessions: number;
  #all: Session[] = [];
  #idle: Session[] = [];
  readonly #waiting: { readonly write: Waiter[]; readonly read: Waiter[] } = { write: [], read: [] };
  #closed = false;

  constructor(path: string, sessions = CHDB_SESSIONS) {
    this.#path = path;
    this.#sessions = sessions;
  }

  async exec(sql: string): Promise<void> {
    await this.#run('write', (session) => session.queryAsync(sql));
  }

  async select(sql: string): Promise<unknown[]> {
    const result = await this.#run('read', (session) => session.queryAsync(sql, { format: 'JSONEachRow' }));
    // ChdbResult.json() parses a single document, not one object per line.
    const rows: unknown[] = [];
    for (const line of result.text().split('\n')) {
      if (line.length > 0) rows.push(JSON.parse(line));
    }
    return rows;
  }

  async ping(): Promise<void> {
    await this.#run('read', (session) => session.queryAsync('SELECT 1'));
  }

  close(): Promise<void> {
    this.#closed = true;
    const closed = storeClosed();
    for (const waiter of [...this.#waiting.write.splice(0), ...this.#waiting.read.splice(0)]) waiter.reject(closed);
    // Idempotent; chDB defers releasing the engine until queries still running on it finish.
    for (const session of this.#all) session.close();
    this.#all = [];
    this.#idle = [];
    return Promise.resolve();
  }

  async #run<T>(kind: 'write' | 'read', statement: (session: Session) => Promise<T>): Promise<T> {
    const session = this.#take() ?? (await new Promise<Session>((resolve, reject) => this.#waiting[kind].push({ resolve, reject })));
    try {
      return await statement(session);
    } finally {
      this.#release(session);
    }
  }

  /** A free session, if there is one; the sessions are opened on first use, so that constructing a store does no I/O. */
  #take(): Session | undefined {
    if (this.#closed) throw storeClosed();
    if (this.#all.length === 0) {
      this.#all = this.#open();
      this.#idle = [...this.#all];
    }
    return this.#idle.pop();
  }

  #open(): Session[] {
    const sessions: Session[] = [];
    try {
      while (sessions.length < this.#sessions) sessions.push(new Session(this.#path));
    } catch (err) {
      for (const session of sessions) session.close();
      throw err;
    }
    return sessions;
  }

  #release(session: Session): void {
    if (this.#closed) return;
    const next = this.#waiting.write.shift() ?? this.#waiting.read.shift();
    if (next) next.resolve(session);
    else this.#idle.push(session);
  }
}
