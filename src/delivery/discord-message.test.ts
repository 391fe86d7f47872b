import { describe, expect, it } from 'vitest';
import { manyFields, sampleAlert } from '../../test/helpers/alerts.js';
import { LEVEL_COLOUR } from './alert-format.js';
import { buildDiscordMessage, discordText, escapeDiscord, type DiscordEmbed } from './discord-message.js';

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
      ['Kind', 'match'],
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
    // Five facts (event, level, customer, app, kind), nineteen data fields and the note.
    expect(embed.fields.at(-1)?.value).toBe('…and 81 more fields not shown');
  });
});

describe('Discord messages per kind and template', () => {
  it('says a threshold alert with its count, window and group, and keeps 25 fields at most', () => {
    const embed = onlyEmbed(buildDiscordMessage(sampleAlert({ kind: 'threshold', count: 5, windowSeconds: 600, group: 'cus_42', data: manyFields(100, 1) })));
    expect(embed.description).toBe('5 matching events of payment.failed in 10 min (group cus_42).');
    expect(embed.fields.slice(4, 8).map((f) => [f.name, f.value])).toEqual([
      ['Kind', 'threshold'],
      ['Count', '5'],
      ['Window', '10 min'],
      ['Group', 'cus_42'],
    ]);
    expect(embed.fields).toHaveLength(25);
    expect(embed.fields.at(-1)?.value).toBe('…and 84 more fields not shown');
  });

  it('says an absence and a recovery', () => {
    const absence = onlyEmbed(buildDiscordMessage(sampleAlert({ kind: 'absence', eventName: 'payment.ok', data: {}, windowSeconds: 900 })));
    expect(absence.description).toBe('No payment.ok event for 15 min.');
    const recovered = onlyEmbed(buildDiscordMessage(sampleAlert({ kind: 'recovered', eventName: 'payment.ok' })));
    expect(recovered.description).toBe('payment.ok is back after a silence.');
  });

  it('uses the template for the title and the description, the author\'s markdown kept', () => {
    const embed = onlyEmbed(buildDiscordMessage(sampleAlert({ template: { title: 'Failed: {{data.amount}}', body: '**Card** {{data.card.brand}}\n[Runbook](https://runbook.example)' } })));
    expect(embed.title).toBe('Failed: 1250');
    expect(embed.description).toBe('**Card** visa\n[Runbook](https://runbook.example)');
  });

  it('makes markup and mentions from event data inert, and allows no mentions', () => {
    const hostile = '@everyone @here <@123> <#456> [link](https://evil.example) **x** __u__ ||spoiler|| `code`';
    const message = buildDiscordMessage(
      sampleAlert({ customerId: '<@&789>', data: { note: hostile, '**key**': '> quote' }, template: { title: 'T {{data.note}}', body: 'Note: {{data.note}}' } }),
    );
    expect(message.allowed_mentions).toEqual({ parse: [] });
    const embed = onlyEmbed(message);
    const inert = '@\u200beveryone @\u200bhere \\<@123\\> \\<#456\\> \\[link\\](https://evil.example) \\*\\*x\\*\\* \\_\\_u\\_\\_ \\|\\|spoiler\\|\\| \\`code\\`';
    expect(embed.description).toBe(`Note: ${inert}`);
    expect(embed.title).toBe(`T ${inert}`);
    expect(embed.fields.find((f) => f.name === 'note')?.value).toBe(inert);
    expect(embed.fields.find((f) => f.name === 'Customer')?.value).toBe('\\<@&789\\>');
    expect(embed.fields.find((f) => f.name === '\\*\\*key\\*\\*')?.value).toBe('\\> quote');
    // Nothing live is left: every mention, link and mark is escaped or broken.
    for (const text of [embed.title, embed.description, ...embed.fields.flatMap((f) => [f.name, f.value])]) {
      expect(text).not.toMatch(/(?<!\\)<[@#]|@everyone|@here|(?<!\\)\[link|(?<!\\)\*\*/);
    }
  });

  it('leaves an underscore inside a word alone', () => {
    expect(escapeDiscord('cus_42 order_id a__b__c _x_')).toBe('cus_42 order_id a\\_\\_b\\_\\_c \\_x\\_');
  });

  it('escapes headings and lists at the start of a line', () => {
    expect(escapeDiscord('# big\n-# small\n- item\n1. first\n  + x\n12)\n### h')).toBe('\\# big\n\\-# small\n\\- item\n1\\. first\n  \\+ x\n12\\)\n\\### h');
    // Nothing to escape where no heading or list can start.
    expect(escapeDiscord('2024-05-01 -5 99.5 #tag')).toBe('2024-05-01 -5 99.5 #tag');
  });

  it('gives a long template body what the other parts leave, within 6000 in all', () => {
    const alert = sampleAlert({ data: { big: '*'.repeat(4000), ...manyFields(30, 500) }, template: { title: '{{data.big}}', body: '{{data.big}}' } });
    const embed = onlyEmbed(buildDiscordMessage(alert));
    expect(embed.title.length).toBeLessThanOrEqual(256);
    expect(embed.description.length).toBeLessThanOrEqual(4096);
    expect(embedSize(embed)).toBeLessThanOrEqual(6000);
    expect(discordText(alert)).toEqual({ title: embed.title, body: embed.description });
  });
});
