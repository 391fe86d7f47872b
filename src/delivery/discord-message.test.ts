import { describe, expect, it } from 'vitest';
import { manyFields, sampleAlert } from '../../test/helpers/alerts.js';
import { LEVEL_COLOUR } from './alert-format.js';
import { buildDiscordMessage, type DiscordEmbed } from './discord-message.js';

const embedSize = (e: DiscordEmbed): number =>
  e.title.length + e.description.length + e.footer.text.length + e.fields.reduce((n, f) => n + f.name.length + f.value.length, 0);

function onlyEmbed(message: ReturnType<typeof buildDiscordMessage>): DiscordEmbed {
  expect(message.embeds).toHaveLength(1);
  return message.embeds[0]!;
}

describe('buildDiscordMessage', () => {
  it('is one embed with title, level colour, fields and the ISO timestamp', () => {
    const message = buildDiscordMessage(sampleAlert({ timestamp: '2024-05-01T14:34:56+02:00' }));
    expect(message.allowed_mentions).toEqual({ parse: [] });
    const embed = onlyEmbed(message);
    expect(embed.title).toBe('🔴 Large failed payment');
    expect(embed.color).toBe(LEVEL_COLOUR.error);
    expect(embed.timestamp).toBe('2024-05-01T12:34:56.000Z');
    expect(embed.fields.map((f) => [f.name, f.value])).toEqual([
      ['Event', 'payment.failed'],
      ['Level', 'error'],
      ['Customer', 'cus_42'],
      ['App', 'Shop'],
      ['amount', '1250'],
      ['currency', 'EUR'],
      ['card', '{"brand":"visa","last4":"4242"}'],
    ]);
  });

  it('has a colour per level', () => {
    const colours = (['info', 'warning', 'error', 'success'] as const).map(
      (level) => onlyEmbed(buildDiscordMessage(sampleAlert({ level }))).color,
    );
    expect(new Set(colours).size).toBe(4);
  });

  it('says "Test alert" for test alerts', () => {
    const embed = onlyEmbed(buildDiscordMessage(sampleAlert({ test: true })));
    expect(embed.title).toContain('Test alert');
    expect(embed.description).toContain('Test alert');
  });

  it('never sends an empty field value or a malformed timestamp', () => {
    const embed = onlyEmbed(buildDiscordMessage(sampleAlert({ customerId: null, data: { blank: '' }, timestamp: 'soon' })));
    for (const f of embed.fields) expect(f.value.length).toBeGreaterThan(0);
    expect(embed.timestamp).toBeUndefined();
  });

  it('keeps within the embed limits and says how many fields were left out', () => {
    const embed = onlyEmbed(buildDiscordMessage(sampleAlert({ ruleName: 'r'.repeat(500), data: manyFields(40, 2000) })));
    expect(embed.title.length).toBeLessThanOrEqual(256);
    expect(embed.fields.length).toBeLessThanOrEqual(25);
    for (const f of embed.fields) {
      expect(f.name.length).toBeLessThanOrEqual(256);
      expect(f.value.length).toBeLessThanOrEqual(1024);
    }
    expect(embedSize(embed)).toBeLessThanOrEqual(6000);
    const shown = embed.fields.filter((f) => /^f\d\d$/.test(f.name)).length;
    expect(shown).toBeGreaterThan(0);
    expect(embed.fields.at(-1)?.value).toBe(`…and ${40 - shown} more fields not shown`);
    expect(embed.fields.find((f) => f.name === 'f00')?.value).toMatch(/x…$/);
  });

  it('shows at most 25 fields however small they are', () => {
    const embed = onlyEmbed(buildDiscordMessage(sampleAlert({ data: manyFields(100, 1) })));
    expect(embed.fields).toHaveLength(25);
    expect(embed.fields.at(-1)?.value).toBe('…and 80 more fields not shown');
  });
});
