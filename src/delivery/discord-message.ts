/**
 * An alert as a Discord webhook message: one embed coloured by level. Discord rejects the whole
 * message (HTTP 400) when an embed breaks a limit, so every limit is enforced here: title ≤ 256,
 * description ≤ 4096, ≤ 25 fields with name ≤ 256 and value ≤ 1024 (never empty), footer ≤ 2048,
 * and at most 6000 characters across all of them.
 */
import {
  LEVEL_COLOUR,
  LEVEL_EMOJI,
  alertSummary,
  dataEntries,
  fitWithin,
  kindFacts,
  omittedNote,
  templatePart,
  templateTitle,
  truncate,
} from './alert-format.js';
import type { AlertContent } from '../domain/alerting.js';

const TITLE_MAX = 256;
const DESCRIPTION_MAX = 4096;
const FIELD_NAME_MAX = 256;
const FIELD_VALUE_MAX = 1024;
const FOOTER_MAX = 2048;
const EMBED_TOTAL_MAX = 6000;
const FIELDS_MAX = 25;
/** Room kept for the "…and N more fields not shown" field whatever the description takes. */
const NOTE_RESERVE = 64;
/** A group value is one fact among others, not the place for a long text. */
const GROUP_VALUE_MAX = 256;

export interface DiscordField {
  readonly name: string;
  readonly value: string;
  readonly inline?: boolean;
}

export interface DiscordEmbed {
  readonly title: string;
  readonly description: string;
  readonly color: number;
  readonly fields: readonly DiscordField[];
  readonly footer: { readonly text: string };
  readonly timestamp?: string;
}

export interface DiscordMessage {
  readonly embeds: readonly DiscordEmbed[];
  /** Nothing in an alert may ping anyone, whatever the event data says. */
  readonly allowed_mentions: { readonly parse: readonly never[] };
}

const ASCII_WORD = /[A-Za-z0-9]/;

/**
 * A value from an event (or any text that is not ours) made inert in Discord markdown: every mark
 * backslash-escaped (bold, italic, underline, strike, code, spoiler, quote, masked links `[x](url)`,
 * and `<…>` mentions, channels, emoji and timestamps), headings and lists at a line's start too, and
 * `@everyone` / `@here` broken by a zero-width space. The message also sets `allowed_mentions` to
 * none, so nothing pings even where an escape would not hold.
 */
export function escapeDiscord(text: string): string {
  return text
    .replace(/[\\*_~`|<>[\]]/g, (mark, offset: number, all: string) =>
      // Italics by `_` need a word boundary at both ends, so a single one inside an ASCII word (`cus_42`) is inert.
      mark === '_' && ASCII_WORD.test(all.charAt(offset - 1)) && ASCII_WORD.test(all.charAt(offset + 1)) ? mark : `\\${mark}`,
    )
    // A heading (`# `, `-# `) or list item (`- `, `+ `, `1. `) needs its mark, then a space, at a line's start.
    .replace(/^([ \t]*)(#{1,3}|-#?|\+|\d+[.)])(?=\s|$)/gm, (_line, indent: string, mark: string) =>
      /^\d/.test(mark) ? `${indent}${mark.slice(0, -1)}\\${mark.slice(-1)}` : `${indent}\\${mark}`,
    )
    .replace(/@(everyone|here)/gi, '@\u200b$1');
}

function field(name: string, value: string, inline: boolean): DiscordField {
  // Discord refuses an empty name or value, so an empty one is shown as a dash.
  return { name: truncate(name || '—', FIELD_NAME_MAX), value: truncate(value || '—', FIELD_VALUE_MAX), inline };
}

const size = (f: DiscordField): number => f.name.length + f.value.length;

interface DiscordParts {
  readonly title: string;
  readonly description: string;
  readonly footer: string;
  readonly fixed: readonly DiscordField[];
}

function discordParts(alert: AlertContent): DiscordParts {
  const title = truncate(
    templateTitle(alert, escapeDiscord) ?? `${LEVEL_EMOJI[alert.level]} ${alert.test ? 'Test alert: ' : ''}${escapeDiscord(alert.ruleName)}`,
    TITLE_MAX,
  );
  const body = templatePart(alert, 'body', escapeDiscord) ?? escapeDiscord(alertSummary(alert));
  const footer = truncate(`Event ${alert.eventId} · rule ${alert.ruleId}`, FOOTER_MAX);
  const fixed = [
    field('Event', escapeDiscord(alert.eventName), true),
    field('Level', alert.level, true),
    field('Customer', escapeDiscord(alert.customerId ?? '—'), true),
    field('App', escapeDiscord(alert.appName), true),
    ...kindFacts(alert).map(([name, value]) => field(name, escapeDiscord(truncate(value, GROUP_VALUE_MAX)), true)),
  ];
  // A template's body may be long: it gets what the fixed parts leave of the embed's total, so the
  // embed is never refused; the data fields then share what is left after it.
  const room = EMBED_TOTAL_MAX - title.length - footer.length - fixed.reduce((sum, f) => sum + size(f), 0) - NOTE_RESERVE;
  const description = truncate(alert.test ? `🧪 ${body}` : body, Math.min(DESCRIPTION_MAX, room));
  return { title, description, footer, fixed };
}

/** The embed's title and description (renderedMessage in alert-message.ts). */
export function discordText(alert: AlertContent): { title: string; body: string } {
  const { title, description } = discordParts(alert);
  return { title, body: description };
}

export function buildDiscordMessage(alert: AlertContent): DiscordMessage {
  const { title, description, footer, fixed } = discordParts(alert);
  const { entries, omitted } = dataEntries(alert.data, {
    maxFields: FIELDS_MAX - fixed.length - 1,
    maxKey: FIELD_NAME_MAX,
    maxValue: FIELD_VALUE_MAX,
  });
  const total = Object.keys(alert.data).length;
  const note = (left: number): DiscordField => field('More', omittedNote(left), false);
  const used = title.length + description.length + footer.length + fixed.reduce((sum, f) => sum + size(f), 0);
  const dataFields = fitWithin(
    entries.map((entry) => field(escapeDiscord(entry.key), escapeDiscord(entry.value), false)),
    size,
    EMBED_TOTAL_MAX - used,
    size(note(total)),
    omitted > 0,
  );
  const left = total - dataFields.length;

  const ms = Date.parse(alert.timestamp);
  const embed: DiscordEmbed = {
    title,
    description,
    color: LEVEL_COLOUR[alert.level],
    fields: [...fixed, ...dataFields, ...(left > 0 ? [note(left)] : [])],
    footer: { text: footer },
    // Discord rejects a malformed timestamp, so only a parseable one is sent, normalised to ISO.
    ...(Number.isNaN(ms) ? {} : { timestamp: new Date(ms).toISOString() }),
  };
  return { embeds: [embed], allowed_mentions: { parse: [] } };
}
