import { knex } from '@mikro-orm/postgresql';

/**
 * Runs one statement over a short-lived connection to the database `serverUrl` names, and returns its
 * rows: for administering a PostgreSQL server (creating and dropping the test suites' throwaway
 * databases, reading its version for the benchmark report), never for the service's metadata, which
 * goes through the metadata port. The PostgreSQL driver package re-exports knex, which serves as the
 * plain client here.
 */
export async function queryPostgresServer<Row>(serverUrl: string, sql: string): Promise<Row[]> {
  const admin = knex({ client: 'pg', connection: serverUrl, pool: { min: 0, max: 1 } });
  try {
    return (await admin.raw<{ rows: Row[] }>(sql)).rows;
  } finally {
    await admin.destroy();
  }
}
