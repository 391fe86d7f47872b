/**
 * Events are stored in one partition per UTC day, and a write makes one part per partition it
 * touches: what an event batch costs the store grows with the days its timestamps fall on, not with
 * its size. In embedded mode the store runs one query at a time, so a write of hundreds of parts would
 * hold every other request for seconds. One request may therefore fall on at most this many days: a
 * month of backfill, at most 31 parts per write. A longer backfill is sent as several requests.
 */
export const MAX_DAYS_PER_REQUEST = 31;

const DAY_MS = 86_400_000;

/** The UTC day of a time, as whole days since 1970-01-01 (negative before it). */
export function utcDayOf(date: Date): number {
  return Math.floor(date.getTime() / DAY_MS);
}

/**
 * The index of the first timestamp that makes the list fall on more than MAX_DAYS_PER_REQUEST distinct
 * UTC days, or undefined. A missing timestamp stands for `now`.
 */
export function firstBeyondDayLimit(timestamps: ReadonlyArray<Date | undefined>, now: Date): number | undefined {
  const days = new Set<number>();
  for (let i = 0; i < timestamps.length; i++) {
    days.add(utcDayOf(timestamps[i] ?? now));
    if (days.size > MAX_DAYS_PER_REQUEST) return i;
  }
  return undefined;
}
