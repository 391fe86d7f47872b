/**
 * An alert as a Slack incoming-webhook message: Block Kit blocks plus the `text` Slack shows in
 * notifications and where blocks cannot render. Limits are Block Kit's: header text ≤ 150
 * characters, section text ≤ 3000, ≤ 10 fields of ≤ 2000 each.
 */
import {
  alertSummary,
  alertTitle,
  dataEntries,
  fitWithin,
  formatTime,
  kindFacts,
  omittedNote,
  templatePart,
  templateTitle,
  truncate,
  unescaped,
  type DataEntry,
} from './alert-format.js';
import type { AlertContent } from '../domain/alerting.js';

const HEADER_MAX = 150;
const SECTION_TEXT_MAX = 3000;
const FIELD_TEXT_MAX = 2000;
const CONTEXT_TEXT_MAX = 3000;
/** Enough to read an alert at a glance; the webhook channel is the one that carries everything. */
const MAX_DATA_FIELDS = 20;
const DATA_KEY_MAX = 100;
const DATA_VALUE_MAX = 500;
const FALLBACK_TEXT_MAX = 500;

interface SlackText {
  readonly type: 'plain_text' | 'mrkdwn';
  readonly text: string;
  readonly emoji?: boolean;
}

export type SlackBlock =
  | { readonly type: 'header'; readonly text: SlackText }
  | { readonly type: 'section'; readonly text?: SlackText; readonly fields?: readonly SlackText[] }
  | { readonly type: 'context'; readonly elements: readonly SlackText[] };

export interface SlackMessage {
  readonly text: string;
  readonly blocks: readonly SlackBlock[];
}

/**
 * Slack reads `<…>` as links and mentions (`<!channel>` pings everyone) and `&` as the start of an
 * entity, so text that is not our own markup must have these three escaped.
 */
export function escapeSlack(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/**
 * Look-alikes for mrkdwn's formatting marks. Slack has no escape for them (a zero-width space around
 * a mark makes formatting work, not stop), so a value's mark is swapped for a character that looks
 * the same but means nothing.
 */
const FORMATTING_LOOKALIKE: Readonly<Record<string, string>> = { '*': '\u2217', _: '\u02cd', '~': '\u223c', '`': '\u02cb' };
const WORD_CHAR = /[\p{L}\p{N}]/u;

/**
 * A value from an event (or any text that is not ours) made inert in mrkdwn: no link, mention or
 * entity (escapeSlack), and no bold, italic, strike or code. `*`, `_` and `~` format only at the edge
 * of a word, so one inside a word (`cus_42`, `snake_case`) is left as it is; a backtick always can.
 */
export function escapeSlackText(text: string): string {
  return escapeSlack(text).replace(/[*_~`]/g, (mark, offset: number, all: string) =>
    mark !== '`' && WORD_CHAR.test(all.charAt(offset - 1)) && WORD_CHAR.test(all.charAt(offset + 1)) ? mark : FORMATTING_LOOKALIKE[mark]!,
  );
}

/** Slack's date token shows the time in each reader's own time zone, the ISO text where it cannot. */
function slackTime(iso: string): string {
  const ms = Date.parse(iso);
  const readable = escapeSlack(formatTime(iso));
  if (Number.isNaN(ms)) return readable;
  return `<!date^${Math.floor(ms / 1000)}^{date_short_pretty} {time_secs}|${readable}>`;
}

function mrkdwn(text: string, max: number): SlackText {
  return { type: 'mrkdwn', text: truncate(text, max) };
}

function dataLine(entry: DataEntry): string {
  return `• *${escapeSlackText(entry.key)}*: ${escapeSlackText(entry.value)}\n`;
}

function dataSection(alert: AlertContent): SlackBlock | null {
  const { entries, omitted } = dataEntries(alert.data, {
    maxFields: MAX_DATA_FIELDS,
    maxKey: DATA_KEY_MAX,
    maxValue: DATA_VALUE_MAX,
  });
  if (entries.length === 0 && omitted === 0) return null;
  const heading = '*Data*\n';
  // Escaping can lengthen a line, so sizes are measured on the escaped text that is sent.
  const lines = entries.map(dataLine);
  const noteRoom = omittedNote(Object.keys(alert.data).length).length + 2;
  const kept = fitWithin(lines, (line) => line.length, SECTION_TEXT_MAX - heading.length, noteRoom, omitted > 0);
  const left = Object.keys(alert.data).length - kept.length;
  const text = heading + kept.join('') + (left > 0 ? `_${omittedNote(left)}_` : '');
  return { type: 'section', text: mrkdwn(text.trimEnd(), SECTION_TEXT_MAX) };
}

interface SlackParts {
  /** The header block's text: plain_text, which Slack never reads as markup. */
  readonly title: string;
  /** mrkdwn: the template's body with escaped values, or the escaped default summary. */
  readonly body: string;
  readonly ownBody: boolean;
}

function slackParts(alert: AlertContent): SlackParts {
  const ownBody = templatePart(alert, 'body', escapeSlackText);
  return {
    title: truncate(templateTitle(alert, unescaped) ?? alertTitle(alert), HEADER_MAX),
    body: truncate(ownBody ?? escapeSlackText(alertSummary(alert)), SECTION_TEXT_MAX),
    ownBody: ownBody !== undefined,
  };
}

/** The header and the mrkdwn text an alert's Slack message says (renderedMessage in alert-message.ts). */
export function slackText(alert: AlertContent): { title: string; body: string } {
  const { title, body } = slackParts(alert);
  return { title, body };
}

export function buildSlackMessage(alert: AlertContent): SlackMessage {
  const { title, body, ownBody } = slackParts(alert);
  const blocks: SlackBlock[] = [{ type: 'header', text: { type: 'plain_text', text: title, emoji: true } }];
  if (alert.test) {
    blocks.push({ type: 'context', elements: [mrkdwn(`🧪 ${body}`, CONTEXT_TEXT_MAX)] });
  } else if (ownBody || alert.kind !== 'match') {
    // A plain match needs no sentence: its header and facts say it all, as they always have.
    blocks.push({ type: 'section', text: mrkdwn(body, SECTION_TEXT_MAX) });
  }
  const facts = [
    mrkdwn(`*Event*\n${escapeSlackText(alert.eventName)}`, FIELD_TEXT_MAX),
    mrkdwn(`*Level*\n${alert.level}`, FIELD_TEXT_MAX),
    mrkdwn(`*Customer*\n${escapeSlackText(alert.customerId ?? '—')}`, FIELD_TEXT_MAX),
    mrkdwn(`*Time*\n${slackTime(alert.timestamp)}`, FIELD_TEXT_MAX),
    mrkdwn(`*App*\n${escapeSlackText(alert.appName)}`, FIELD_TEXT_MAX),
    // At most four more (kind, count, window, group): ten fields is Block Kit's limit.
    ...kindFacts(alert).map(([name, value]) => mrkdwn(`*${name}*\n${escapeSlackText(value)}`, FIELD_TEXT_MAX)),
  ];
  blocks.push({ type: 'section', fields: facts });
  const data = dataSection(alert);
  if (data) blocks.push(data);
  blocks.push({
    type: 'context',
    elements: [mrkdwn(`Event ${escapeSlack(alert.eventId)} · rule ${escapeSlack(alert.ruleId)}`, CONTEXT_TEXT_MAX)],
  });
  // What Slack shows in notifications: the headline and the sentence, both as mrkdwn.
  return { text: truncate(`${escapeSlackText(title)}: ${body}`, FALLBACK_TEXT_MAX), blocks };
}
