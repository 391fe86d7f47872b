import { describe, expect, it } from 'vitest';
import { manyFields, sampleAlert } from '../../test/helpers/alerts.js';
import { buildSlackMessage, escapeSlack, escapeSlackText, slackText, type SlackBlock } from './slack-message.js';

const sectionTexts = (blocks: readonly SlackBlock[]): string[] =>
  blocks.flatMap((b) => (b.type === 'section' && b.text ? [b.text.text] : []));

describe('buildSlackMessage', () => {
  it('has a header with the level emoji and rule name, the facts as fields, the data as a list', () => {
    const message = buildSlackMessage(sampleAlert());
    expect(message.text).toContain('Large failed payment');
    expect(message.text).toContain('payment.failed');

    const [header, facts, data] = message.blocks;
    expect(header).toEqual({ type: 'header', text: { type: 'plain_text', text: '🔴 Large failed payment', emoji: true } });
    expect(facts?.type).toBe('section');
    const fields = facts?.type === 'section' ? (facts.fields ?? []).map((f) => f.text) : [];
    expect(fields).toEqual([
      '*Event*\npayment.failed',
      '*Level*\nerror',
      '*Customer*\ncus_42',
      '*Time*\n<!date^1714566896^{date_short_pretty} {time_secs}|2024-05-01 12:34:56 UTC>',
      '*App*\nShop',
      '*Kind*\nmatch',
    ]);
    expect(data).toEqual({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: '*Data*\n• *amount*: 1250\n• *currency*: EUR\n• *card*: {"brand":"visa","last4":"4242"}',
      },
    });
  });

  it('says "Test alert" for test alerts', () => {
    const message = buildSlackMessage(sampleAlert({ test: true }));
    expect(message.text).toContain('Test alert');
    expect(JSON.stringify(message.blocks[0])).toContain('Test alert: Large failed payment');
  });

  it('escapes mention and link syntax from event data', () => {
    expect(escapeSlack('<!channel> & <https://evil|click>')).toBe('&lt;!channel&gt; &amp; &lt;https://evil|click&gt;');
    const message = buildSlackMessage(sampleAlert({ data: { note: '<!channel> pay now' }, customerId: '<@U123>' }));
    const serialised = JSON.stringify(message);
    expect(serialised).not.toContain('<!channel>');
    expect(serialised).not.toContain('<@U123>');
  });

  it('keeps within Block Kit limits and says how many fields were left out', () => {
    const message = buildSlackMessage(
      sampleAlert({ ruleName: 'r'.repeat(400), eventName: 'e'.repeat(3000), data: manyFields(60, 400) }),
    );
    const header = message.blocks[0];
    expect(header?.type === 'header' && header.text.text.length).toBeLessThanOrEqual(150);
    for (const block of message.blocks) {
      if (block.type !== 'section') continue;
      expect(block.fields?.length ?? 0).toBeLessThanOrEqual(10);
      for (const field of block.fields ?? []) expect(field.text.length).toBeLessThanOrEqual(2000);
      expect(block.text?.text.length ?? 0).toBeLessThanOrEqual(3000);
    }
    const data = sectionTexts(message.blocks).find((t) => t.startsWith('*Data*')) ?? '';
    const shown = data.split('\n').filter((line) => line.startsWith('• ')).length;
    expect(shown).toBeGreaterThan(0);
    expect(data).toContain(`and ${60 - shown} more fields not shown`);
  });

  it('truncates one long value with an ellipsis', () => {
    const message = buildSlackMessage(sampleAlert({ data: { trace: 'y'.repeat(5000) } }));
    const data = sectionTexts(message.blocks).find((t) => t.startsWith('*Data*')) ?? '';
    expect(data).toMatch(/• \*trace\*: y+…$/);
    expect(data.length).toBeLessThan(600);
  });

  it('leaves the data section out when the event has no data', () => {
    const message = buildSlackMessage(sampleAlert({ data: {} }));
    expect(sectionTexts(message.blocks).some((t) => t.startsWith('*Data*'))).toBe(false);
  });
});

const factFields = (blocks: readonly SlackBlock[]): string[] =>
  blocks.flatMap((b) => (b.type === 'section' && b.fields ? b.fields.map((f) => f.text) : []));

describe('Slack messages per kind and template', () => {
  it('says a threshold alert with its count, window and group', () => {
    const message = buildSlackMessage(sampleAlert({ kind: 'threshold', count: 5, windowSeconds: 600, group: 'cus_42' }));
    expect(message.blocks.map((b) => b.type)).toEqual(['header', 'section', 'section', 'section', 'context']);
    expect(sectionTexts(message.blocks)[0]).toBe('5 matching events of payment.failed in 10 min (group cus_42).');
    expect(factFields(message.blocks)).toEqual(expect.arrayContaining(['*Kind*\nthreshold', '*Count*\n5', '*Window*\n10 min', '*Group*\ncus_42']));
    expect(message.text).toContain('5 matching events');
  });

  it('says an absence and a recovery', () => {
    const absence = buildSlackMessage(sampleAlert({ kind: 'absence', eventName: 'payment.ok', level: 'warning', data: {}, customerId: null, windowSeconds: 900 }));
    expect(sectionTexts(absence.blocks)).toEqual(['No payment.ok event for 15 min.']);
    expect(factFields(absence.blocks)).toEqual(expect.arrayContaining(['*Kind*\nabsence', '*Window*\n15 min']));
    const recovered = buildSlackMessage(sampleAlert({ kind: 'recovered', eventName: 'payment.ok' }));
    expect(sectionTexts(recovered.blocks)[0]).toBe('payment.ok is back after a silence.');
  });

  it('puts the template title in the header and its body in a section of its own', () => {
    const message = buildSlackMessage(
      sampleAlert({ template: { title: 'Payment of {{data.amount}} {{data.currency}} failed', body: '*Card* {{data.card.brand}} for <https://runbook.example|the runbook>' } }),
    );
    expect(message.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Payment of 1250 EUR failed', emoji: true } });
    // The author's own mrkdwn stays markup; only the values are escaped.
    expect(sectionTexts(message.blocks)[0]).toBe('*Card* visa for <https://runbook.example|the runbook>');
    expect(message.text).toBe('Payment of 1250 EUR failed: *Card* visa for <https://runbook.example|the runbook>');
  });

  it('makes markup from event data inert in the template, the facts and the data', () => {
    const hostile = '<!channel> <https://evil.example|click> *bold* _it_ ~gone~ `code` & more';
    const alert = sampleAlert({
      customerId: '<@U123>',
      data: { note: hostile, '*key*': 'x' },
      template: { title: 'Alert {{data.note}}', body: 'Note: {{data.note}}\nCustomer: {{customer_id}}' },
    });
    const message = buildSlackMessage(alert);
    // Every mrkdwn text (the header is plain_text, checked below).
    const serialised = JSON.stringify({ text: message.text, blocks: message.blocks.slice(1) });
    for (const live of ['<!channel>', '<https://evil', '<@U123>', '*bold*', '_it_', '~gone~', '`code`', '*key*']) {
      expect(serialised).not.toContain(live);
    }
    const inert = '&lt;!channel&gt; &lt;https://evil.example|click&gt; \u2217bold\u2217 \u02cdit\u02cd \u223cgone\u223c \u02cbcode\u02cb &amp; more';
    expect(sectionTexts(message.blocks)[0]).toBe(`Note: ${inert}\nCustomer: &lt;@U123&gt;`);
    expect(sectionTexts(message.blocks).find((t) => t.startsWith('*Data*'))).toContain(`• *\u2217key\u2217*: x`);
    // The header is plain_text, which Slack never reads as markup: the value is shown as it came.
    expect(message.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: `Alert ${hostile}`, emoji: true } });
    expect(message.text.startsWith(`Alert ${inert}:`)).toBe(true);
  });

  it('leaves formatting marks inside words alone', () => {
    expect(escapeSlackText('cus_42 snake_case_name a*b 2*3')).toBe('cus_42 snake_case_name a*b 2*3');
    expect(escapeSlackText('_x_ *y* ~z~')).toBe('\u02cdx\u02cd \u2217y\u2217 \u223cz\u223c');
  });

  it('falls back to the default wording when a template part renders blank', () => {
    const text = slackText(sampleAlert({ template: { title: '{{data.missing}}', body: '  ' } }));
    expect(text).toEqual({ title: '🔴 Large failed payment', body: 'Rule "Large failed payment" matched event payment.failed (error).' });
  });

  it('keeps a long template body within Block Kit limits', () => {
    const message = buildSlackMessage(sampleAlert({ data: { big: '<'.repeat(4000) }, template: { title: '{{data.big}}', body: '{{data.big}}' } }));
    const header = message.blocks[0];
    expect(header?.type === 'header' && header.text.text.length).toBe(150);
    for (const text of sectionTexts(message.blocks)) expect(text.length).toBeLessThanOrEqual(3000);
    expect(message.text.length).toBeLessThanOrEqual(500);
  });
});
