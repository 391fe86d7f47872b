import { EVENT_LEVELS, type EventLevel, type EventStats } from '../api/types';
import { bucketStarts } from './stats-range';

/** One bucket of the overview's chart: its start (ms) and its events per level. */
export interface VolumeBucket {
  readonly start: number;
  readonly byLevel: Readonly<Record<EventLevel, number>>;
  readonly total: number;
}

/**
 * The buckets of a `groupBy=level` answer, every one of its range in order, whichever series the
 * answer holds: a level without events has no series, and a range without events has none at all.
 */
export function volumeBuckets(stats: EventStats): VolumeBucket[] {
  const counts = new Map<string, number>();
  for (const series of stats.series) {
    for (const bucket of series.buckets) counts.set(`${series.key}@${Date.parse(bucket.start)}`, bucket.count);
  }
  return bucketStarts(stats).map((start) => {
    const byLevel = Object.fromEntries(EVENT_LEVELS.map((level) => [level, counts.get(`${level}@${start}`) ?? 0])) as Record<EventLevel, number>;
    return { start, byLevel, total: EVENT_LEVELS.reduce((sum, level) => sum + byLevel[level], 0) };
  });
}

/** The events of one level in the answer (0 when that level has no series). */
export function levelTotal(stats: EventStats, level: EventLevel): number {
  return stats.series.find((s) => s.key === level)?.total ?? 0;
}
