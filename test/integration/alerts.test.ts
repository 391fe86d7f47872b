import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { MODES, startApi, type ApiHarness, type TestAccount } from '../helpers/api-harness.js';
import { createTestApp } from '../helpers/api-assertions.js';
import { startHttpReceiver, startSmtpReceiver, type Reply, type ReceivedRequest } from '../helpers/receivers.js';
import { waitFor } from '../helpers/service-process.js';
import { uniqueName } from '../helpers/stack-env.js';

/**
 * Alerts end to end through the public API: events ingested with the app's key are stored, evaluated
 * against the app's rules in the worker, and delivered to real HTTP receivers started here. Nothing
 * of the delivery path is replaced: the guarded outbound client sends (loopback allowed by
 * OUTBOUND_ALLOW_PRIVATE), and retries run on a short schedule set through DELIVERY_RETRY_SCHEDULE.
 */
const RETRIES = '0,100ms,200ms';

describe.each(MODES)('alerts (%s)', (mode) => {
  let api: ApiHarness;
  let account: TestAccount;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    api = await startApi(mode, { OUTBOUND_ALLOW_PRIVATE: 'true', DELIVERY_RETRY_SCHEDULE: RETRIES, SMTP_URL: smtp.url, SMTP_FROM: 'alerts@example.com' });
    account = await api.newAccount();
  });
  afterAll(async () => {
    await api.stop();
    await smtp.close();
  });

  /** An app with a webhook destination pointing at a fresh receiver. */
  async function setup(reply?: (request: ReceivedRequest) => Reply) {
    const { app, apiKey } = await createTestApp(api, account, { name: uniqueName('alerts') });
    const receiver = await startHttpReceiver(reply);
    const created = await api.request('POST', `/v1/apps/${app.id}/destinations`, {
      headers: account.auth,
      body: { type: 'webhook', label: 'receiver', url: `${receiver.baseUrl}/hook` },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const destination = created.body;
    const rule = async (body: Record<string, unknown>) => {
      const res = await api.request('POST', `/v1/apps/${app.id}/notification-rules`, {
        headers: account.auth,
        body: { enabled: true, conditions: [], actions: [{ destinationId: destination.id }], ...body },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body;
    };
    const ingest = async (events: unknown) => {
      const res = await api.request('POST', '/v1/ingest', { headers: { 'x-api-key': apiKey }, body: events });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      return res.body.events.map((e: { id: string }) => e.id) as string[];
    };
    const readRule = async (id: string) => (await api.request('GET', `/v1/apps/${app.id}/notification-rules/${id}`, { headers: account.auth })).body;
    const deliveries = async (query = '') => (await api.request('GET', `/v1/apps/${app.id}/deliveries?limit=100${query}`, { headers: account.auth })).body.items;
    return { app, destination, receiver, rule, ingest, readRule, deliveries };
  }

  const bodies = (requests: readonly ReceivedRequest[]) => requests.map((r) => JSON.parse(r.body));

  it('delivers a signed alert for a matching event only, and counts the trigger', async () => {
    const t = await setup();
    onTestFinished(() => t.receiver.close());
    const rule = await t.rule({ name: 'Big order', eventName: 'order.created', conditions: [{ field: 'amount', operator: 'greater_than', value: 100 }] });
    const [big] = await t.ingest([
      { event: 'order.created', data: { amount: 150, sku: 'A-1' }, level: 'warning', customer_id: 'c-1' },
      { event: 'order.created', data: { amount: 50 } },
      { event: 'order.refunded', data: { amount: 500 } },
    ]);
    await waitFor(() => Promise.resolve(t.receiver.requests.length >= 1), 20_000, 'the alert');
    const [request] = t.receiver.requests;
    // Verified by an independent implementation of the Standard Webhooks signature.
    const payload = new Webhook(t.destination.signingSecret).verify(request!.body, request!.headers as Record<string, string>) as any;
    expect(payload).toMatchObject({ type: 'alert.triggered', data: { ruleId: rule.id, ruleName: 'Big order', event: { id: big, event: 'order.created', level: 'warning', customer_id: 'c-1', data: { amount: 150, sku: 'A-1' } } } });

    await waitFor(async () => (await t.readRule(rule.id)).triggerCount === 1, 5_000, 'the trigger count');
    const read = await t.readRule(rule.id);
    expect(Date.parse(read.lastTriggeredAt)).toBeGreaterThan(Date.now() - 60_000);
    await waitFor(async () => (await t.deliveries())[0]?.status === 'succeeded', 5_000, 'the delivery record');
    expect(await t.deliveries()).toEqual([
      expect.objectContaining({ ruleId: rule.id, destinationId: t.destination.id, eventId: big, status: 'succeeded', attempts: 1, lastError: null }),
    ]);
    expect(t.receiver.requests).toHaveLength(1);
  });

  it('alerts through Slack, Discord and e-mail destinations, each in its own format', async () => {
    const t = await setup();
    onTestFinished(() => t.receiver.close());
    const chat = await startHttpReceiver(() => ({ status: 200, body: 'ok' }));
    onTestFinished(() => chat.close());
    const destination = async (body: Record<string, unknown>) => {
      const res = await api.request('POST', `/v1/apps/${t.app.id}/destinations`, { headers: account.auth, body });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.id as string;
    };
    const slack = await destination({ type: 'slack', label: '#ops', url: `${chat.baseUrl}/services/T0/B0/secret` });
    const discord = await destination({ type: 'discord', label: 'ops', url: `${chat.baseUrl}/api/webhooks/1/secret` });
    const mail = await destination({ type: 'email', label: 'on call', email: `oncall-${uniqueName('m')}@example.com` });
    await t.rule({
      name: 'Payment failed',
      eventName: 'payment.failed',
      actions: [{ destinationId: slack }, { destinationId: discord }, { destinationId: mail }],
    });
    await t.ingest({ event: 'payment.failed', level: 'error', customer_id: 'cust-7', data: { amount: 99.5, card: 'visa' } });

    await waitFor(() => Promise.resolve(chat.requests.length >= 2), 20_000, 'the Slack and Discord alerts');
    const byPath = new Map(chat.requests.map((r) => [r.path, JSON.parse(r.body)]));
    const slackBody = byPath.get('/services/T0/B0/secret');
    expect(slackBody.blocks.length).toBeGreaterThan(1);
    expect(JSON.stringify(slackBody)).toContain('Payment failed');
    expect(JSON.stringify(slackBody)).toContain('payment.failed');
    const discordBody = byPath.get('/api/webhooks/1/secret');
    expect(discordBody.embeds[0].title).toContain('Payment failed');
    expect(discordBody.embeds[0].fields.map((f: { name: string }) => f.name)).toEqual(expect.arrayContaining(['amount', 'card']));

    const recipient = (await api.request('GET', `/v1/apps/${t.app.id}/destinations/${mail}`, { headers: account.auth })).body.email;
    await waitFor(() => Promise.resolve(smtp.received.some((m) => m.to && JSON.stringify(m.to).includes(recipient))), 20_000, 'the e-mail');
    const email = smtp.received.find((m) => JSON.stringify(m.to).includes(recipient))!;
    expect(email.subject).toContain('Payment failed');
    expect(email.text).toContain('cust-7');
    expect(email.html).toContain('99.5');
  });

  it('applies every operator, any and all: each rule triggers exactly when its conditions say', async () => {
    const t = await setup();
    onTestFinished(() => t.receiver.close());
    const event = { event: 'probe', level: 'error', customer_id: 'cust-9', data: { amount: '42', name: 'disk full on db-1', tags: ['db', 'prod'], nested: { depth: 3 } }, metadata: { region: 'eu' } };
    const cases: Array<[string, Record<string, unknown>, boolean]> = [
      ['equals', { field: 'amount', operator: 'equals', value: 42 }, true],
      ['equals-no', { field: 'amount', operator: 'equals', value: 43 }, false],
      ['not_equals', { field: 'name', operator: 'not_equals', value: 'ok' }, true],
      ['not_equals-no', { field: 'name', operator: 'not_equals', value: 'disk full on db-1' }, false],
      ['contains', { field: 'name', operator: 'contains', value: 'disk' }, true],
      ['contains-array', { field: 'tags', operator: 'contains', value: 'prod' }, true],
      ['contains-no', { field: 'name', operator: 'contains', value: 'memory' }, false],
      ['not_contains', { field: 'tags', operator: 'not_contains', value: 'staging' }, true],
      ['not_contains-no', { field: 'name', operator: 'not_contains', value: 'db-1' }, false],
      ['greater_than', { field: 'nested.depth', operator: 'greater_than', value: 2 }, true],
      ['greater_than-no', { field: 'nested.depth', operator: 'greater_than', value: 3 }, false],
      ['greater_than_or_equal', { field: 'nested.depth', operator: 'greater_than_or_equal', value: 3 }, true],
      ['greater_than_or_equal-no', { field: 'amount', operator: 'greater_than_or_equal', value: 43 }, false],
      ['less_than', { field: 'amount', operator: 'less_than', value: '100' }, true],
      ['less_than-no', { field: 'name', operator: 'less_than', value: 100 }, false],
      ['less_than_or_equal', { field: 'amount', operator: 'less_than_or_equal', value: 42 }, true],
      ['less_than_or_equal-no', { field: 'amount', operator: 'less_than_or_equal', value: 41 }, false],
      ['exists', { field: 'metadata.region', operator: 'exists' }, true],
      ['exists-no', { field: 'missing.field', operator: 'exists' }, false],
      ['$level', { field: '$level', operator: 'equals', value: 'error' }, true],
      ['$customer_id-no', { field: '$customer_id', operator: 'equals', value: 'cust-1' }, false],
    ];
    const rules = await Promise.all(cases.map(([name, condition]) => t.rule({ name, eventName: 'probe', conditions: [condition] })));
    const combos = [
      await t.rule({ name: 'all-yes', eventName: 'probe', match: 'all', conditions: [cases[0]![1], cases[4]![1]] }),
      await t.rule({ name: 'all-no', eventName: 'probe', match: 'all', conditions: [cases[0]![1], cases[1]![1]] }),
      await t.rule({ name: 'any-yes', eventName: 'probe', match: 'any', conditions: [cases[1]![1], cases[4]![1]] }),
      await t.rule({ name: 'any-no', eventName: 'probe', match: 'any', conditions: [cases[1]![1], cases[3]![1]] }),
      await t.rule({ name: 'empty', eventName: 'probe' }),
      await t.rule({ name: 'other-event', eventName: 'probe.other' }),
    ];
    const expected = [...cases.map(([, , hit]) => hit), true, false, true, false, true, false];
    const all = [...rules, ...combos];
    await t.ingest(event);

    const hits = expected.filter(Boolean).length;
    await waitFor(() => Promise.resolve(t.receiver.requests.length >= hits), 20_000, `${hits} alerts`);
    const counts = await Promise.all(all.map(async (r) => (await t.readRule(r.id)).triggerCount));
    expect(Object.fromEntries(all.map((r, i) => [r.name, counts[i]]))).toEqual(Object.fromEntries(all.map((r, i) => [r.name, expected[i] ? 1 : 0])));
    expect(bodies(t.receiver.requests).map((b) => b.data.ruleName).sort()).toEqual(all.filter((_, i) => expected[i]).map((r) => r.name).sort());
  });

  it('skips disabled rules and disabled actions, and honours the cooldown', async () => {
    const t = await setup();
    onTestFinished(() => t.receiver.close());
    const disabled = await t.rule({ name: 'disabled', eventName: 'tick', enabled: false });
    const silent = await t.rule({ name: 'silent action', eventName: 'tick', actions: [{ destinationId: t.destination.id, enabled: false }] });
    const cooled = await t.rule({ name: 'cooldown', eventName: 'tick', cooldownSeconds: 3600 });
    const [first] = await t.ingest({ event: 'tick', data: { n: 1 } });
    await t.ingest({ event: 'tick', data: { n: 2 } });
    await t.ingest([{ event: 'tick', data: { n: 3 } }, { event: 'tick', data: { n: 4 } }]);
    const marker = await t.rule({ name: 'marker', eventName: 'tock' });
    await t.ingest({ event: 'tock' });

    // The marker's alert comes after every tick was evaluated (one app: one ordered stream).
    await waitFor(() => Promise.resolve(bodies(t.receiver.requests).some((b) => b.data.ruleId === marker.id)), 20_000, 'the marker alert');
    expect((await t.readRule(disabled.id)).triggerCount).toBe(0);
    expect((await t.readRule(silent.id)).triggerCount).toBe(4);
    expect((await t.readRule(cooled.id)).triggerCount).toBe(1);
    const cooledAlerts = bodies(t.receiver.requests).filter((b) => b.data.ruleId === cooled.id);
    expect(cooledAlerts.map((b) => b.data.event.id)).toEqual([first]);
    expect(bodies(t.receiver.requests).filter((b) => b.data.ruleId === silent.id || b.data.ruleId === disabled.id)).toEqual([]);
  });

  it('counts exactly 1,000 triggers for 1,000 concurrent matching events, one alert each', async () => {
    const t = await setup();
    onTestFinished(() => t.receiver.close());
    const rule = await t.rule({ name: 'every error', eventName: 'job.failed', conditions: [{ field: '$level', operator: 'equals', value: 'error' }] });
    const ids = (
      await Promise.all(
        Array.from({ length: 100 }, (_, r) => t.ingest(Array.from({ length: 10 }, (_, n) => ({ event: 'job.failed', level: 'error', data: { n: r * 10 + n } })))),
      )
    ).flat();
    expect(ids).toHaveLength(1000);
    await waitFor(async () => (await t.readRule(rule.id)).triggerCount === 1000, 60_000, '1,000 triggers');
    await waitFor(() => Promise.resolve(t.receiver.requests.length >= 1000), 60_000, '1,000 alerts');
    const delivered = bodies(t.receiver.requests).map((b) => b.data.event.id);
    expect(new Set(delivered).size).toBe(1000);
    expect(new Set(delivered)).toEqual(new Set(ids));
    expect((await t.readRule(rule.id)).triggerCount).toBe(1000);
  });

  it('retries a 500 until it succeeds, keeping the webhook-id; does not retry a 400', async () => {
    let calls = 0;
    const t = await setup((request) => {
      if (JSON.parse(request.body).data.event.event === 'bad.request') return { status: 400, body: 'no such channel' };
      calls += 1;
      return calls === 1 ? { status: 500, body: 'try later' } : { status: 204 };
    });
    onTestFinished(() => t.receiver.close());
    const flaky = await t.rule({ name: 'flaky', eventName: 'flaky' });
    const refused = await t.rule({ name: 'refused', eventName: 'bad.request' });
    await t.ingest([{ event: 'flaky' }, { event: 'bad.request' }]);

    await waitFor(async () => (await t.deliveries(`&ruleId=${flaky.id}`))[0]?.status === 'succeeded', 20_000, 'the retried delivery');
    const [retried] = await t.deliveries(`&ruleId=${flaky.id}`);
    expect(retried).toMatchObject({ attempts: 2, lastError: null });
    const flakyRequests = t.receiver.requests.filter((r) => JSON.parse(r.body).data.ruleId === flaky.id);
    expect(flakyRequests).toHaveLength(2);
    expect(new Set(flakyRequests.map((r) => r.headers['webhook-id']))).toEqual(new Set([retried.id]));

    await waitFor(async () => (await t.deliveries(`&ruleId=${refused.id}`))[0]?.status === 'failed', 20_000, 'the refused delivery');
    const [failed] = await t.deliveries(`&ruleId=${refused.id}`);
    expect(failed).toMatchObject({ attempts: 1, lastError: expect.stringContaining('400') });
    expect(t.receiver.requests.filter((r) => JSON.parse(r.body).data.ruleId === refused.id)).toHaveLength(1);
  });

  it('dead-letters a delivery after the last attempt fails', async () => {
    const t = await setup(() => ({ status: 503, body: 'down for maintenance' }));
    onTestFinished(() => t.receiver.close());
    const deadLetters: any[] = [];
    const subscription = await api.container.bus.subscribe({
      groupId: uniqueName('test_delivery_dlq'),
      topic: api.container.topics.deliveriesDeadLetter,
      fromBeginning: true,
      batching: 'latency',
      handler: (batch) => {
        for (const m of batch.messages) deadLetters.push(JSON.parse(m.value.toString('utf8')));
        return Promise.resolve();
      },
    });
    try {
      const rule = await t.rule({ name: 'doomed', eventName: 'doomed' });
      const [eventId] = await t.ingest({ event: 'doomed' });
      await waitFor(async () => (await t.deliveries())[0]?.status === 'failed', 20_000, 'the failed delivery');
      const [failed] = await t.deliveries();
      expect(failed).toMatchObject({ attempts: 3, lastError: expect.stringContaining('503') });
      expect(t.receiver.requests).toHaveLength(3);
      await waitFor(() => Promise.resolve(deadLetters.some((d) => d.deliveryId === failed.id)), 20_000, 'the dead letter');
      expect(deadLetters.find((d) => d.deliveryId === failed.id)).toMatchObject({ ruleId: rule.id, eventId, attempts: 3 });
    } finally {
      await subscription.stop();
    }
  });
});
