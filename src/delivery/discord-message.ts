/**
 * An alert as a Discord webhook message: one embed coloured by level. Discord rejects the whole
 * message (HTTP 400) when an embed breaks a limit, so every limit is enforced here: title ≤ 256,
 * description ≤ 4096 (we use ≤ 1024), ≤ 25 fields with name ≤ 256 and value ≤ 1024 (never empty), footer ≤ 2048,
 * and at most 6000 characters across all of them.
 */
import {
  LEVEL_COLOUR,
  alertSummary,
  alertTitle,
  dataEntries,
  fitWithin,
  omittedNote,
  truncate,
} from './alert-format.js';
import type { AlertContent } from '../domain/alerting.js';

const TITLE_MAX = 256;
/** Discord allows 4096; the summary is one sentence, and a shorter cap leaves the 6000 total to data. */
const DESCRIPTION_MAX = 1024;
const FIELD_NAME_MAX = 256;
const FIELD_VALUE_MAX = 1024;
const FOOTER_MAX = 2048;
const EMBED_TOTAL_MAX = 6000;
const FIELDS_MAX = 25;
/** Four fixed fields (event, level, customer, app) and one "more fields" note leave 20 for data. */
const FIXED_FIELDS = 4;
const MAX_DATA_FIELDS = FIELDS_MAX - FIXED_FIELDS - 1;

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

function field(name: string, value: string, inline: boolean): DiscordField {
  // Discord refuses an empty name or value, so an empty one is shown as a dash.
  return { name: truncate(name || '—', FIELD_NAME_MAX), value: truncate(value || '—', FIELD_VALUE_MAX), inline };
}

const size = (f: DiscordField): number => f.name.length + f.value.length;

export function buildDiscordMessage(alert: AlertContent): DiscordMessage {
  const title = truncate(alertTitle(alert), TITLE_MAX);
  const description = truncate(alert.test ? `🧪 ${alertSummary(alert)}` : alertSummary(alert), DESCRIPTION_MAX);
  const footer = truncate(`Event ${alert.eventId} · rule ${alert.ruleId}`, FOOTER_MAX);
  const fixed = [
    field('Event', alert.eventName, true),
    field('Level', alert.level, true),
    field('Customer', alert.customerId ?? '—', true),
    field('App', alert.appName, true),
  ];

  const { entries, omitted } = dataEntries(alert.data, {
    maxFields: MAX_DATA_FIELDS,
    maxKey: FIELD_NAME_MAX,
    maxValue: FIELD_VALUE_MAX,
  });
  const total = Object.keys(alert.data).length;
  const note = (left: number): DiscordField => field('More', omittedNote(left), false);
  const used = title.length + description.length + footer.length + fixed.reduce((sum, f) => sum + size(f), 0);
  const dataFields = fitWithin(
    entries.map((entry) => field(entry.key, entry.value, false)),
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
