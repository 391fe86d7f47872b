/**
 * The time grid of event counts: bucket lengths, the default one for a range, and the buckets a range
 * covers, each starting at a whole multiple of its length since the epoch (so minutes, hours and days
 * are UTC-aligned whatever the range's own start).
 */

export const INTERVALS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;
export type Interval = keyof typeof INTERVALS;

/** More buckets than this in one answer is refused: a wider interval says the same in fewer. */
export const MAX_BUCKETS = 1_500;

/** The interval a range gets when none is asked for: minutes up to 6 h, hours up to 14 days, else days. */
export function defaultInterval(from: Date, to: Date): Interval {
  const span = to.getTime() - from.getTime();
  if (span <= 6 * INTERVALS.hour) return 'minute';
  if (span <= 14 * INTERVALS.day) return 'hour';
  return 'day';
}

/** The start of the first bucket and the number of buckets covering [from, to). */
export function bucketGrid(from: Date, to: Date, interval: Interval): { firstMs: number; count: number } {
  const step = INTERVALS[interval];
  const firstMs = Math.floor(from.getTime() / step) * step;
  const lastMs = Math.floor((to.getTime() - 1) / step) * step;
  return { firstMs, count: lastMs < firstMs ? 0 : (lastMs - firstMs) / step + 1 };
}

/** Every bucket of the grid, in order, with the counts given and 0 where none is. */
export function fillBuckets(grid: { firstMs: number; count: number }, interval: Interval, counts: ReadonlyMap<number, number>): { start: Date; count: number }[] {
  const step = INTERVALS[interval];
  return Array.from({ length: grid.count }, (_, i) => {
    const start = grid.firstMs + i * step;
    return { start: new Date(start), count: counts.get(start) ?? 0 };
  });
}
