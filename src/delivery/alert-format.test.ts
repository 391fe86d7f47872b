import { describe, expect, it } from 'vitest';
import { sampleAlert } from '../../test/helpers/alerts.js';
import { buildWebhookBody, dataEntries, fitWithin, formatTime, formatValue, truncate } from './alert-format.js';

describe('truncate', () => {
  it('leaves short text alone and cuts long text to the limit with an ellipsis', () => {
    expect(truncate('short', 10)).toBe('short');
    const cut = truncate('abcdefghij', 5);
    expect(cut).toBe('abcd…');
    expect(cut.length).toBe(5);
  });

  it('never splits a surrogate pair', () => {
    const cut = truncate('ab😀cd', 4); // 'ab' + the emoji's first half would be cut at 3 units
    expect(cut).toBe('ab…');
    expect(cut.length).toBeLessThanOrEqual(4);
  });
});

describe('formatValue', () => {
  it('shows scalars as they are and nested values as compact JSON', () => {
    expect(formatValue('text')).toBe('text');
    expect(formatValue(12.5)).toBe('12.5');
    expect(formatValue(false)).toBe('false');
    expect(formatValue(null)).toBe('null');
    expect(formatValue('')).toBe('(empty)');
    expect(formatValue({ a: [1, 2], b: { c: 'd' } })).toBe('{"a":[1,2],"b":{"c":"d"}}');
  });
});

describe('formatTime', () => {
  it('reads as UTC and passes an unparseable value through', () => {
    expect(formatTime('2024-05-01T14:34:56+02:00')).toBe('2024-05-01 12:34:56 UTC');
    expect(formatTime('yesterday-ish')).toBe('yesterday-ish');
  });
});

describe('dataEntries and fitWithin', () => {
  it('caps the number of fields and says how many were left out', () => {
    const { entries, omitted } = dataEntries({ a: 1, b: 2, c: 3 }, { maxFields: 2, maxKey: 10, maxValue: 10 });
    expect(entries).toEqual([
      { key: 'a', value: '1' },
      { key: 'b', value: '2' },
    ]);
    expect(omitted).toBe(1);
  });

  it('keeps everything that fits, and room for the note only when something is left out', () => {
    const len = (s: string) => s.length;
    expect(fitWithin(['aaa', 'bbb'], len, 6, 5, false)).toEqual(['aaa', 'bbb']);
    expect(fitWithin(['aaa', 'bbb', 'ccc'], len, 8, 2, false)).toEqual(['aaa', 'bbb']);
    expect(fitWithin(['aaa', 'bbb'], len, 6, 3, true)).toEqual(['aaa']);
  });
});

describe('buildWebhookBody', () => {
  it('is the Standard Webhooks envelope carrying the whole event', () => {
    const alert = sampleAlert();
    const body = buildWebhookBody(alert, new Date('2024-05-01T12:35:00.000Z'));
    expect(body).toEqual({
      type: 'alert.triggered',
      timestamp: '2024-05-01T12:35:00.000Z',
      data: {
        appId: 'app_01',
        ruleId: 'rule_01',
        ruleName: 'Large failed payment',
        event: {
          id: 'evt_01',
          event: 'payment.failed',
          level: 'error',
          customer_id: 'cus_42',
          timestamp: '2024-05-01T12:34:56.000Z',
          data: alert.data,
          metadata: alert.metadata,
        },
      },
    });
  });

  it('marks test alerts with their own type', () => {
    expect(buildWebhookBody(sampleAlert({ test: true }), new Date()).type).toBe('alert.test');
  });

  it('does not truncate anything a machine will read', () => {
    const long = 'x'.repeat(10_000);
    const body = buildWebhookBody(sampleAlert({ data: { long } }), new Date());
    expect(body.data.event.data.long).toBe(long);
  });
});
