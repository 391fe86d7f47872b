import { createClient } from '@clickhouse/client';
import type { ReadCost } from './results.js';

/**
 * What ClickHouse did during a step, from its cumulative counters (system.events): how many INSERT
 * statements the worker sent and how many rows each carried, and how many rows background merges
 * rewrote. Every INSERT makes a new part and merges then rewrite the parts into larger ones, so many
 * small inserts cost ClickHouse CPU out of proportion to the rows; and for the reads benchmark, what
 * its SELECTs read. The counters are server-wide (18.16 has no query_log here): another test run
 * using ClickHouse at the same time adds to them.
 */

const COUNTERS = ['InsertQuery', 'InsertedRows', 'SelectQuery', 'MergedRows', 'SelectedMarks', 'ReadCompressedBytes'] as const;
type Counter = (typeof COUNTERS)[number];
export type ClickHouseSnapshot = Readonly<Record<Counter, number>>;

export interface ClickHouseActivity {
  readonly seconds: number;
  readonly insertsPerSecond: number;
  readonly rowsPerInsert: number;
  readonly selectsPerSecond: number;
  /** Rows rewritten by merges per row inserted: the write amplification of small parts. */
  readonly mergedRowsPerInsertedRow: number;
}

export async function clickhouseCounters(url: string): Promise<ClickHouseSnapshot> {
  const client = createClient({ url });
  try {
    const list = COUNTERS.map((c) => `'${c}'`).join(', ');
    const rows = await (await client.query({ query: `SELECT event, value FROM system.events WHERE event IN (${list})`, format: 'JSONEachRow' })).json<{
      event: Counter;
      value: string | number;
    }>();
    const snapshot = Object.fromEntries(COUNTERS.map((c) => [c, 0])) as Record<Counter, number>;
    // A counter that never fired is absent from system.events: it stays 0.
    for (const row of rows) snapshot[row.event] = Number(row.value);
    return snapshot;
  } finally {
    await client.close();
  }
}

export function clickhouseActivity(before: ClickHouseSnapshot, after: ClickHouseSnapshot, seconds: number): ClickHouseActivity {
  const d = (c: Counter): number => after[c] - before[c];
  return {
    seconds,
    insertsPerSecond: d('InsertQuery') / seconds,
    rowsPerInsert: d('InsertQuery') > 0 ? d('InsertedRows') / d('InsertQuery') : 0,
    selectsPerSecond: d('SelectQuery') / seconds,
    mergedRowsPerInsertedRow: d('InsertedRows') > 0 ? d('MergedRows') / d('InsertedRows') : 0,
  };
}

/** What the SELECTs of `requests` read requests cost ClickHouse, per request (the reads benchmark). */
export function readCost(before: ClickHouseSnapshot, after: ClickHouseSnapshot, requests: number): ReadCost {
  const per = (c: Counter): number => (after[c] - before[c]) / requests;
  return { selects: per('SelectQuery'), marks: per('SelectedMarks'), compressedBytes: per('ReadCompressedBytes') };
}
