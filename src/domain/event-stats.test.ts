import { describe, expect, it } from 'vitest';
import { bucketGrid, defaultInterval, fillBuckets } from './event-stats.js';

const at = (iso: string) => new Date(iso);

describe('event count buckets', () => {
  it('picks minutes up to 6 h, hours up to 14 days, days beyond', () => {
    expect(defaultInterval(at('2026-11-24T00:00:00Z'), at('2026-11-24T06:00:00Z'))).toBe('minute');
    expect(defaultInterval(at('2026-11-24T00:00:00Z'), at('2026-11-24T06:00:00.001Z'))).toBe('hour');
    expect(defaultInterval(at('2026-11-10T00:00:00Z'), at('2026-11-24T00:00:00Z'))).toBe('hour');
    expect(defaultInterval(at('2026-11-10T00:00:00Z'), at('2026-11-24T00:00:01Z'))).toBe('day');
  });

  it('aligns the grid to UTC whatever the range, covering [from, to)', () => {
    expect(bucketGrid(at('2026-11-24T10:30:00Z'), at('2026-11-24T13:00:00Z'), 'hour')).toEqual({ firstMs: Date.parse('2026-11-24T10:00:00Z'), count: 3 });
    expect(bucketGrid(at('2026-11-24T10:30:00Z'), at('2026-11-24T13:00:00.001Z'), 'hour').count).toBe(4);
    expect(bucketGrid(at('2026-11-24T10:30:00Z'), at('2026-11-26T00:00:00Z'), 'day')).toEqual({ firstMs: Date.parse('2026-11-24T00:00:00Z'), count: 2 });
    expect(bucketGrid(at('1969-12-31T23:59:30Z'), at('1970-01-01T00:00:30Z'), 'minute')).toEqual({ firstMs: -60_000, count: 2 });
  });

  it('fills every bucket, with 0 where nothing was counted', () => {
    const grid = bucketGrid(at('2026-11-24T10:00:00Z'), at('2026-11-24T10:03:00Z'), 'minute');
    const counts = new Map([[Date.parse('2026-11-24T10:01:00Z'), 4]]);
    expect(fillBuckets(grid, 'minute', counts)).toEqual([
      { start: at('2026-11-24T10:00:00Z'), count: 0 },
      { start: at('2026-11-24T10:01:00Z'), count: 4 },
      { start: at('2026-11-24T10:02:00Z'), count: 0 },
    ]);
  });
});
