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
  omittedNote,
  truncate,
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
 * entity, so event data must have these three escaped; nothing else is special in mrkdwn text.
 */
export function escapeSlack(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
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
  return `• *${escapeSlack(entry.key)}*: ${escapeSlack(entry.value)}\n`;
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

export function buildSlackMessage(alert: AlertContent): SlackMessage {
  const blocks: SlackBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: truncate(alertTitle(alert), HEADER_MAX), emoji: true } },
  ];
  if (alert.test) {
    blocks.push({ type: 'context', elements: [mrkdwn(`🧪 ${escapeSlack(alertSummary(alert))}`, CONTEXT_TEXT_MAX)] });
  }
  blocks.push({
    type: 'section',
    fields: [
      mrkdwn(`*Event*\n${escapeSlack(alert.eventName)}`, FIELD_TEXT_MAX),
      mrkdwn(`*Level*\n${alert.level}`, FIELD_TEXT_MAX),
      mrkdwn(`*Customer*\n${escapeSlack(alert.customerId ?? '—')}`, FIELD_TEXT_MAX),
      mrkdwn(`*Time*\n${slackTime(alert.timestamp)}`, FIELD_TEXT_MAX),
      mrkdwn(`*App*\n${escapeSlack(alert.appName)}`, FIELD_TEXT_MAX),
    ],
  });
  const data = dataSection(alert);
  if (data) blocks.push(data);
  blocks.push({
    type: 'context',
    elements: [mrkdwn(`Event ${escapeSlack(alert.eventId)} · rule ${escapeSlack(alert.ruleId)}`, CONTEXT_TEXT_MAX)],
  });
  const fallback = `${alertTitle(alert)}: ${alert.eventName} (${alert.level})`;
  return { text: escapeSlack(truncate(fallback, FALLBACK_TEXT_MAX)), blocks };
}
