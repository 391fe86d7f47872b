/**
 * An alert as an e-mail: a one-line subject, a plain-text part and an HTML part saying the same.
 * Every value from the event is HTML-escaped in the HTML part: event data is written by whoever holds
 * an app's API key and must not become markup in the reader's mail client.
 */
import {
  LEVEL_COLOUR,
  alertSummary,
  dataEntries,
  formatTime,
  omittedNote,
  truncate,
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

/** A header value must be one line; control characters (CR, LF, ...) are replaced by spaces. */
function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point here
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}

export function emailSubject(alert: AlertContent): string {
  const prefix = alert.test ? 'Test alert: ' : '';
  return truncate(oneLine(`[${alert.level.toUpperCase()}] ${prefix}${alert.ruleName} (${alert.eventName})`), SUBJECT_MAX);
}

function facts(alert: AlertContent): Array<[string, string]> {
  return [
    ['Rule', alert.ruleName],
    ['Event', alert.eventName],
    ['Level', alert.level],
    ['Customer', alert.customerId ?? '—'],
    ['Time', formatTime(alert.timestamp)],
    ['App', alert.appName],
  ];
}

function textBody(alert: AlertContent, entries: readonly DataEntry[], omitted: number): string {
  const rows = facts(alert).map(([name, value]) => `${`${name}:`.padEnd(10)}${value}`);
  const data =
    entries.length + omitted === 0
      ? []
      : ['', 'Data', ...entries.map((e) => `  ${e.key}: ${e.value}`), ...(omitted > 0 ? [`  ${omittedNote(omitted)}`] : [])];
  return [alertSummary(alert), '', ...rows, ...data, '', `Event ID: ${alert.eventId}`, `Rule ID: ${alert.ruleId}`, ''].join(
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

function htmlBody(alert: AlertContent, entries: readonly DataEntry[], omitted: number): string {
  const colour = `#${LEVEL_COLOUR[alert.level].toString(16).padStart(6, '0')}`;
  const title = `${alert.test ? 'Test alert: ' : ''}${alert.ruleName}`;
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
    `<h2 style="margin:0 0 8px;font-size:18px">${escapeHtml(title)}</h2>`,
    `<p style="margin:0 0 16px;color:#444">${escapeHtml(alertSummary(alert))}</p>`,
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
  return { subject: emailSubject(alert), text: textBody(alert, entries, omitted), html: htmlBody(alert, entries, omitted) };
}
