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

/** Runs one statement that returns nothing, outside any store (set-up and clean-up only). */
export type RunSql = (sql: string) => Promise<void>;

export function testDatabaseName(purpose: string): string {
  return uniqueName(`${TEST_PREFIX}${purpose}`);
}

export function clickhouseSql(url: string): RunSql {
  return async (sql) => {
    const client = createClient({ url });
    try {
      await client.command({ query: sql });
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
      await session.queryAsync(sql);
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
