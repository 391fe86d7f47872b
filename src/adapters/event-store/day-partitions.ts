import { INTERVALS } from '../../domain/event-stats.js';

/**
 * The events table keeps one partition per UTC day. Days are what retention is counted in, and
 * dropping a whole partition is the one cheap way to delete in ClickHouse (18.16 has no TTL; a DELETE
 * mutation rewrites every part it touches). Days are also small enough to deduplicate at read time: a
 * day still split over several parts may hold two copies of one event (see counting in
 * clickhouse-sql.ts), and only that day has to be counted distinct.
 *
 * Times before 1970 share the first day's partition and times from 2100 on share the last one, so the
 * partition of any Int64 time exists (toDateTime takes seconds as UInt32) and every engine agrees on
 * it. This file holds the partition key in SQL and its twin in JavaScript; day-partitions.test.ts
 * holds them together.
 */

const DAY_MS = INTERVALS.day;
/** 1970-01-01T00:00:00Z and 2100-01-01T00:00:00Z − 1 ms: the range the partition key tells apart. */
const FIRST_MS = 0;
const LAST_MS = Date.UTC(2100, 0, 1) - 1;

/** The partition key of a table by the day of its time column (the partition id is this yyyymmdd number as text). */
export function dayPartitionKey(column: string): string {
  return `toYYYYMMDD(toDateTime(intDiv(least(greatest(${column}, ${FIRST_MS}), ${LAST_MS}), 1000), 'UTC'))`;
}

/** The partition key of the events table. */
export const DAY_PARTITION_KEY = dayPartitionKey('timestamp_ms');

/**
 * The partition key of a table by the month of its time column (yyyymm), with the same clamps: for
 * a table read across many days at once, where one part per day would cost every read a lookup per day.
 */
export function monthPartitionKey(column: string): string {
  return `toYYYYMM(toDateTime(intDiv(least(greatest(${column}, ${FIRST_MS}), ${LAST_MS}), 1000), 'UTC'))`;
}

/** The partition id (yyyymmdd) of an event time, as the engine computes it. */
export function dayPartitionOf(timestampMs: number): string {
  const clamped = Math.min(Math.max(timestampMs, FIRST_MS), LAST_MS);
  return new Date(clamped).toISOString().slice(0, 10).replaceAll('-', '');
}

/**
 * The same partition as a day number (days since 1970-01-01, clamped alike): two times share a
 * partition exactly when their numbers are equal. For grouping many events, where formatting a date
 * per event would cost more than the grouping itself.
 */
export function dayNumberOf(timestampMs: number): number {
  return Math.floor(Math.min(Math.max(timestampMs, FIRST_MS), LAST_MS) / DAY_MS);
}

/** The times a day partition holds: [start, end) in ms, either end open at the clamped extremes. */
export interface DayRange {
  readonly start: number | undefined;
  readonly end: number | undefined;
}

const PARTITION_ID = /^(\d{4})(\d{2})(\d{2})$/;

export function dayRangeOf(partitionId: string): DayRange {
  const match = PARTITION_ID.exec(partitionId);
  if (!match) throw new Error(`not a day partition id: ${JSON.stringify(partitionId)}`);
  const start = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  if (dayPartitionOf(start) !== partitionId) throw new Error(`not a day partition id: ${JSON.stringify(partitionId)}`);
  return clampedRange(start, start + DAY_MS);
}

const MONTH_ID = /^(\d{4})(\d{2})$/;

/** The times a month partition (yyyymm, monthPartitionKey) holds, open at the clamped extremes like a day's. */
export function monthRangeOf(partitionId: string): DayRange {
  const match = MONTH_ID.exec(partitionId);
  const [year, month] = match === null ? [NaN, NaN] : [Number(match[1]), Number(match[2])];
  const start = Date.UTC(year, month - 1, 1);
  if (!Number.isFinite(start) || dayPartitionOf(start).slice(0, 6) !== partitionId) throw new Error(`not a month partition id: ${JSON.stringify(partitionId)}`);
  return clampedRange(start, Date.UTC(year, month, 1));
}

function clampedRange(start: number, end: number): DayRange {
  return { start: start <= FIRST_MS ? undefined : start, end: end > LAST_MS ? undefined : end };
}

/** Adjacent ranges joined, in order: fewer conditions for the same rows. */
export function mergeDayRanges(ranges: readonly DayRange[]): DayRange[] {
  const sorted = [...ranges].sort((a, b) => (a.start ?? -Infinity) - (b.start ?? -Infinity));
  const merged: DayRange[] = [];
  for (const range of sorted) {
    const last = merged.at(-1);
    if (last !== undefined && last.end !== undefined && last.end === range.start) {
      merged[merged.length - 1] = { start: last.start, end: range.end };
    } else {
      merged.push(range);
    }
  }
  return merged;
}
