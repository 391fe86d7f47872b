import { describe, expect, it } from 'vitest';
import { MAX_DAYS_PER_REQUEST, firstBeyondDayLimit, utcDayOf } from './request-days.js';

describe('days of a request', () => {
  it('counts UTC days, whatever the local time zone, before 1970 too', () => {
    expect(utcDayOf(new Date('2026-11-30T23:30:00-05:00'))).toBe(utcDayOf(new Date('2026-12-01T00:00:00Z')));
    expect(utcDayOf(new Date('2026-12-01T23:59:59.999Z'))).toBe(utcDayOf(new Date('2026-12-01T00:00:00Z')));
    expect(utcDayOf(new Date('1970-01-01T00:00:00Z'))).toBe(0);
    expect(utcDayOf(new Date('1969-12-31T23:59:59.999Z'))).toBe(-1);
    expect(utcDayOf(new Date('1969-12-31T00:00:00Z'))).toBe(-1);
  });

  it('names the first timestamp beyond the limit; a missing one counts as now', () => {
    const now = new Date('2026-11-23T12:00:00Z');
    // The limit's worth of days, today among them, each at two times of day.
    const days = Array.from({ length: MAX_DAYS_PER_REQUEST }, (_, n) => new Date(Date.UTC(2026, 10, 23 - n, n % 24)));
    const lateOnSameDays = days.map((d) => new Date(d.getTime() + 3_600_000 * (23 - d.getUTCHours())));
    expect(firstBeyondDayLimit([...days, ...lateOnSameDays, undefined], now)).toBeUndefined();
    // Today without a timestamp, the other days but one, another day, then nothing new.
    const other = new Date('2025-01-01T00:00:00Z');
    expect(firstBeyondDayLimit([undefined, ...days.slice(1), other, undefined, days[3]], now)).toBe(MAX_DAYS_PER_REQUEST);
    expect(firstBeyondDayLimit([], now)).toBeUndefined();
  });
});
