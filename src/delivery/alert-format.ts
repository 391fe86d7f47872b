import type { AlertContent } from '../domain/alerting.js';
/**
 * What every channel's message shares: the level's emoji and colour, how a data value reads, how long
 * text is cut, and the signed webhook's JSON body. Pure functions, no I/O; each channel's own layout
 * lives beside this file (slack-message.ts, discord-message.ts, email-message.ts).
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

/** The headline every channel uses: emoji, "Test alert" for tests, the rule's name. */
export function alertTitle(alert: AlertContent): string {
  const prefix = alert.test ? 'Test alert: ' : '';
  return `${LEVEL_EMOJI[alert.level]} ${prefix}${alert.ruleName}`;
}

/** One line saying what happened, for notification previews and plain-text bodies. */
export function alertSummary(alert: AlertContent): string {
  const what = `Rule "${alert.ruleName}" matched event ${alert.eventName} (${alert.level})`;
  return alert.test ? `Test alert. ${what}; no real event triggered it.` : `${what}.`;
}

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

/** Machines read the webhook, so it carries the event whole: no truncation, no formatting. */
export function buildWebhookBody(alert: AlertContent, sentAt: Date): WebhookBody {
  return {
    type: alert.test ? 'alert.test' : 'alert.triggered',
    timestamp: sentAt.toISOString(),
    data: {
      appId: alert.appId,
      ruleId: alert.ruleId,
      ruleName: alert.ruleName,
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
