import { describe, expect, it } from 'vitest';
import { manyFields, sampleAlert } from '../../test/helpers/alerts.js';
import { buildEmailMessage, escapeHtml } from './email-message.js';

describe('buildEmailMessage', () => {
  it('has a subject with level, rule and event, and text and HTML parts with the facts and data', () => {
    const mail = buildEmailMessage(sampleAlert());
    expect(mail.subject).toBe('[ERROR] Large failed payment (payment.failed)');
    for (const part of [mail.text, mail.html]) {
      for (const fact of ['Large failed payment', 'payment.failed', 'error', 'cus_42', '2024-05-01 12:34:56 UTC', 'Shop']) {
        expect(part).toContain(fact);
      }
    }
    expect(mail.text).toContain('  amount: 1250');
    expect(mail.text).toContain('  card: {"brand":"visa","last4":"4242"}');
    expect(mail.html).toContain('<code>{&quot;brand&quot;:&quot;visa&quot;,&quot;last4&quot;:&quot;4242&quot;}</code>');
  });

  it('HTML-escapes every value from the event', () => {
    const mail = buildEmailMessage(
      sampleAlert({
        ruleName: '<b>rule</b>',
        customerId: '"><img src=x onerror=alert(1)>',
        data: { '<key>': '<script>alert("x")</script>' },
      }),
    );
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).not.toContain('<img');
    expect(mail.html).not.toContain('<b>rule');
    expect(mail.html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(mail.html).toContain('&lt;key&gt;');
    // The plain-text part is not markup, so it shows the value as it came.
    expect(mail.text).toContain('<script>alert("x")</script>');
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
  });

  it('keeps the subject on one line whatever the rule name holds', () => {
    const mail = buildEmailMessage(sampleAlert({ ruleName: 'a\r\nBcc: victim@example.com' }));
    expect(mail.subject).not.toMatch(/[\r\n]/);
  });

  it('says "Test alert" for test alerts', () => {
    const mail = buildEmailMessage(sampleAlert({ test: true }));
    expect(mail.subject).toContain('Test alert');
    expect(mail.text).toContain('Test alert');
    expect(mail.html).toContain('Test alert');
  });

  it('caps the data fields shown and says how many were left out', () => {
    const mail = buildEmailMessage(sampleAlert({ data: manyFields(70, 3000) }));
    expect(mail.text).toContain('and 20 more fields not shown');
    expect(mail.html).toContain('and 20 more fields not shown');
    expect(mail.text).toMatch(/ {2}f00: x+…\n/);
  });
});
