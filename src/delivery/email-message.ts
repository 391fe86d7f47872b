/**
 * An alert as an e-mail: a one-line subject, a plain-text part and an HTML part saying the same.
 * Every value from the event is HTML-escaped in the HTML part: event data is written by whoever holds
 * an app's API key and must not become markup in the reader's mail client. A template is plain text
 * here: rendered once, shown as it is in the text part and escaped whole in the HTML part.
 */
import {
  LEVEL_COLOUR,
  alertSummary,
  dataEntries,
  formatTime,
  kindFacts,
  omittedNote,
  oneLine,
  plainTitle,
  templatePart,
  templateTitle,
  truncate,
  unescaped,
  type DataEntry,
} from './alert-format.js';
import type { AlertContent } from '../domain/alerting.js';

const SUBJECT_MAX = 200;
/** Mail has no hard limits, but an alert is read at a glance; the webhook carries everything. */
const MAX_DATA_FIELDS = 50;
const DATA_KEY_MAX = 200;
const DATA_VALUE_MAX = 1000;

export interface EmailMessage {
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

interface EmailText {
  readonly subject: string;
  /** The HTML part's heading: the subject when the template wrote it, else the rule's name. */
  readonly heading: string;
  /** Plain text: the template's body or the default sentence. */
  readonly body: string;
}

function emailParts(alert: AlertContent): EmailText {
  const ownTitle = templateTitle(alert, unescaped);
  // A header value must be one line, or a CR LF in a value would start a header of its own.
  const subject = truncate(oneLine(ownTitle ?? `[${alert.level.toUpperCase()}] ${plainTitle(alert)} (${alert.eventName})`), SUBJECT_MAX);
  const body = (templatePart(alert, 'body', unescaped) ?? alertSummary(alert)).replace(/\r\n?/g, '\n');
  return { subject, heading: ownTitle === undefined ? plainTitle(alert) : subject, body };
}

export function emailSubject(alert: AlertContent): string {
  return emailParts(alert).subject;
}

/** The subject and the plain-text body the mail says (renderedMessage in alert-message.ts). */
export function emailText(alert: AlertContent): { title: string; body: string } {
  const { subject, body } = emailParts(alert);
  return { title: subject, body };
}

function facts(alert: AlertContent): Array<[string, string]> {
  return [
    ['Rule', alert.ruleName],
    ['Event', alert.eventName],
    ['Level', alert.level],
    ['Customer', alert.customerId ?? '—'],
    ['Time', formatTime(alert.timestamp)],
    ['App', alert.appName],
    ...kindFacts(alert),
  ];
}

function textBody(alert: AlertContent, text: EmailText, entries: readonly DataEntry[], omitted: number): string {
  const rows = facts(alert).map(([name, value]) => `${`${name}:`.padEnd(10)}${value}`);
  const data =
    entries.length + omitted === 0
      ? []
      : ['', 'Data', ...entries.map((e) => `  ${e.key}: ${e.value}`), ...(omitted > 0 ? [`  ${omittedNote(omitted)}`] : [])];
  return [text.body, '', ...rows, ...data, '', `Event ID: ${alert.eventId}`, `Rule ID: ${alert.ruleId}`, ''].join(
    '\n',
  );
}

function htmlRow(name: string, value: string, code = false): string {
  const shown = code ? `<code>${escapeHtml(value)}</code>` : escapeHtml(value);
  return (
    `<tr><th align="left" valign="top" style="padding:4px 12px 4px 0;color:#555;font-weight:600">${escapeHtml(name)}</th>` +
    `<td style="padding:4px 0;word-break:break-word">${shown}</td></tr>`
  );
}

function htmlBody(alert: AlertContent, text: EmailText, entries: readonly DataEntry[], omitted: number): string {
  const colour = `#${LEVEL_COLOUR[alert.level].toString(16).padStart(6, '0')}`;
  const dataRows = entries.map((e) => htmlRow(e.key, e.value, true)).join('');
  const data =
    entries.length + omitted === 0
      ? ''
      : `<h3 style="margin:20px 0 8px;font-size:15px">Data</h3><table cellpadding="0" cellspacing="0">${dataRows}</table>` +
        (omitted > 0 ? `<p style="color:#777;font-style:italic">${escapeHtml(omittedNote(omitted))}</p>` : '');
  return [
    '<!doctype html>',
    '<html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"></head>',
    '<body style="margin:0;padding:24px;font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;font-size:14px;color:#222">',
    `<div style="border-left:4px solid ${colour};padding-left:16px">`,
    `<h2 style="margin:0 0 8px;font-size:18px">${escapeHtml(text.heading)}</h2>`,
    `<p style="margin:0 0 16px;color:#444">${escapeHtml(text.body).replaceAll('\n', '<br>')}</p>`,
    `<table cellpadding="0" cellspacing="0">${facts(alert)
      .map(([name, value]) => htmlRow(name, value))
      .join('')}</table>`,
    data,
    `<p style="margin-top:24px;color:#999;font-size:12px">Event ID ${escapeHtml(alert.eventId)} · Rule ID ${escapeHtml(alert.ruleId)}</p>`,
    '</div></body></html>',
  ].join('\n');
}

export function buildEmailMessage(alert: AlertContent): EmailMessage {
  const { entries, omitted } = dataEntries(alert.data, {
    maxFields: MAX_DATA_FIELDS,
    maxKey: DATA_KEY_MAX,
    maxValue: DATA_VALUE_MAX,
  });
  const text = emailParts(alert);
  return { subject: text.subject, text: textBody(alert, text, entries, omitted), html: htmlBody(alert, text, entries, omitted) };
}
