/**
 * Events are stored in one partition per UTC calendar month, and a write makes one part per partition
 * it touches: what an event batch costs the store grows with the months its timestamps span, not with
 * its size. One request may therefore span at most this many months; a backfill over years is sent
 * as requests of nearer timestamps.
 */
export const MAX_MONTHS_PER_REQUEST = 12;

/** The UTC calendar month of a time, as yyyymm (202611). */
export function utcMonthOf(date: Date): number {
  return date.getUTCFullYear() * 100 + date.getUTCMonth() + 1;
}

/**
 * The index of the first timestamp that makes the list span more than MAX_MONTHS_PER_REQUEST months,
 * or undefined. A missing timestamp stands for `now`.
 */
export function firstBeyondMonthLimit(timestamps: ReadonlyArray<Date | undefined>, now: Date): number | undefined {
  const months = new Set<number>();
  for (let i = 0; i < timestamps.length; i++) {
    months.add(utcMonthOf(timestamps[i] ?? now));
    if (months.size > MAX_MONTHS_PER_REQUEST) return i;
  }
  return undefined;
}
