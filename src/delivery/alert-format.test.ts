import { describe, expect, it } from 'vitest';
import { sampleAlert } from '../../test/helpers/alerts.js';
import {
  alertSummary,
  buildWebhookBody,
  dataEntries,
  fitWithin,
  formatDuration,
  formatTime,
  formatValue,
  kindFacts,
  oneLine,
  templatePart,
  templateTitle,
  truncate,
  webhookMessage,
} from './alert-format.js';

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
        kind: 'match',
        count: null,
        windowSeconds: null,
        group: null,
        message: { title: 'Large failed payment', body: 'Rule "Large failed payment" matched event payment.failed (error).' },
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

describe('what each kind of alert says', () => {
  const threshold = sampleAlert({ kind: 'threshold', count: 5, windowSeconds: 600, group: 'cus_42' });
  const absence = sampleAlert({ kind: 'absence', eventName: 'payment.ok', level: 'warning', data: {}, metadata: {}, customerId: null, windowSeconds: 900 });

  it('has one sentence per kind', () => {
    expect(alertSummary(sampleAlert())).toBe('Rule "Large failed payment" matched event payment.failed (error).');
    expect(alertSummary(threshold)).toBe('5 matching events of payment.failed in 10 min (group cus_42).');
    expect(alertSummary({ ...threshold, group: null })).toBe('5 matching events of payment.failed in 10 min.');
    expect(alertSummary(absence)).toBe('No payment.ok event for 15 min.');
    expect(alertSummary(sampleAlert({ kind: 'recovered', eventName: 'payment.ok' }))).toBe('payment.ok is back after a silence.');
    expect(alertSummary(sampleAlert({ test: true }))).toBe('Test alert. Rule "Large failed payment" matched event payment.failed (error); no real event triggered it.');
  });

  it('lists the kind and what a threshold or absence alert carries', () => {
    expect(kindFacts(sampleAlert())).toEqual([['Kind', 'match']]);
    expect(kindFacts(threshold)).toEqual([
      ['Kind', 'threshold'],
      ['Count', '5'],
      ['Window', '10 min'],
      ['Group', 'cus_42'],
    ]);
    expect(kindFacts(sampleAlert({ kind: 'recovered', windowSeconds: 3600 }))).toEqual([
      ['Kind', 'recovered'],
      ['Window', '1 h'],
    ]);
    expect(kindFacts(absence)).toEqual([
      ['Kind', 'absence'],
      ['Window', '15 min'],
    ]);
  });

  it('says a window as people do', () => {
    expect([45, 60, 600, 5400, 3600, 7200, 86_400, 604_800, 90_061].map(formatDuration)).toEqual([
      '45 s',
      '1 min',
      '10 min',
      '90 min',
      '1 h',
      '2 h',
      '1 day',
      '7 days',
      '90061 s',
    ]);
  });

  it('makes a title one line', () => {
    expect(oneLine(' a\r\nBcc: x@example.com\u2028b\t ')).toBe('a Bcc: x@example.com b');
  });
});

describe('templatePart', () => {
  it('renders a part with the channel escaping applied to values only', () => {
    const alert = sampleAlert({ template: { title: '*{{event}}* for {{customer_id}}' } });
    expect(templatePart(alert, 'title', (v) => v.toUpperCase())).toBe('*PAYMENT.FAILED* for CUS_42');
    expect(templatePart(alert, 'body', (v) => v)).toBeUndefined();
  });

  it('falls back to the default when a part renders blank, and says a test is a test', () => {
    expect(templatePart(sampleAlert({ template: { title: ' {{data.missing}} ' } }), 'title', (v) => v)).toBeUndefined();
    expect(templatePart(sampleAlert({ test: true, template: { title: 'Hi {{event}}' } }), 'title', (v) => v)).toBe('Test alert: Hi payment.failed');
  });

  it('makes a title one line, and none of a title of line breaks only', () => {
    expect(templateTitle(sampleAlert({ data: { s: 'a\r\nb' }, template: { title: '{{data.s}}!' } }), (v) => v)).toBe('a b!');
    expect(templateTitle(sampleAlert({ data: { s: '\u0085\r\n' }, template: { title: '{{data.s}}' } }), (v) => v)).toBeUndefined();
  });
});

describe('the webhook body for kinds and templates', () => {
  it('carries kind, count, window, group and the rendered message', () => {
    const alert = sampleAlert({
      kind: 'threshold',
      count: 5,
      windowSeconds: 600,
      group: 'cus_42',
      template: { title: '{{count}} failures', body: 'Group {{group}} in {{windowSeconds}} s, amount {{data.amount}}' },
    });
    const body = buildWebhookBody(alert, new Date());
    expect(body.data).toMatchObject({
      kind: 'threshold',
      count: 5,
      windowSeconds: 600,
      group: 'cus_42',
      message: { title: '5 failures', body: 'Group cus_42 in 600 s, amount 1250' },
    });
    // The public fields are all still there.
    expect(body.data.event).toMatchObject({ id: 'evt_01', event: 'payment.failed', data: alert.data });
  });

  it('keeps a value that looks like JSON a string inside the JSON body', () => {
    const note = '"},"kind":"x';
    const alert = sampleAlert({ data: { note }, template: { title: '{{data.note}}', body: 'note: {{data.note}} <b>&amp;</b>' } });
    const parsed = JSON.parse(JSON.stringify(buildWebhookBody(alert, new Date())));
    expect(parsed.data.kind).toBe('match');
    expect(parsed.data.message).toEqual({ title: note, body: `note: ${note} <b>&amp;</b>` });
    expect(parsed.data.event.data.note).toBe(note);
    expect(Object.keys(parsed)).toEqual(['type', 'timestamp', 'data']);
  });

  it('has a default message without a template', () => {
    expect(webhookMessage(sampleAlert({ test: true }))).toEqual({
      title: 'Test alert: Large failed payment',
      body: 'Test alert. Rule "Large failed payment" matched event payment.failed (error); no real event triggered it.',
    });
  });
});
