import { createClient } from '@clickhouse/client';
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

export function clickhouseSql(url: string): RunSql {
  return async (sql) => {
    const client = createClient({ url });
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

export async function dropTestDatabase(run: RunSql, name: string): Promise<void> {
  if (!name.startsWith(TEST_PREFIX)) {
    throw new Error(`refusing to drop ${JSON.stringify(name)}: test databases start with ${TEST_PREFIX}`);
  }
  await run(`DROP DATABASE IF EXISTS ${quoteIdentifier(name)}`);
}

/**
 * Runs `body` with background merges of `database`.`table` stopped, so rows written meanwhile stay in
 * separate parts, as they do in production until a merge gets to them. Without this, whether a test
 * sees unmerged copies would depend on merge timing.
 */
export async function withMergesStopped<T>(run: RunSql, database: string, table: string, body: () => Promise<T>): Promise<T> {
  const target = `${quoteIdentifier(database)}.${quoteIdentifier(table)}`;
  await run(`SYSTEM STOP MERGES ${target}`);
  try {
    return await body();
  } finally {
    await run(`SYSTEM START MERGES ${target}`);
  }
}
