import { describe, expect, it } from 'vitest';
import { dayNumberOf, dayPartitionOf, dayRangeOf, mergeDayRanges, monthRangeOf } from './day-partitions.js';

describe('day partitions', () => {
  it('names the UTC day of a time, clamping times before 1970 and from 2100 on to the first and last day', () => {
    expect(dayPartitionOf(Date.parse('2026-11-24T23:59:59.999Z'))).toBe('20261124');
    expect(dayPartitionOf(Date.parse('2026-11-25T00:00:00.000Z'))).toBe('20261125');
    expect(dayPartitionOf(Date.parse('1969-07-20T20:17:00Z'))).toBe('19700101');
    expect(dayPartitionOf(-8.64e15)).toBe('19700101');
    expect(dayPartitionOf(Date.parse('2100-01-01T00:00:00Z'))).toBe('20991231');
    expect(dayPartitionOf(8.64e15)).toBe('20991231');
  });

  it('numbers the days so that two times share a number exactly when they share a partition', () => {
    const times = [-8.64e15, -1, 0, Date.parse('2026-11-24T23:59:59.999Z'), Date.parse('2026-11-25T00:00:00.000Z'), Date.parse('2099-12-31T23:59:59.999Z'), Date.parse('2100-01-01T00:00:00Z'), 8.64e15];
    for (const a of times) {
      for (const b of times) expect(dayNumberOf(a) === dayNumberOf(b)).toBe(dayPartitionOf(a) === dayPartitionOf(b));
    }
  });

  it('gives the range of a day, open at the clamped ends, and refuses what is no day', () => {
    expect(dayRangeOf('20261124')).toEqual({ start: Date.parse('2026-11-24T00:00:00Z'), end: Date.parse('2026-11-25T00:00:00Z') });
    expect(dayRangeOf('19700101')).toEqual({ start: undefined, end: 86_400_000 });
    expect(dayRangeOf('20991231')).toEqual({ start: Date.parse('2099-12-31T00:00:00Z'), end: undefined });
    for (const id of ['2026112', '20261131', '19691231', '21000101', 'abcdefgh']) expect(() => dayRangeOf(id), id).toThrow(/not a day partition id/);
  });

  it('gives the range of a month, open at the clamped ends, and refuses what is no month', () => {
    expect(monthRangeOf('202611')).toEqual({ start: Date.parse('2026-11-01T00:00:00Z'), end: Date.parse('2026-12-01T00:00:00Z') });
    expect(monthRangeOf('202612')).toEqual({ start: Date.parse('2026-12-01T00:00:00Z'), end: Date.parse('2027-01-01T00:00:00Z') });
    expect(monthRangeOf('197001')).toEqual({ start: undefined, end: Date.parse('1970-02-01T00:00:00Z') });
    expect(monthRangeOf('209912')).toEqual({ start: Date.parse('2099-12-01T00:00:00Z'), end: undefined });
    for (const id of ['20261', '202613', '202600', '196912', '210001', '20261124', 'abcdef']) expect(() => monthRangeOf(id), id).toThrow(/not a month partition id/);
  });

  it('joins adjacent days and keeps gaps', () => {
    const day = (id: string) => dayRangeOf(id);
    expect(mergeDayRanges([day('20261124'), day('20261122'), day('20261123'), day('20261126'), day('19700101')])).toEqual([
      { start: undefined, end: 86_400_000 },
      { start: Date.parse('2026-11-22T00:00:00Z'), end: Date.parse('2026-11-25T00:00:00Z') },
      day('20261126'),
    ]);
    expect(mergeDayRanges([])).toEqual([]);
  });
});
