/**
 * The channel senders against real receivers on loopback: HTTP servers standing in for Slack, Discord
 * and a webhook consumer, and a real SMTP server. Webhook signatures are checked with the Standard
 * Webhooks reference library, an independent verifier.
 */
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { EMAIL_NOT_CONFIGURED, createAlertSender } from '../../src/delivery/channel-senders.js';
import { createSmtpMailer, type Mailer } from '../../src/delivery/mailer.js';
import { generateWebhookSecret } from '../../src/delivery/webhook-signature.js';
import { destination, sampleAlert } from '../helpers/alerts.js';
import { capturingLogger } from '../helpers/logger.js';
import { freePort } from '../helpers/net.js';
import { loopbackHttp, startHttpReceiver, startSmtpReceiver, type Reply } from '../helpers/receivers.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function httpReceiver(...args: Parameters<typeof startHttpReceiver>) {
  const receiver = await startHttpReceiver(...args);
  cleanups.push(receiver.close);
  return receiver;
}

async function smtpReceiver(...args: Parameters<typeof startSmtpReceiver>) {
  const receiver = await startSmtpReceiver(...args);
  cleanups.push(receiver.close);
  return receiver;
}

function mailerFor(url: string): Mailer {
  const mailer = createSmtpMailer({ url, from: 'Alerts <alerts@example.test>' });
  cleanups.push(() => mailer.close());
  return mailer;
}

function sender(mailer: Mailer | null = null) {
  const { logger, lines } = capturingLogger('debug');
  return { sender: createAlertSender({ http: loopbackHttp(), mailer, logger }), logLines: lines };
}

describe('Slack and Discord incoming webhooks', () => {
  it('posts Slack blocks as JSON to the webhook URL', async () => {
    const receiver = await httpReceiver(() => ({ status: 200, body: 'ok' }));
    const { sender: s } = sender();
    const url = `${receiver.baseUrl}/services/T000/B000/XXXXXXXX`;

    const result = await s.send(destination({ type: 'slack', url }), sampleAlert(), 'dlv_1');

    expect(result).toEqual({ ok: true, retriable: false, status: 200, error: null, retryAfterMs: null });
    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/services/T000/B000/XXXXXXXX' });
    expect(request!.headers['content-type']).toBe('application/json');
    const body = JSON.parse(request!.body);
    expect(body.text).toContain('Large failed payment');
    expect(body.blocks.map((b: any) => b.type)).toEqual(['header', 'section', 'section', 'context']);
    expect(body.blocks[0].text.text).toBe('🔴 Large failed payment');
    expect(body.blocks[2].text.text).toContain('• *amount*: 1250');
  });

  it('posts a Discord embed', async () => {
    const receiver = await httpReceiver(() => ({ status: 204 }));
    const { sender: s } = sender();

    const result = await s.send(
      destination({ type: 'discord', url: `${receiver.baseUrl}/api/webhooks/123/token` }),
      sampleAlert({ level: 'warning' }),
      'dlv_2',
    );

    expect(result).toMatchObject({ ok: true, status: 204 });
    const body = JSON.parse(receiver.requests[0]!.body);
    expect(body.allowed_mentions).toEqual({ parse: [] });
    expect(body.embeds).toHaveLength(1);
    expect(body.embeds[0]).toMatchObject({ title: '⚠️ Large failed payment', timestamp: '2024-05-01T12:34:56.000Z' });
    expect(body.embeds[0].fields).toContainEqual({ name: 'currency', value: 'EUR', inline: false });
  });
});

describe('signed webhooks', () => {
  it('signs per Standard Webhooks, with the same webhook-id on every retry', async () => {
    const receiver = await httpReceiver(() => ({ status: 200 }));
    const { sender: s } = sender();
    const secret = generateWebhookSecret();
    const target = destination({ type: 'webhook', url: `${receiver.baseUrl}/hooks/abc`, signingSecret: secret });

    expect(await s.send(target, sampleAlert(), 'dlv_retry')).toMatchObject({ ok: true });
    expect(await s.send(target, sampleAlert(), 'dlv_retry')).toMatchObject({ ok: true });

    const verifier = new Webhook(secret);
    expect(receiver.requests).toHaveLength(2);
    for (const request of receiver.requests) {
      const headers = request.headers as Record<string, string>;
      expect(headers['webhook-id']).toBe('dlv_retry');
      expect(headers['content-type']).toBe('application/json');
      expect(headers['user-agent']).toMatch(/^event-alerting/);
      expect(headers['webhook-signature']).toMatch(/^v1,/);
      const payload: any = verifier.verify(request.body, headers);
      expect(payload).toMatchObject({
        type: 'alert.triggered',
        data: {
          appId: 'app_01',
          ruleId: 'rule_01',
          ruleName: 'Large failed payment',
          event: {
            id: 'evt_01',
            event: 'payment.failed',
            level: 'error',
            customer_id: 'cus_42',
            timestamp: '2024-05-01T12:34:56.000Z',
            data: { amount: 1250, currency: 'EUR', card: { brand: 'visa', last4: '4242' } },
            metadata: { region: 'eu', retried: false },
          },
        },
      });
      expect(Date.parse(payload.timestamp)).not.toBeNaN();
      expect(() => verifier.verify(request.body.replace('1250', '9999'), headers)).toThrow();
      expect(() => new Webhook(generateWebhookSecret()).verify(request.body, headers)).toThrow();
    }
  });

  it('sends test alerts as alert.test', async () => {
    const receiver = await httpReceiver(() => ({ status: 202 }));
    const { sender: s } = sender();
    const secret = generateWebhookSecret();
    const target = destination({ type: 'webhook', url: `${receiver.baseUrl}/in`, signingSecret: secret });

    expect(await s.send(target, sampleAlert({ test: true }), 'dlv_test')).toMatchObject({ ok: true, status: 202 });
    const request = receiver.requests[0]!;
    expect(new Webhook(secret).verify(request.body, request.headers as Record<string, string>)).toMatchObject({ type: 'alert.test' });
  });
});

describe('receiver failures', () => {
  const secretPath = '/hooks/secret-token-0123456789';

  async function failingReceiver() {
    return httpReceiver((request): Reply => {
      const status = Number(request.path.split('/')[3]);
      if (status === 302) return { status, headers: { location: '/moved' } };
      if (status === 429) return { status, headers: { 'retry-after': '7' }, body: 'rate limited' };
      // A careless receiver that echoes the request path (and so the URL's secret) in its error.
      return { status, body: `error at ${request.path}` };
    });
  }

  it.each([
    [500, { retriable: true, retryAfterMs: null }],
    [503, { retriable: true, retryAfterMs: null }],
    [429, { retriable: true, retryAfterMs: 7000 }],
    [408, { retriable: true, retryAfterMs: null }],
    [400, { retriable: false, retryAfterMs: null }],
    [404, { retriable: false, retryAfterMs: null }],
    [302, { retriable: false, retryAfterMs: null }],
  ])('HTTP %i', async (status, expected) => {
    const receiver = await failingReceiver();
    const { sender: s, logLines } = sender();
    const url = `${receiver.baseUrl}${secretPath}/${status}`;

    const result = await s.send(destination({ type: 'slack', url }), sampleAlert(), 'dlv_fail');

    expect(result).toMatchObject({ ok: false, status, ...expected });
    expect(result.error).toContain(`HTTP ${status}`);
    expect(result.error).not.toContain('secret-token');
    if (status === 302) {
      expect(result.error).toContain('redirects are not followed');
      expect(receiver.requests.map((r) => r.path)).toEqual([`${secretPath}/${status}`]);
    }
    const logs = logLines().join('\n');
    expect(logs).toContain('alert delivery attempt failed');
    expect(logs).toContain(`${receiver.baseUrl}/…`);
    expect(logs).not.toContain('secret-token');
  });

  it('a receiver that is down is retriable', async () => {
    const { sender: s } = sender();
    const url = `http://127.0.0.1:${await freePort()}/hook`;
    expect(await s.send(destination({ type: 'discord', url }), sampleAlert(), 'dlv_down')).toMatchObject({
      ok: false,
      retriable: true,
      status: null,
    });
  });

  it('a destination without a URL or secret fails without retrying', async () => {
    const { sender: s } = sender();
    expect(await s.send(destination({ type: 'slack' }), sampleAlert(), 'd')).toMatchObject({ ok: false, retriable: false });
    const webhook = destination({ type: 'webhook', url: 'http://127.0.0.1:9/x' });
    expect(await s.send(webhook, sampleAlert(), 'd')).toMatchObject({ ok: false, retriable: false });
  });
});

describe('e-mail over SMTP', () => {
  it('sends a subject, a text part and an escaped HTML part', async () => {
    const smtp = await smtpReceiver();
    const { sender: s } = sender(mailerFor(smtp.url));
    const alert = sampleAlert({ data: { note: '<script>alert(1)</script>', amount: 1250 } });

    const result = await s.send(destination({ type: 'email', email: 'ops@example.test' }), alert, 'dlv_mail');

    expect(result).toEqual({ ok: true, retriable: false, status: null, error: null, retryAfterMs: null });
    expect(smtp.received).toHaveLength(1);
    const mail = smtp.received[0]!;
    expect(mail.subject).toBe('[ERROR] Large failed payment (payment.failed)');
    expect(mail.from?.text).toContain('alerts@example.test');
    expect(JSON.stringify(mail.to)).toContain('ops@example.test');
    expect(mail.text).toContain('Customer: cus_42');
    expect(mail.text).toContain('note: <script>alert(1)</script>');
    expect(mail.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(mail.html).not.toContain('<script>');
  });

  it('a permanent rejection (550) is not retried', async () => {
    const smtp = await smtpReceiver({ rejectRecipient: { code: 550, message: 'No such user here' } });
    const { sender: s } = sender(mailerFor(smtp.url));
    const result = await s.send(destination({ type: 'email', email: 'nobody@example.test' }), sampleAlert(), 'd');
    expect(result).toMatchObject({ ok: false, retriable: false, status: null });
    expect(result.error).toContain('550');
    expect(smtp.received).toHaveLength(0);
  });

  it('a transient rejection (451) is retried', async () => {
    const smtp = await smtpReceiver({ rejectRecipient: { code: 451, message: 'Greylisted, try again later' } });
    const { sender: s } = sender(mailerFor(smtp.url));
    const result = await s.send(destination({ type: 'email', email: 'ops@example.test' }), sampleAlert(), 'd');
    expect(result).toMatchObject({ ok: false, retriable: true });
    expect(result.error).toContain('451');
  });

  it('an SMTP server that is down is retried', async () => {
    const { sender: s } = sender(mailerFor(`smtp://127.0.0.1:${await freePort()}`));
    const result = await s.send(destination({ type: 'email', email: 'ops@example.test' }), sampleAlert(), 'd');
    expect(result).toMatchObject({ ok: false, retriable: true });
  });

  it('without SMTP_URL an e-mail delivery fails without retrying', async () => {
    const { sender: s } = sender(null);
    const result = await s.send(destination({ type: 'email', email: 'ops@example.test' }), sampleAlert(), 'd');
    expect(result).toEqual({ ok: false, retriable: false, status: null, error: EMAIL_NOT_CONFIGURED, retryAfterMs: null });
  });
});
