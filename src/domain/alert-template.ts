import { z } from 'zod';
import type { AlertContent, AlertTemplate } from './alerting.js';
import { FIELD_NAME_PATTERN } from './event-schema.js';
import { fieldPathProblem } from './rule-conditions.js';
import { UNSTORABLE_TEXT_MESSAGE, isStorableText } from './text.js';

/**
 * Message templates: an action's own title and body, with `{{placeholder}}`s filled from the alert.
 * Pure: the rules service validates templates with `alertTemplateSchema` when a rule is saved; the
 * senders render them with `renderTemplate` and their channel's escaping, so a value from event data
 * can never become markup (Slack or Discord formatting, HTML in e-mail, structure in webhook JSON).
 */

export const TEMPLATE_TITLE_MAX = 200;
export const TEMPLATE_BODY_MAX = 4000;

/** Placeholders without a path. `data.PATH` and `metadata.KEY` come on top. */
export const TEMPLATE_PLACEHOLDERS = ['event', 'level', 'customer_id', 'timestamp', 'rule.name', 'app.name', 'count', 'windowSeconds', 'group'] as const;

/** `{{ name }}`: inner spaces allowed; no braces inside. */
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** Why a placeholder name is not one a template may use, or undefined. */
export function placeholderProblem(name: string): string | undefined {
  if ((TEMPLATE_PLACEHOLDERS as readonly string[]).includes(name)) return undefined;
  if (name.startsWith('data.')) {
    // Only the segment rule applies: after `data.` a path is always inside the event's data, so
    // `data.metadata.x` reads a data field named metadata and `$level` is no field name.
    const segments = name.slice('data.'.length).split('.');
    return segments.every((segment) => FIELD_NAME_PATTERN.test(segment))
      ? undefined
      : `{{${name}}}: data.PATH must be a dotted path of field names (letters, digits, _ or -) into the event's data`;
  }
  if (name.startsWith('metadata.')) return fieldPathProblem(name) === undefined ? undefined : `{{${name}}}: metadata.KEY must name one metadata key`;
  return `unknown placeholder {{${name}}}; use ${[...TEMPLATE_PLACEHOLDERS, 'data.PATH', 'metadata.KEY'].map((p) => `{{${p}}}`).join(', ')}`;
}

const templateText = (max: number) =>
  z
    .string({ error: 'must be a string' })
    .max(max, `must be at most ${max.toLocaleString('en-US')} characters`)
    .superRefine((text, ctx) => {
      if (!isStorableText(text)) ctx.addIssue({ code: 'custom', message: UNSTORABLE_TEXT_MESSAGE });
      for (const match of text.matchAll(PLACEHOLDER)) {
        const problem = placeholderProblem(match[1]!);
        if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
      }
    });

export const alertTemplateSchema = z
  .strictObject({
    title: templateText(TEMPLATE_TITLE_MAX).optional().describe(`At most ${TEMPLATE_TITLE_MAX} characters; replaces the default headline`),
    body: templateText(TEMPLATE_BODY_MAX).optional().describe(`At most ${TEMPLATE_BODY_MAX.toLocaleString('en-US')} characters; replaces the default text`),
  })
  .meta({ id: 'AlertTemplate' });

/** A value as text in a message: strings as they are, other values as JSON, nothing for none. */
function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? '';
}

/** A canonical array index, as conditions read one (`0`, `12`; not `00` or `length`). */
const ARRAY_INDEX = /^(?:0|[1-9]\d{0,8})$/;

/** Reads a dotted path of own properties, arrays by canonical index only, as conditions do. */
function dataAt(root: unknown, path: string): unknown {
  let current = root;
  for (const key of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    if (Array.isArray(current)) {
      if (!ARRAY_INDEX.test(key)) return undefined;
      current = current[Number(key)] as unknown;
    } else {
      if (!Object.hasOwn(current, key)) return undefined;
      current = (current as Record<string, unknown>)[key];
    }
  }
  return current;
}

/** The text of one placeholder for an alert; empty when the alert has no such value. */
export function placeholderValue(name: string, alert: AlertContent): string {
  switch (name) {
    case 'event':
      return alert.eventName;
    case 'level':
      return alert.level;
    case 'customer_id':
      return alert.customerId ?? '';
    case 'timestamp':
      return alert.timestamp;
    case 'rule.name':
      return alert.ruleName;
    case 'app.name':
      return alert.appName;
    case 'count':
      return asText(alert.count);
    case 'windowSeconds':
      return asText(alert.windowSeconds);
    case 'group':
      return asText(alert.group);
    default:
      if (name.startsWith('data.')) return asText(dataAt(alert.data, name.slice('data.'.length)));
      if (name.startsWith('metadata.')) {
        const key = name.slice('metadata.'.length);
        return Object.hasOwn(alert.metadata, key) ? asText(alert.metadata[key]) : '';
      }
      return '';
  }
}

/**
 * Fills the placeholders of `text` from the alert, each value passed through `escape` (the channel's
 * escaping); the template's own text is passed through `escapeLiteral` (default: unchanged), so a
 * channel can choose whether the author's own markup counts.
 */
export function renderTemplate(text: string, alert: AlertContent, escape: (value: string) => string, escapeLiteral: (text: string) => string = (t) => t): string {
  let out = '';
  let last = 0;
  for (const match of text.matchAll(PLACEHOLDER)) {
    out += escapeLiteral(text.slice(last, match.index));
    out += escape(placeholderValue(match[1]!, alert));
    last = match.index + match[0].length;
  }
  return out + escapeLiteral(text.slice(last));
}

/** The template with only the parts it has (no undefined keys), or undefined for an empty one. */
export function plainTemplate(template: AlertTemplate | undefined): AlertTemplate | undefined {
  if (!template) return undefined;
  const plain = { ...(template.title === undefined ? {} : { title: template.title }), ...(template.body === undefined ? {} : { body: template.body }) };
  return Object.keys(plain).length === 0 ? undefined : plain;
}
