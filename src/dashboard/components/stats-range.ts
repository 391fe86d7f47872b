import type { StatsInterval } from '../api/types';

/**
 * The overview's time ranges. Each asks for fixed buckets (60 minutes, 24 or 168 hours, 30 days), which
 * are also the API's defaults for ranges of these lengths, and ends at the end of the current bucket:
 * the last bar is the bucket now filling, and every bar covers a whole bucket, so a bar's events are
 * exactly those of [start, start + interval).
 */
export const RANGES = [
  { id: '1h', label: '1 h', ms: 3_600_000, interval: 'minute' },
  { id: '24h', label: '24 h', ms: 86_400_000, interval: 'hour' },
  { id: '7d', label: '7 d', ms: 7 * 86_400_000, interval: 'hour' },
  { id: '30d', label: '30 d', ms: 30 * 86_400_000, interval: 'day' },
] as const satisfies readonly { id: string; label: string; ms: number; interval: StatsInterval }[];

export type StatsRange = (typeof RANGES)[number];
export const DEFAULT_RANGE: StatsRange = RANGES[1];

export const INTERVAL_MS: Readonly<Record<StatsInterval, number>> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

export function rangeById(id: string | null): StatsRange {
  return RANGES.find((r) => r.id === id) ?? DEFAULT_RANGE;
}

export interface RangeBounds {
  readonly from: string;
  readonly to: string;
  readonly interval: StatsInterval;
}

/**
 * The range ending at the end of the bucket that holds `now`. Buckets are whole multiples of their
 * length since the epoch, as the API aligns them (UTC): the bounds stay the same until the next
 * bucket begins, so reading again within a bucket asks for the same range.
 */
export function boundsOf(range: StatsRange, now: number): RangeBounds {
  const step = INTERVAL_MS[range.interval];
  const to = (Math.floor(now / step) + 1) * step;
  return { from: new Date(to - range.ms).toISOString(), to: new Date(to).toISOString(), interval: range.interval };
}

/** The starts (ms) of every bucket of [from, to). */
export function bucketStarts({ from, to, interval }: RangeBounds): number[] {
  const step = INTERVAL_MS[interval];
  const starts: number[] = [];
  for (let start = Math.floor(Date.parse(from) / step) * step; start < Date.parse(to); start += step) starts.push(start);
  return starts;
}

/**
 * Day buckets are UTC days: they are labelled as such, or a reader west of Greenwich would see each
 * day under the date before. Minutes and hours read in the reader's own time.
 */
const SHORT: Readonly<Record<StatsInterval, Intl.DateTimeFormatOptions>> = {
  minute: { hour: 'numeric', minute: '2-digit' },
  hour: { weekday: 'short', hour: 'numeric' },
  day: { month: 'short', day: 'numeric', timeZone: 'UTC' },
};
const LONG: Readonly<Record<StatsInterval, Intl.DateTimeFormatOptions>> = {
  minute: { dateStyle: 'medium', timeStyle: 'short' },
  hour: { dateStyle: 'medium', timeStyle: 'short' },
  day: { dateStyle: 'medium', timeZone: 'UTC' },
};

/** A bar's label under the chart: `2:05 PM`, `Mon 2 PM`, `May 3`. */
export function shortBucketLabel(start: number, interval: StatsInterval): string {
  return new Date(start).toLocaleString(undefined, SHORT[interval]);
}

/** A bucket in full, for the table: `May 3, 2026, 2:00 PM`, or `May 3, 2026 (UTC)` for a day. */
export function longBucketLabel(start: number, interval: StatsInterval): string {
  const text = new Date(start).toLocaleString(undefined, LONG[interval]);
  return interval === 'day' ? `${text} (UTC)` : text;
}

/** The events list's filters for one bucket: from its start (inclusive) to the next one's (exclusive). */
export function bucketFilters(start: number, interval: StatsInterval): { readonly from: string; readonly to: string } {
  return { from: new Date(start).toISOString(), to: new Date(start + INTERVAL_MS[interval]).toISOString() };
}
