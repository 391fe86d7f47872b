import { describe, expect, it } from 'vitest';
import { MAX_MONTHS_PER_REQUEST, firstBeyondMonthLimit, utcMonthOf } from './months.js';

describe('months of a request', () => {
  it('counts UTC calendar months, whatever the local time zone', () => {
    expect(utcMonthOf(new Date('2026-11-30T23:30:00-05:00'))).toBe(202612);
    expect(utcMonthOf(new Date('1969-07-20T20:17:00Z'))).toBe(196907);
  });

  it('names the first timestamp beyond the limit; a missing one counts as now', () => {
    const now = new Date('2026-11-23T12:00:00Z');
    const months = Array.from({ length: MAX_MONTHS_PER_REQUEST }, (_, n) => new Date(Date.UTC(2026, 10 - n, 1)));
    expect(firstBeyondMonthLimit([...months, ...months, undefined], now)).toBeUndefined();
    expect(firstBeyondMonthLimit([undefined, ...months.slice(1), new Date('2025-01-01T00:00:00Z'), undefined], now)).toBe(MAX_MONTHS_PER_REQUEST);
  });
});
