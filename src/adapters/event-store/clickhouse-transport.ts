/**
 * What the event store needs from a ClickHouse engine, and all that differs between the server (HTTP,
 * clickhouse-event-store.ts) and chDB (in process, chdb-event-store.ts). Everything above this seam —
 * SQL text, migrations, row mapping, paging — is shared, so both engines run the same statements.
 *
 * Statements arrive complete: values already bound by sql.ts, names fully qualified with the database.
 * A transport never adds a default database, because the database does not exist before migrate().
 */
export interface ClickHouseTransport {
  /** Runs a statement that returns no rows (DDL, INSERT ... VALUES, ALTER). */
  exec(sql: string): Promise<void>;
  /** Runs a SELECT (without a FORMAT clause) and returns its rows, one object per row. */
  select(sql: string): Promise<unknown[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

