import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import type { ClickHouseTransport } from './clickhouse-transport.js';
import { SqlEventStore } from './sql-event-store.js';

export interface ClickHouseEventStoreOptions {
  /** HTTP interface, e.g. http://user:password@host:8123. */
  readonly url: string;
  readonly database: string;
  readonly deleteTimeoutMs?: number;
  readonly retentionDays?: number;
  readonly now?: () => number;
}

/**
 * Distributed mode: the events live in a ClickHouse server, reached over HTTP with @clickhouse/client.
 *
 * The client is used only as an HTTP transport, in the way ClickHouse 18.16 understands: statements
 * are sent whole as the request body (values bound client-side by sql.ts; the client's query_params
 * would need server-side parameters, which 18.16 lacks), reads ask for JSONEachRow, and the client's
 * insert() is not used (its payload formats and settings are the client's choice, not ours). The
 * client gets no default database, since the database does not exist until migrate() creates it.
 */
export class ClickHouseEventStore extends SqlEventStore {
  constructor(options: ClickHouseEventStoreOptions) {
    super(new HttpTransport(options.url), options);
  }
}

class HttpTransport implements ClickHouseTransport {
  readonly #client: ClickHouseClient;

  constructor(url: string) {
    // createClient only parses its configuration; sockets open on the first request. The client's own
    // console logging is off: every failure reaches the caller as a rejection, which logs it once.
    this.#client = createClient({ url, application: 'event-alerting', log: { level: ClickHouseLogLevel.OFF } });
  }

  async exec(sql: string): Promise<void> {
    await this.#client.command({ query: sql });
  }

  async select(sql: string): Promise<unknown[]> {
    const result = await this.#client.query({ query: sql, format: 'JSONEachRow' });
    return result.json<unknown>();
  }

  async ping(): Promise<void> {
    const result = await this.#client.ping();
    if (!result.success) throw result.error;
  }

  async close(): Promise<void> {
    await this.#client.close();
  }
}
