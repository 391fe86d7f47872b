import { describe, expect, it } from 'vitest';
import { sampleAlert } from '../../test/helpers/alerts.js';
import { TEMPLATE_BODY_MAX, TEMPLATE_TITLE_MAX, alertTemplateSchema, placeholderProblem, placeholderValue, plainTemplate, renderTemplate } from './alert-template.js';

const issues = (input: unknown) => {
  const result = alertTemplateSchema.safeParse(input);
  return result.success ? [] : result.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
};

describe('alertTemplateSchema', () => {
  it('accepts every named placeholder, data paths and metadata keys, with or without inner spaces', () => {
    const body = [
      '{{event}} {{level}} {{customer_id}} {{timestamp}} {{rule.name}} {{app.name}}',
      '{{count}} {{windowSeconds}} {{group}}',
      '{{data.amount}} {{ data.card.brand }} {{data.items.0.sku}} {{data.metadata.note}} {{data.user-id}}',
      '{{metadata.region}}',
    ].join('\n');
    expect(issues({ title: '{{rule.name}}: {{event}}', body })).toEqual([]);
    expect(issues({})).toEqual([]);
    expect(issues({ title: 'no placeholders at all, { single } braces and {{ unclosed' })).toEqual([]);
  });

  it('refuses an unknown placeholder, naming it, on the part it is in', () => {
    const found = issues({ body: 'Hi {{customer}} and {{data.amount}}' });
    expect(found).toHaveLength(1);
    expect(found[0]!.path).toBe('body');
    expect(found[0]!.message).toContain('unknown placeholder {{customer}}');
    expect(found[0]!.message).toContain('{{customer_id}}');
    expect(issues({ title: '{{Event}}' })[0]).toMatchObject({ path: 'title', message: expect.stringContaining('{{Event}}') });
    expect(issues({ title: '{{}}' })[0]?.message).toContain('unknown placeholder {{}}');
    expect(issues({ title: '{{data}}' })[0]?.message).toContain('unknown placeholder {{data}}');
  });

  it('reports every bad placeholder', () => {
    expect(issues({ title: '{{a}} {{b}}' }).map((i) => i.message)).toEqual([
      expect.stringContaining('{{a}}'),
      expect.stringContaining('{{b}}'),
    ]);
  });

  it('refuses malformed data paths and metadata keys', () => {
    for (const name of ['data.', 'data..x', 'data.a b', 'data.$level', 'data.-x']) {
      expect(issues({ body: `{{${name}}}` })[0]?.message, name).toContain('data.PATH');
    }
    for (const name of ['metadata.', 'metadata..a', 'metadata.a b']) {
      expect(issues({ body: `{{${name}}}` })[0]?.message, name).toContain('metadata.KEY');
    }
    expect(placeholderProblem('metadata.region')).toBeUndefined();
    expect(placeholderProblem('metadata.service.name')).toBeUndefined();
  });

  it('limits the title to 200 and the body to 4,000 characters', () => {
    expect(issues({ title: 'x'.repeat(TEMPLATE_TITLE_MAX), body: 'y'.repeat(TEMPLATE_BODY_MAX) })).toEqual([]);
    expect(issues({ title: 'x'.repeat(TEMPLATE_TITLE_MAX + 1) })).toEqual([{ path: 'title', message: 'must be at most 200 characters' }]);
    expect(issues({ body: 'y'.repeat(TEMPLATE_BODY_MAX + 1) })).toEqual([{ path: 'body', message: 'must be at most 4,000 characters' }]);
  });

  it('refuses other keys, non-strings and text a database cannot store', () => {
    expect(issues({ subject: 'x' })).toHaveLength(1);
    expect(issues({ title: 5 })).toEqual([{ path: 'title', message: 'must be a string' }]);
    expect(issues({ body: 'a\u0000b' })[0]?.path).toBe('body');
    expect(issues({ body: 'a\ud800b' })[0]?.path).toBe('body');
  });
});

describe('renderTemplate', () => {
  const identity = (value: string) => value;

  it('fills the named placeholders from the alert', () => {
    const alert = sampleAlert({ kind: 'threshold', count: 5, windowSeconds: 600, group: 'cus_42' });
    const text = '{{event}}|{{level}}|{{customer_id}}|{{timestamp}}|{{rule.name}}|{{app.name}}|{{count}}|{{windowSeconds}}|{{group}}';
    expect(renderTemplate(text, alert, identity)).toBe('payment.failed|error|cus_42|2024-05-01T12:34:56.000Z|Large failed payment|Shop|5|600|cus_42');
  });

  it('renders a missing value empty', () => {
    const alert = sampleAlert({ customerId: null, data: { nothing: null } });
    expect(renderTemplate('[{{customer_id}}][{{count}}][{{windowSeconds}}][{{group}}][{{data.missing}}][{{data.nothing}}][{{data.amount.deeper}}][{{metadata.absent}}]', alert, identity)).toBe(
      '[][][][][][][][]',
    );
  });

  it('reads nested data and array items, own properties only', () => {
    const alert = sampleAlert({ data: { order: { lines: [{ sku: 'A-1' }, { sku: 'B-2' }] } } });
    expect(renderTemplate('{{data.order.lines.1.sku}} {{data.order.lines.01.sku}} {{data.order.lines.length}} {{data.order.lines.5}} {{data.order.constructor}}', alert, identity)).toBe('B-2    ');
  });

  it('shows numbers and booleans as text and objects and arrays as JSON', () => {
    const alert = sampleAlert({ data: { n: 12.5, zero: 0, yes: true, no: false, list: [1, 'a'], obj: { a: { b: null } } }, metadata: { retried: false, tries: 3 } });
    expect(renderTemplate('{{data.n}} {{data.zero}} {{data.yes}} {{data.no}} {{data.list}} {{data.obj}} {{metadata.retried}} {{metadata.tries}}', alert, identity)).toBe(
      '12.5 0 true false [1,"a"] {"a":{"b":null}} false 3',
    );
  });

  it('passes values through the escaping and the template text through its own', () => {
    const alert = sampleAlert({ data: { note: '<b>' } });
    expect(renderTemplate('<i>{{data.note}}</i>', alert, (v) => `[${v}]`)).toBe('<i>[<b>]</i>');
    expect(renderTemplate('<i>{{data.note}}</i>', alert, (v) => `[${v}]`, (t) => t.toUpperCase())).toBe('<I>[<b>]</I>');
  });

  it('never renders a placeholder that a value brings with it', () => {
    const alert = sampleAlert({ data: { note: '{{rule.name}}' } });
    expect(renderTemplate('{{data.note}}', alert, identity)).toBe('{{rule.name}}');
  });

  it('reads an absence alert as having no event values', () => {
    const alert = sampleAlert({ kind: 'absence', level: 'warning', customerId: null, data: {}, metadata: {}, windowSeconds: 900 });
    expect(renderTemplate('{{event}} silent for {{windowSeconds}} s ({{level}}){{data.amount}}{{customer_id}}', alert, identity)).toBe('payment.failed silent for 900 s (warning)');
    expect(placeholderValue('count', alert)).toBe('');
  });
});

describe('plainTemplate', () => {
  it('keeps only the parts given, and no template for none', () => {
    expect(plainTemplate({ title: 't', body: undefined })).toEqual({ title: 't' });
    expect(plainTemplate({})).toBeUndefined();
    expect(plainTemplate(undefined)).toBeUndefined();
  });
});
