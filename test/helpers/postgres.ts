import { queryPostgresServer } from '../../src/adapters/metadata/postgres-server.js';
import { uniqueName } from './stack-env.js';

/**
 * Throwaway PostgreSQL databases for the suites: each run creates its own `eas_test_…` database on
 * the server of DATABASE_URL and drops it afterwards. Every statement here passes the name through
 * assertTestDatabaseName first, so a mistake can never drop a database a person cares about.
 */
export interface TestDatabase {
  readonly name: string;
  /** DATABASE_URL with the database part replaced by this database. */
  readonly url: string;
  drop(): Promise<void>;
}

const TEST_DATABASE_NAME = /^eas_test_[a-z0-9_]{1,54}$/;

export function assertTestDatabaseName(name: string): string {
  if (!TEST_DATABASE_NAME.test(name)) {
    throw new Error(`Refusing to create or drop database ${JSON.stringify(name)}: test databases are named eas_test_<lower-case letters, digits, _>`);
  }
  return name;
}

export async function createTestDatabase(serverUrl: string): Promise<TestDatabase> {
  const name = assertTestDatabaseName(uniqueName('eas_test'));
  await onServer(serverUrl, `create database "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: () => dropTestDatabase(serverUrl, name) };
}

export async function dropTestDatabase(serverUrl: string, name: string): Promise<void> {
  // `with (force)` ends sessions a failed test left open, so the database never outlives its run.
  await onServer(serverUrl, `drop database if exists "${assertTestDatabaseName(name)}" with (force)`);
}

async function onServer(serverUrl: string, sql: string): Promise<void> {
  await queryServer(serverUrl, sql);
}

/** Runs one statement on the test server and returns its rows (administration only, see queryPostgresServer). */
export const queryServer = queryPostgresServer;
