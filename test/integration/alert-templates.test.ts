import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { MODES, startApi, type ApiHarness, type TestAccount } from '../helpers/api-harness.js';
import { createTestApp, expectValidationError } from '../helpers/api-assertions.js';
import { startHttpReceiver, startSmtpReceiver, type ReceivedRequest } from '../helpers/receivers.js';
import { waitFor } from '../helpers/service-process.js';
import { uniqueName } from '../helpers/stack-env.js';

/**
 * Alert kinds and message templates end to end through the public API: a rule's actions carry a
 * template, an event whose data carries markup for every channel makes the rule fire, and real
 * receivers (HTTP for the webhook, Slack and Discord; SMTP for e-mail) show what each channel got:
 * the template rendered, every value from the event inert, and the webhook's kind and message.
 */
const SLACK_PATH = '/services/T0/B0/secret';
const DISCORD_PATH = '/api/webhooks/1/secret';

/** Markup for every channel at once, as anyone holding the app's API key could send it. */
const HOSTILE =
  '<!channel> <https://evil.example|click> *bold* @everyone <@123> [link](https://evil.example) **x** ' +
  '<script>alert(1)</script> <img src=x onerror=alert(1)> "},"kind":"x';

const TEMPLATE = {
  title: 'Payment of {{data.amount}} failed {{data.subject}}',
  body: 'Note: {{data.note}}\nRule {{rule.name}} on {{app.name}} ({{metadata.region}}){{data.missing}}',
};

describe.each(MODES)('alert templates (%s)', (mode) => {
  let api: ApiHarness;
  let account: TestAccount;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    api = await startApi(mode, { OUTBOUND_ALLOW_PRIVATE: 'true', DELIVERY_RETRY_SCHEDULE: '0,100ms,200ms', SMTP_URL: smtp.url, SMTP_FROM: 'alerts@example.com' });
    account = await api.newAccount();
  });
  afterAll(async () => {
    await api.stop();
    await smtp.close();
  });

  /** An app with one destination of each type: a webhook receiver, a chat receiver for Slack and Discord, and a mailbox. */
  async function setup() {
    const { app, apiKey } = await createTestApp(api, account, { name: uniqueName('templates') });
    const hook = await startHttpReceiver();
    const chat = await startHttpReceiver();
    onTestFinished(() => hook.close());
    onTestFinished(() => chat.close());
    const destination = async (body: Record<string, unknown>) => {
      const res = await api.request('POST', `/v1/apps/${app.id}/destinations`, { headers: account.auth, body });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body as { id: string; signingSecret?: string };
    };
    const webhook = await destination({ type: 'webhook', label: 'receiver', url: `${hook.baseUrl}/hook` });
    const slack = await destination({ type: 'slack', label: '#ops', url: `${chat.baseUrl}${SLACK_PATH}` });
    const discord = await destination({ type: 'discord', label: 'ops', url: `${chat.baseUrl}${DISCORD_PATH}` });
    const recipient = `oncall-${uniqueName('m')}@example.com`;
    const email = await destination({ type: 'email', label: 'on call', email: recipient });
    const createRule = (body: Record<string, unknown>) =>
      api.request('POST', `/v1/apps/${app.id}/notification-rules`, { headers: account.auth, body: { enabled: true, conditions: [], ...body } });
    const ingest = async (events: unknown) => {
      const res = await api.request('POST', '/v1/ingest', { headers: { 'x-api-key': apiKey }, body: events });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      return res.body.events.map((e: { id: string }) => e.id) as string[];
    };
    /** The webhook alerts received so far, signature verified. */
    const webhookAlerts = () => hook.requests.map((r: ReceivedRequest) => new Webhook(webhook.signingSecret!).verify(r.body, r.headers as Record<string, string>) as any);
    const chatBody = (path: string) => {
      const request = chat.requests.find((r) => r.path === path);
      return request ? JSON.parse(request.body) : undefined;
    };
    const mail = () => smtp.received.find((m) => JSON.stringify(m.to).includes(recipient));
    return { app, webhook, slack, discord, email, createRule, ingest, webhookAlerts, chatBody, mail };
  }

  it('refuses a template with an unknown placeholder, naming it and where it is', async () => {
    const t = await setup();
    const unknown = await t.createRule({
      name: 'Bad template',
      eventName: 'payment.failed',
      actions: [{ destinationId: t.webhook.id, template: { title: 'Fine {{event}}', body: 'Hi {{customer}}' } }],
    });
    expectValidationError(unknown, 'actions.0.template.body', /\{\{customer\}\}/);
    const title = await t.createRule({
      name: 'Bad title',
      eventName: 'payment.failed',
      actions: [{ destinationId: t.webhook.id }, { destinationId: t.slack.id, template: { title: '{{data}}' } }],
    });
    expectValidationError(title, 'actions.1.template.title', /\{\{data\}\}/);
    const long = await t.createRule({ name: 'Long', eventName: 'payment.failed', actions: [{ destinationId: t.webhook.id, template: { title: 'x'.repeat(201) } }] });
    expectValidationError(long, 'actions.0.template.title', /200/);
  });

  it('renders each action\'s template for its channel, with markup from event data inert everywhere', async () => {
    const t = await setup();
    const created = await t.createRule({
      name: 'Payment failed',
      eventName: 'payment.failed',
      actions: [t.webhook, t.slack, t.discord, t.email].map((d) => ({ destinationId: d.id, template: TEMPLATE })),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.actions.map((a: { template?: unknown }) => a.template)).toEqual([TEMPLATE, TEMPLATE, TEMPLATE, TEMPLATE]);
    const [eventId] = await t.ingest({
      event: 'payment.failed',
      level: 'error',
      customer_id: 'cus-7',
      data: { amount: 99.5, note: HOSTILE, subject: 'x\r\nBcc: victim@example.com' },
      metadata: { region: 'eu' },
    });

    await waitFor(() => Promise.resolve(t.webhookAlerts().length >= 1), 20_000, 'the webhook alert');
    await waitFor(() => Promise.resolve(t.chatBody(SLACK_PATH) !== undefined && t.chatBody(DISCORD_PATH) !== undefined), 20_000, 'the Slack and Discord alerts');
    await waitFor(() => Promise.resolve(t.mail() !== undefined), 20_000, 'the e-mail');

    // Webhook: plain text, JSON-encoded; the hostile value stays a string and changes no field.
    const [alert] = t.webhookAlerts();
    const plainTitle = 'Payment of 99.5 failed x\r\nBcc: victim@example.com';
    const plainBody = `Note: ${HOSTILE}\nRule Payment failed on ${t.app.name} (eu)`;
    expect(alert).toMatchObject({
      type: 'alert.triggered',
      data: {
        ruleName: 'Payment failed',
        kind: 'match',
        count: null,
        windowSeconds: null,
        group: null,
        message: { title: plainTitle, body: plainBody },
        event: { id: eventId, event: 'payment.failed', customer_id: 'cus-7', data: { note: HOSTILE } },
      },
    });
    expect(Object.keys(alert)).toEqual(['type', 'timestamp', 'data']);

    // Slack: the header is plain_text (never markup); every mrkdwn text has the values escaped.
    const slack = t.chatBody(SLACK_PATH);
    expect(slack.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Payment of 99.5 failed x Bcc: victim@example.com', emoji: true } });
    const slackMrkdwn = JSON.stringify({ text: slack.text, blocks: slack.blocks.slice(1) });
    for (const live of ['<!channel>', '<https://evil', '<@123>', '*bold*', '<script>', '<img']) expect(slackMrkdwn).not.toContain(live);
    expect(slack.blocks[1].text.text).toContain('Note: &lt;!channel&gt; &lt;https://evil.example|click&gt; \u2217bold\u2217');
    expect(slack.blocks[1].text.text).toContain(`Rule Payment failed on ${t.app.name} (eu)`);
    expect(slackMrkdwn).toContain('*Kind*\\nmatch');

    // Discord: no mention allowed, every mark and mention from the data escaped.
    const discord = t.chatBody(DISCORD_PATH);
    expect(discord.allowed_mentions).toEqual({ parse: [] });
    const embed = discord.embeds[0];
    expect(embed.title).toBe('Payment of 99.5 failed x Bcc: victim@example.com');
    expect(embed.description).toContain('@\u200beveryone \\<@123\\> \\[link\\](https://evil.example) \\*\\*x\\*\\*');
    for (const text of [embed.title, embed.description, ...embed.fields.flatMap((f: { name: string; value: string }) => [f.name, f.value])]) {
      expect(text).not.toMatch(/(?<!\\)<[@#!]|@everyone|(?<!\\)\[link|(?<!\\)\*\*x/);
    }
    expect(embed.fields).toContainEqual({ name: 'Kind', value: 'match', inline: true });

    // E-mail: the subject on one line (the CR LF from the data started no header), HTML escaped.
    const mail = t.mail()!;
    expect(mail.subject).toBe('Payment of 99.5 failed x Bcc: victim@example.com');
    expect(mail.bcc).toBeUndefined();
    expect(mail.headers.has('bcc')).toBe(false);
    const html = String(mail.html);
    expect(html).not.toContain('<script');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(mail.text).toContain(`Note: ${HOSTILE}`);
  });

  it('without a template, says the kind and the default wording, and still escapes the data', async () => {
    const t = await setup();
    const created = await t.createRule({ name: 'Plain', eventName: 'order.created', actions: [{ destinationId: t.webhook.id }, { destinationId: t.slack.id }] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await t.ingest({ event: 'order.created', level: 'info', data: { note: '<!channel> *now*' } });

    await waitFor(() => Promise.resolve(t.webhookAlerts().length >= 1 && t.chatBody(SLACK_PATH) !== undefined), 20_000, 'the alerts');
    expect(t.webhookAlerts()[0].data).toMatchObject({
      kind: 'match',
      count: null,
      windowSeconds: null,
      group: null,
      message: { title: 'Plain', body: 'Rule "Plain" matched event order.created (info).' },
    });
    const slack = JSON.stringify(t.chatBody(SLACK_PATH));
    expect(slack).not.toContain('<!channel>');
    expect(slack).toContain('&lt;!channel&gt; \u2217now\u2217');
  });

  it('says a threshold alert with its count, window and group, in the template and the webhook body', async () => {
    const t = await setup();
    const created = await t.createRule({
      name: 'Card failures',
      eventName: 'card.declined',
      trigger: { type: 'threshold', count: 3, windowSeconds: 600, groupBy: '$customer_id' },
      actions: [
        { destinationId: t.webhook.id, template: { title: '{{count}} declines for {{group}}', body: '{{count}} in {{windowSeconds}} s; last note {{data.note}}' } },
        { destinationId: t.discord.id },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await t.ingest(Array.from({ length: 3 }, (_, n) => ({ event: 'card.declined', customer_id: 'cus-9', data: { note: n === 2 ? '**last**' : 'earlier' } })));

    await waitFor(() => Promise.resolve(t.webhookAlerts().length >= 1 && t.chatBody(DISCORD_PATH) !== undefined), 20_000, 'the threshold alerts');
    expect(t.webhookAlerts()[0].data).toMatchObject({
      kind: 'threshold',
      count: 3,
      windowSeconds: 600,
      group: 'cus-9',
      message: { title: '3 declines for cus-9', body: '3 in 600 s; last note **last**' },
    });
    const embed = t.chatBody(DISCORD_PATH).embeds[0];
    expect(embed.description).toBe('3 matching events of card.declined in 10 min (group cus-9).');
    expect(embed.fields).toEqual(
      expect.arrayContaining([
        { name: 'Kind', value: 'threshold', inline: true },
        { name: 'Count', value: '3', inline: true },
        { name: 'Window', value: '10 min', inline: true },
        { name: 'Group', value: 'cus-9', inline: true },
      ]),
    );
  });
});
