import { renderTemplate } from '../domain/alert-template.js';
import type { AlertContent, AlertKind, AlertTemplate } from '../domain/alerting.js';
/**
 * What every channel's message shares: the level's emoji and colour, what each kind of alert says,
 * how a template replaces the default wording, how a data value reads, how long text is cut, and the
 * signed webhook's JSON body. Pure functions, no I/O; each channel's own layout and escaping live
 * beside this file (slack-message.ts, discord-message.ts, email-message.ts).
 */

export type AlertLevel = AlertContent['level'];

export const ELLIPSIS = '…';

export const LEVEL_EMOJI: Readonly<Record<AlertLevel, string>> = {
  info: 'ℹ️',
  warning: '⚠️',
  error: '🔴',
  success: '✅',
};

/** Discord embed colours (decimal RGB), also the accent of the HTML mail. */
export const LEVEL_COLOUR: Readonly<Record<AlertLevel, number>> = {
  info: 0x3498db,
  warning: 0xf39c12,
  error: 0xe74c3c,
  success: 0x2ecc71,
};

/**
 * Cuts `text` to at most `max` UTF-16 units, the last being an ellipsis. Slack and Discord count
 * characters (code points), which is never more than UTF-16 units, so a cut by units stays within
 * their limits; a surrogate pair split by the cut is dropped whole so no broken character is sent.
 */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  if (max <= 1) return ELLIPSIS.slice(0, max);
  let head = text.slice(0, max - 1);
  const last = head.charCodeAt(head.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) head = head.slice(0, -1);
  return head + ELLIPSIS;
}

/** A data value as people read it: strings as they are, nested values as compact JSON. */
export function formatValue(value: unknown): string {
  if (typeof value === 'string') return value === '' ? '(empty)' : value;
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  try {
    return JSON.stringify(value) ?? `(${typeof value})`;
  } catch {
    // Event data arrives as JSON, so this is unreachable in practice; a message must still go out.
    return '(unserialisable value)';
  }
}

/** `2024-05-01 12:34:56 UTC`; an unparseable timestamp is shown as it came. */
export function formatTime(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** A rule's window as people say it: `90 s`, `10 min`, `2 h`, `7 days`. */
export function formatDuration(seconds: number): string {
  if (seconds >= 86_400 && seconds % 86_400 === 0) return `${seconds / 86_400} day${seconds === 86_400 ? '' : 's'}`;
  if (seconds >= 3600 && seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds >= 60 && seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** A header or title is one line: control characters (CR, LF, ...) and line separators become spaces. */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point here
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
}

const testPrefix = (alert: AlertContent): string => (alert.test ? 'Test alert: ' : '');

/** The rule's name, said to be a test for tests: the headline without decoration. */
export function plainTitle(alert: AlertContent): string {
  return `${testPrefix(alert)}${alert.ruleName}`;
}

/** The headline the chat channels use by default: the level's emoji, then the plain title. */
export function alertTitle(alert: AlertContent): string {
  return `${LEVEL_EMOJI[alert.level]} ${plainTitle(alert)}`;
}

function whatHappened(alert: AlertContent): string {
  const window = alert.windowSeconds === undefined ? undefined : formatDuration(alert.windowSeconds);
  switch (alert.kind) {
    case 'match':
      return `Rule "${alert.ruleName}" matched event ${alert.eventName} (${alert.level})`;
    case 'threshold': {
      const count = alert.count === undefined ? 'Matching events' : `${alert.count} matching event${alert.count === 1 ? '' : 's'}`;
      const group = alert.group === undefined || alert.group === null ? '' : ` (group ${alert.group})`;
      return `${count} of ${alert.eventName}${window === undefined ? '' : ` in ${window}`}${group}`;
    }
    case 'absence':
      return `No ${alert.eventName} event for ${window ?? "the rule's window"}`;
    case 'recovered':
      return `${alert.eventName} is back after a silence`;
  }
}

/** One sentence saying what happened, by kind: the default text of every channel. */
export function alertSummary(alert: AlertContent): string {
  const what = whatHappened(alert);
  return alert.test ? `Test alert. ${what}; no real event triggered it.` : `${what}.`;
}

/**
 * The facts that say which kind of alert this is, shown beside the event's in every chat and mail
 * message (so they stay visible when a template replaces the summary): the kind, and what a
 * threshold or absence alert carries.
 */
export function kindFacts(alert: AlertContent): Array<[name: string, value: string]> {
  const facts: Array<[string, string]> = [['Kind', alert.kind]];
  if (alert.count !== undefined) facts.push(['Count', String(alert.count)]);
  if (alert.windowSeconds !== undefined) facts.push(['Window', formatDuration(alert.windowSeconds)]);
  if (alert.group !== undefined && alert.group !== null) facts.push(['Group', formatValue(alert.group)]);
  return facts;
}

/**
 * One part of the action's template rendered for a channel: each placeholder's value passed through
 * `escape`, the template's own text kept as its author wrote it (it is the channel's own markup).
 * Undefined when the template has no such part, or when it renders blank (every placeholder empty):
 * the channel then uses its default, since Slack and Discord refuse an empty header or text. A test
 * alert's title still says it is a test.
 */
export function templatePart(alert: AlertContent, part: keyof AlertTemplate, escape: (value: string) => string): string | undefined {
  const text = alert.template?.[part];
  if (text === undefined) return undefined;
  const rendered = renderTemplate(text, alert, escape);
  if (rendered.trim() === '') return undefined;
  return part === 'title' ? `${testPrefix(alert)}${rendered}` : rendered;
}

/**
 * The template's title as a header or subject line: on one line (oneLine), undefined when there is
 * none or nothing is left of it.
 */
export function templateTitle(alert: AlertContent, escape: (value: string) => string): string | undefined {
  const title = templatePart(alert, 'title', escape);
  const line = title === undefined ? '' : oneLine(title);
  return line === '' ? undefined : line;
}

/** The escaping of a plain-text channel part (the e-mail's text, the webhook's message): none. */
export const unescaped = (value: string): string => value;

export interface DataEntry {
  readonly key: string;
  readonly value: string;
}

/**
 * The data fields to show, in the order the event sent them, each value cut to `maxValue`, at most
 * `maxFields` of them; `omitted` says how many were left out so the message can say so.
 */
export function dataEntries(
  data: Readonly<Record<string, unknown>>,
  limits: { maxFields: number; maxKey: number; maxValue: number },
): { entries: DataEntry[]; omitted: number } {
  const all = Object.entries(data);
  const entries = all.slice(0, limits.maxFields).map(([key, value]) => ({
    key: truncate(key === '' ? '(unnamed)' : key, limits.maxKey),
    value: truncate(formatValue(value), limits.maxValue),
  }));
  return { entries, omitted: all.length - entries.length };
}

export function omittedNote(omitted: number): string {
  return `…and ${omitted} more field${omitted === 1 ? '' : 's'} not shown`;
}

/**
 * Keeps the longest prefix of `items` whose sizes fit in `budget`. When anything is left out (here,
 * or already by `dataEntries`, which `noteNeeded` says), `reserve` is kept free for the "and N more"
 * note. Used where a channel caps a whole message (Slack's section text, Discord's embed total).
 */
export function fitWithin<T>(
  items: readonly T[],
  sizeOf: (item: T) => number,
  budget: number,
  reserve: number,
  noteNeeded: boolean,
): T[] {
  const total = items.reduce((sum, item) => sum + sizeOf(item), 0);
  const room = noteNeeded || total > budget ? budget - reserve : budget;
  const kept: T[] = [];
  let used = 0;
  for (const item of items) {
    used += sizeOf(item);
    if (used > room) break;
    kept.push(item);
  }
  return kept;
}

export type WebhookEventType = 'alert.triggered' | 'alert.test';

/** The JSON body of a signed webhook, in the Standard Webhooks envelope `{ type, timestamp, data }`. */
export interface WebhookBody {
  readonly type: WebhookEventType;
  /** When this alert was sent (ISO 8601); the event's own time is `data.event.timestamp`. */
  readonly timestamp: string;
  readonly data: {
    readonly appId: string;
    readonly ruleId: string;
    readonly ruleName: string;
    /** Why the alert was sent; the next three are null where the kind has no such value. */
    readonly kind: AlertKind;
    readonly count: number | null;
    readonly windowSeconds: number | null;
    readonly group: string | null;
    /** The message as people read it: the template rendered as plain text, or the default wording. */
    readonly message: WebhookMessage;
    /** An absence alert has no event: this describes the silence (id: the alert's, timestamp: the deadline). */
    readonly event: {
      readonly id: string;
      readonly event: string;
      readonly level: AlertLevel;
      readonly customer_id: string | null;
      readonly timestamp: string;
      readonly data: Readonly<Record<string, unknown>>;
      readonly metadata: Readonly<Record<string, string | number | boolean>>;
    };
  };
}

export interface WebhookMessage {
  readonly title: string;
  readonly body: string;
}

/** The webhook's `message`: plain text, escaped by nothing but the JSON encoding of the body. */
export function webhookMessage(alert: AlertContent): WebhookMessage {
  return {
    title: templatePart(alert, 'title', unescaped) ?? plainTitle(alert),
    body: templatePart(alert, 'body', unescaped) ?? alertSummary(alert),
  };
}

/**
 * Machines read the webhook, so it carries the event whole: no truncation, no formatting. The body is
 * a public format: fields are added, never renamed or removed.
 */
export function buildWebhookBody(alert: AlertContent, sentAt: Date): WebhookBody {
  return {
    type: alert.test ? 'alert.test' : 'alert.triggered',
    timestamp: sentAt.toISOString(),
    data: {
      appId: alert.appId,
      ruleId: alert.ruleId,
      ruleName: alert.ruleName,
      kind: alert.kind,
      count: alert.count ?? null,
      windowSeconds: alert.windowSeconds ?? null,
      group: alert.group ?? null,
      message: webhookMessage(alert),
      event: {
        id: alert.eventId,
        event: alert.eventName,
        level: alert.level,
        customer_id: alert.customerId,
        timestamp: alert.timestamp,
        data: alert.data,
        metadata: alert.metadata,
      },
    },
  };
}
