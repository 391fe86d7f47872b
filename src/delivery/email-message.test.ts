import { describe, expect, it } from 'vitest';
import { manyFields, sampleAlert } from '../../test/helpers/alerts.js';
import { buildEmailMessage, emailText, escapeHtml } from './email-message.js';

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

describe('e-mail per kind and template', () => {
  it('says the kind, and what a threshold alert counted', () => {
    const mail = buildEmailMessage(sampleAlert({ kind: 'threshold', count: 5, windowSeconds: 600, group: 'cus_42' }));
    expect(mail.text.split('\n')[0]).toBe('5 matching events of payment.failed in 10 min (group cus_42).');
    for (const line of ['Kind:     threshold', 'Count:    5', 'Window:   10 min', 'Group:    cus_42']) expect(mail.text).toContain(line);
    expect(mail.html).toContain('5 matching events of payment.failed in 10 min (group cus_42).');
    expect(mail.html).toContain('>threshold</td>');
    expect(buildEmailMessage(sampleAlert()).text).toContain('Kind:     match');
  });

  it('says an absence and a recovery', () => {
    expect(buildEmailMessage(sampleAlert({ kind: 'absence', eventName: 'payment.ok', data: {}, windowSeconds: 900 })).text).toMatch(/^No payment\.ok event for 15 min\.\n/);
    expect(buildEmailMessage(sampleAlert({ kind: 'recovered', eventName: 'payment.ok' })).text).toMatch(/^payment\.ok is back after a silence\.\n/);
  });

  it('uses the template for the subject, the heading and the text, plain in text and escaped in HTML', () => {
    const mail = buildEmailMessage(sampleAlert({ template: { title: 'Payment of {{data.amount}} failed', body: 'Card {{data.card.brand}}\r\nSee <the runbook> & act' } }));
    expect(mail.subject).toBe('Payment of 1250 failed');
    expect(mail.text.startsWith('Card visa\nSee <the runbook> & act\n')).toBe(true);
    expect(mail.html).toContain('<h2 style="margin:0 0 8px;font-size:18px">Payment of 1250 failed</h2>');
    expect(mail.html).toContain('Card visa<br>See &lt;the runbook&gt; &amp; act</p>');
    expect(emailText(sampleAlert({ template: { title: 'Payment of {{data.amount}} failed', body: 'Card {{data.card.brand}}' } }))).toEqual({
      title: 'Payment of 1250 failed',
      body: 'Card visa',
    });
  });

  it('makes HTML from event data inert and keeps the subject one line', () => {
    const mail = buildEmailMessage(
      sampleAlert({
        data: { script: '<script>alert(1)</script>', img: '<img src=x onerror=alert(1)>', subject: 'x\r\nBcc: victim@example.com\r\n\r\nbody' },
        template: { title: 'Alert {{data.subject}}', body: '{{data.script}} {{data.img}}' },
      }),
    );
    expect(mail.subject).toBe('Alert x Bcc: victim@example.com body');
    expect(mail.subject).not.toMatch(/[\r\n]/);
    expect(mail.html).not.toContain('<script');
    expect(mail.html).not.toContain('<img');
    expect(mail.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(1)&gt;');
    // The text part is not markup: it says what came.
    expect(mail.text.split('\n')[0]).toBe('<script>alert(1)</script> <img src=x onerror=alert(1)>');
  });
});
