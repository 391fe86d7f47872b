import { describe, expect, it } from 'vitest';
import { manyFields, sampleAlert } from '../../test/helpers/alerts.js';
import { buildSlackMessage, escapeSlack, type SlackBlock } from './slack-message.js';

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
