import { createClient, type ClickHouseSettings } from '@clickhouse/client';
import { Session } from 'chdb';
import { quoteIdentifier } from '../../src/adapters/event-store/sql.js';
import { uniqueName } from './stack-env.js';

/**
 * Test databases on ClickHouse and chDB. Every database a suite creates is named by
 * testDatabaseName(), and dropTestDatabase refuses any other name, so a wrong variable can never
 * wipe the service's own database on a shared server.
 */

const TEST_PREFIX = 'test_';

/**
 * Runs one statement outside any store (set-up, clean-up, and looking at the tables behind a store):
 * its output in the TabSeparated format, empty for a statement that returns nothing.
 */
export type RunSql = (sql: string) => Promise<string>;

export function testDatabaseName(purpose: string): string {
  return uniqueName(`${TEST_PREFIX}${purpose}`);
}

export function clickhouseSql(url: string, settings?: ClickHouseSettings): RunSql {
  return async (sql) => {
    const client = createClient({ url, ...(settings === undefined ? {} : { clickhouse_settings: settings }) });
    try {
      // The client appends the format clause to a query, which only a SELECT may have.
      if (!/^\s*SELECT\b/i.test(sql)) {
        await client.command({ query: sql });
        return '';
      }
      return await (await client.query({ query: sql, format: 'TabSeparated' })).text();
    } finally {
      await client.close();
    }
  };
}

/** A session of its own on `path`; chDB lets sessions on one path share the engine. */
export function chdbSql(path: string): RunSql {
  return async (sql) => {
    const session = new Session(path);
    try {
      return (await session.queryAsync(sql, { format: 'TabSeparated' })).text();
    } finally {
      session.close();
    }
  };
}

/** Drops a test database: on one server, or with `cluster` on every node of that cluster. */
export async function dropTestDatabase(run: RunSql, name: string, cluster?: string): Promise<void> {
  if (!name.startsWith(TEST_PREFIX)) {
    throw new Error(`refusing to drop ${JSON.stringify(name)}: test databases start with ${TEST_PREFIX}`);
  }
  await run(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)}${cluster === undefined ? '' : ` ON CLUSTER ${quoteIdentifier(cluster)}`}`);
}

/**
 * Runs `body` with background merges of `database`.`table` stopped on each of `nodes`, so rows written
 * meanwhile stay in separate parts, as they do in production until a merge gets to them. Without
 * this, whether a test sees unmerged copies would depend on merge timing. (A replica whose merges
 * run would otherwise merge, and the others fetch its merged part.)
 */
export async function withMergesStopped<T>(nodes: readonly RunSql[], database: string, table: string, body: () => Promise<T>): Promise<T> {
  const target = `${quoteIdentifier(database)}.${quoteIdentifier(table)}`;
  await Promise.all(nodes.map((run) => run(`SYSTEM STOP MERGES ${target}`)));
  try {
    return await body();
  } finally {
    await Promise.all(nodes.map((run) => run(`SYSTEM START MERGES ${target}`)));
  }
}
