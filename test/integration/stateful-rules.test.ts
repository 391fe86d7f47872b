import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { MODES, startApi, type ApiHarness, type TestAccount } from '../helpers/api-harness.js';
import { createTestApp } from '../helpers/api-assertions.js';
import { startHttpReceiver, type ReceivedRequest } from '../helpers/receivers.js';
import { waitFor } from '../helpers/service-process.js';
import { uniqueName } from '../helpers/stack-env.js';

/**
 * Rules with state through the public API, in both modes: threshold and absence triggers, snooze,
 * preview and dry-run. Alerts go to real webhook receivers on loopback; every check reads what the
 * receiver got or what the API answers.
 */
describe.each(MODES)('stateful rules (%s)', (mode) => {
  let api: ApiHarness;
  let account: TestAccount;

  beforeAll(async () => {
    api = await startApi(mode, { OUTBOUND_ALLOW_PRIVATE: 'true', DELIVERY_RETRY_SCHEDULE: '0,100ms' });
    account = await api.newAccount();
  });
  afterAll(async () => {
    await api.stop();
  });

  /** A received webhook with the time it arrived. */
  interface Alert {
    readonly at: number;
    readonly body: any;
  }

  async function setup() {
    const { app, apiKey } = await createTestApp(api, account, { name: uniqueName('stateful') });
    const alerts: Alert[] = [];
    const receiver = await startHttpReceiver((request: ReceivedRequest) => {
      alerts.push({ at: Date.now(), body: JSON.parse(request.body) });
      return { status: 200, body: 'ok' };
    });
    onTestFinished(() => receiver.close());
    const created = await api.request('POST', `/v1/apps/${app.id}/destinations`, {
      headers: account.auth,
      body: { type: 'webhook', label: 'receiver', url: `${receiver.baseUrl}/hook` },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const destination = created.body;
    const base = `/v1/apps/${app.id}/notification-rules`;
    const call = (method: string, path: string, body?: unknown) => api.request(method, `${base}${path}`, { headers: account.auth, body });
    const rule = async (body: Record<string, unknown>) => {
      const res = await call('POST', '', { actions: [{ destinationId: destination.id }], ...body });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body;
    };
    const ingest = async (events: unknown) => {
      const res = await api.request('POST', '/v1/ingest', { headers: { 'x-api-key': apiKey }, body: events });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      return res.body.events.map((e: { id: string }) => e.id) as string[];
    };
    const readRule = async (id: string) => (await call('GET', `/${id}`)).body;
    const deliveries = async () => (await api.request('GET', `/v1/apps/${app.id}/deliveries?limit=100`, { headers: account.auth })).body.items as any[];
    return { app, destination, alerts, call, rule, ingest, readRule, deliveries };
  }

  /**
   * A sentinel `every` rule whose alert proves the worker has evaluated everything ingested before it,
   * and so created the deliveries of every trigger before it. Deliveries travel on their own (keyed by
   * delivery id), so the sentinel's may arrive first: the others have arrived once none is pending.
   */
  async function sentinel(t: Awaited<ReturnType<typeof setup>>) {
    await t.rule({ name: 'sentinel', eventName: 'sentinel' });
    return async () => {
      const before = t.alerts.filter((a) => a.body.data.ruleName === 'sentinel').length;
      await t.ingest({ event: 'sentinel' });
      await waitFor(() => Promise.resolve(t.alerts.filter((a) => a.body.data.ruleName === 'sentinel').length > before), 20_000, 'the sentinel alert');
      await waitFor(async () => (await t.deliveries()).every((d) => d.status !== 'pending'), 20_000, 'every delivery attempted');
    };
  }

  it('validates triggers, templates and snoozes with a detail per problem', async () => {
    const t = await setup();
    const refused = async (path: string, body: unknown, detailPath: string) => {
      const res = await t.call('POST', path, body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.details.map((d: { path: string }) => d.path)).toContain(detailPath);
    };
    await refused('', { name: 'r', eventName: 'e', trigger: { type: 'threshold', count: 1, windowSeconds: 60 } }, 'trigger.count');
    await refused('', { name: 'r', eventName: 'e', trigger: { type: 'threshold', count: 5, windowSeconds: 5 } }, 'trigger.windowSeconds');
    await refused('', { name: 'r', eventName: 'e', trigger: { type: 'threshold', count: 5, windowSeconds: 60, groupBy: '$nope' } }, 'trigger.groupBy');
    await refused('', { name: 'r', eventName: 'e', trigger: { type: 'absence', windowSeconds: 604_801 } }, 'trigger.windowSeconds');
    await refused('', { name: 'r', eventName: 'e', trigger: { type: 'sometimes' } }, 'trigger.type');
    await refused('', { name: 'r', eventName: 'e', actions: [{ destinationId: t.destination.id, template: { body: 'Hi {{data.x}} {{nope}}' } }] }, 'actions.0.template.body');
    await refused('', { name: 'r', eventName: 'e', actions: [{ destinationId: t.destination.id, template: { title: 'x'.repeat(201) } }] }, 'actions.0.template.title');

    const every = await t.rule({ name: 'default', eventName: 'e' });
    expect(every).toMatchObject({ trigger: { type: 'every' }, snoozedUntil: null, triggerCount: 0, suppressedCount: 0 });
    const grouped = await t.rule({
      name: 'grouped',
      eventName: 'e',
      trigger: { type: 'threshold', count: 3, windowSeconds: 60, groupBy: 'metadata.region' },
      actions: [{ destinationId: t.destination.id, template: { title: '{{count}} in {{group}}', body: '{{ data.amount }}' } }],
    });
    expect(grouped.trigger).toEqual({ type: 'threshold', count: 3, windowSeconds: 60, groupBy: 'metadata.region' });
    expect(grouped.actions[0].template).toEqual({ title: '{{count}} in {{group}}', body: '{{ data.amount }}' });
    expect((await t.call('PATCH', `/${grouped.id}`, { trigger: { type: 'absence', windowSeconds: 60 } })).status).toBe(200);
    expect((await t.readRule(grouped.id)).trigger).toEqual({ type: 'absence', windowSeconds: 60 });

    await refused(`/${every.id}/snooze`, { minutes: 0 }, 'minutes');
    await refused(`/${every.id}/snooze`, { minutes: 43_201 }, 'minutes');
    await refused(`/${every.id}/snooze`, { until: new Date(Date.now() - 1000).toISOString() }, 'until');
    expect((await t.call('POST', `/00000000-0000-4000-8000-000000000000/snooze`, { minutes: 5 })).status).toBe(404);
  });

  it('fires a threshold on every Nth matching event of a group, and labels the alert', async () => {
    const t = await setup();
    const settled = await sentinel(t);
    const rule = await t.rule({
      name: 'card declines',
      eventName: 'payment.failed',
      trigger: { type: 'threshold', count: 5, windowSeconds: 600, groupBy: '$customer_id' },
      conditions: [{ field: 'amount', operator: 'greater_than', value: 10 }],
    });
    const now = Date.now();
    const events = Array.from({ length: 24 }, (_, i) => ({
      event: 'payment.failed',
      customer_id: i % 2 === 0 ? 'cus_even' : 'cus_odd',
      data: { amount: 50 },
      timestamp: new Date(now - 60_000 + i * 1000).toISOString(),
    }));
    // Not counted: no customer, or failing the condition.
    events.push({ event: 'payment.failed', data: { amount: 50 }, timestamp: new Date(now).toISOString() } as any);
    events.push({ event: 'payment.failed', customer_id: 'cus_even', data: { amount: 1 }, timestamp: new Date(now).toISOString() });
    await t.ingest(events);
    await settled();
    const fired = t.alerts.filter((a) => a.body.data.ruleId === rule.id);
    expect(fired.map((a) => a.body.data.group).sort()).toEqual(['cus_even', 'cus_even', 'cus_odd', 'cus_odd']);
    for (const alert of fired) expect(alert.body.data).toMatchObject({ kind: 'threshold', count: 5, windowSeconds: 600 });
    expect(await t.readRule(rule.id)).toMatchObject({ triggerCount: 4, suppressedCount: 0 });
  });

  it('snoozes: triggers are counted as suppressed and send nothing until unsnoozed', async () => {
    const t = await setup();
    const settled = await sentinel(t);
    const rule = await t.rule({ name: 'noisy', eventName: 'noisy' });
    const snoozed = await t.call('POST', `/${rule.id}/snooze`, { minutes: 60 });
    expect(snoozed.status, JSON.stringify(snoozed.body)).toBe(200);
    expect(Date.parse(snoozed.body.snoozedUntil) - Date.now()).toBeGreaterThan(59 * 60_000);
    await t.ingest([{ event: 'noisy' }, { event: 'noisy' }]);
    await settled();
    expect(await t.readRule(rule.id)).toMatchObject({ triggerCount: 2, suppressedCount: 2 });
    expect(t.alerts.filter((a) => a.body.data.ruleId === rule.id)).toEqual([]);
    expect((await t.deliveries()).filter((d) => d.ruleId === rule.id)).toEqual([]);

    const until = new Date(Date.now() + 86_400_000).toISOString();
    expect((await t.call('POST', `/${rule.id}/snooze`, { until })).body.snoozedUntil).toBe(until);
    const unsnoozed = await t.call('DELETE', `/${rule.id}/snooze`);
    expect(unsnoozed.status).toBe(200);
    expect(unsnoozed.body.snoozedUntil).toBeNull();
    await t.ingest({ event: 'noisy' });
    await waitFor(() => Promise.resolve(t.alerts.some((a) => a.body.data.ruleId === rule.id)), 20_000, 'the alert after unsnooze');
    expect(await t.readRule(rule.id)).toMatchObject({ triggerCount: 3, suppressedCount: 2 });
  });

  it('alerts on a silence within 2 s of its deadline, once, and on the recovery', async () => {
    const t = await setup();
    const rule = await t.rule({ name: 'heartbeat', eventName: 'heartbeat', trigger: { type: 'absence', windowSeconds: 10 } });
    const kinds = () => t.alerts.filter((a) => a.body.data.ruleId === rule.id).map((a) => a.body.data.kind);
    await waitFor(() => Promise.resolve(kinds().includes('absence')), 20_000, 'the absence alert').catch((err) => {
      console.log(api.logLines().filter((l) => /absence|"level":(40|50)/.test(l)).slice(-5).join('\n'));
      throw err;
    });
    const [absence] = t.alerts.filter((a) => a.body.data.kind === 'absence');
    const deadline = Date.parse(absence!.body.data.event.timestamp);
    expect(deadline - Date.parse(rule.createdAt)).toBeGreaterThanOrEqual(10_000);
    expect(deadline - Date.parse(rule.createdAt)).toBeLessThan(11_000);
    expect(absence!.at - deadline).toBeLessThanOrEqual(2_000);
    expect(absence!.body.data).toMatchObject({ windowSeconds: 10, event: { event: 'heartbeat', level: 'warning' } });

    const [back] = await t.ingest({ event: 'heartbeat' });
    await waitFor(() => Promise.resolve(kinds().includes('recovered')), 20_000, 'the recovery alert');
    expect(kinds()).toEqual(['absence', 'recovered']);
    expect(t.alerts.find((a) => a.body.data.kind === 'recovered')!.body.data.event.id).toBe(back);
    expect(await t.readRule(rule.id)).toMatchObject({ triggerCount: 1 });
    // The recovery restarted the clock; disabling the rule stops it, so no second silence is reported.
    expect((await t.call('PATCH', `/${rule.id}`, { enabled: false })).status).toBe(200);
  });

  it('previews the message of each action for a stored or a given event, sending nothing', async () => {
    const t = await setup();
    const [stored] = await t.ingest({ event: 'order', customer_id: 'cus_1', data: { amount: 120, note: '<b>hi</b>' } });
    const ruleBody = {
      name: 'big order',
      eventName: 'order',
      conditions: [{ field: 'amount', operator: 'greater_than', value: 100 }],
      actions: [{ destinationId: t.destination.id, template: { title: 'Order by {{customer_id}}', body: '{{data.amount}} {{data.note}} {{data.missing}}!' } }],
    };
    await waitFor(async () => {
      const res = await t.call('POST', '/preview', { rule: ruleBody, eventId: stored });
      if (res.status !== 200) console.log(res.status, api.logLines().filter((l) => l.includes('"err"')).slice(-1).join('\n'));
      return res.status === 200;
    }, 20_000, 'the stored event');
    const byId = await t.call('POST', '/preview', { rule: ruleBody, eventId: stored });
    expect(byId.body).toEqual({
      matched: true,
      eventId: stored,
      messages: [{ destinationId: t.destination.id, type: 'webhook', title: 'Order by cus_1', body: '120 <b>hi</b> !' }],
    });
    const latest = await t.call('POST', '/preview', { rule: ruleBody });
    expect(latest.body.eventId).toBe(stored);
    const given = await t.call('POST', '/preview', { rule: ruleBody, event: { event: 'order', data: { amount: 5 } } });
    expect(given.body).toMatchObject({ matched: false, eventId: null, messages: [{ title: 'Order by ', body: '5  !' }] });

    expect((await t.call('POST', '/preview', { rule: ruleBody, eventId: '00000000-0000-4000-8000-000000000000' })).status).toBe(400);
    expect((await t.call('POST', '/preview', { rule: { ...ruleBody, actions: [{ destinationId: '00000000-0000-4000-8000-000000000000' }] } })).status).toBe(400);
    expect(t.alerts).toEqual([]);
    expect(await t.deliveries()).toEqual([]);
    expect((await t.call('GET', '')).body).toEqual([]);
  });

  it('dry-runs a rule over stored events with the triggers the worker made', async () => {
    const t = await setup();
    const settled = await sentinel(t);
    const ruleBody = { name: 'bursts', eventName: 'login.failed', trigger: { type: 'threshold', count: 3, windowSeconds: 60, groupBy: 'user' } };
    const start = Date.now() - 3_600_000;
    // Three users; failures spaced so that some fall out of the window of the ones before.
    const offsets = [0, 10, 20, 30, 100, 110, 200, 205, 210, 215, 220, 400, 455, 470, 530, 540];
    const events = offsets.flatMap((s, i) => ['ann', 'bob', 'cyd'].slice(0, 1 + (i % 3)).map((user) => ({ event: 'login.failed', data: { user }, timestamp: new Date(start + s * 1000).toISOString() })));
    const rule = await t.rule(ruleBody);
    // Sent in timestamp order, one request after another, so the worker sees them in that order too.
    for (let i = 0; i < events.length; i += 10) await t.ingest(events.slice(i, i + 10));
    await settled();
    const byTime = (a: { timestamp: string; eventId: string }, b: { timestamp: string; eventId: string }) => a.timestamp.localeCompare(b.timestamp) || a.eventId.localeCompare(b.eventId);
    const workerTriggers = t.alerts
      .filter((a) => a.body.data.ruleId === rule.id)
      .map((a) => ({ eventId: a.body.data.event.id as string, timestamp: new Date(a.body.data.event.timestamp).toISOString(), group: a.body.data.group as string }))
      .sort(byTime);
    expect(workerTriggers.length).toBeGreaterThan(2);
    expect(await t.readRule(rule.id)).toMatchObject({ triggerCount: workerTriggers.length });

    // The sentinel's alert says the rules group is done; the storing group, a consumer group of its
    // own, may still be inserting the last batch, and a dry run reads stored events.
    const range = { from: new Date(start - 1000).toISOString(), to: new Date(start + 600_000).toISOString() };
    await waitFor(async () => (await t.call('POST', '/dry-run', { rule: ruleBody, ...range })).body.evaluatedEvents === events.length, 20_000, 'every event stored');
    const dry = await t.call('POST', '/dry-run', { rule: ruleBody, ...range });
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body).toEqual({ evaluatedEvents: events.length, matchedEvents: events.length, triggers: workerTriggers.length, firstTriggers: workerTriggers });
    // The default range (the last 24 hours) holds them too; a range before them holds nothing.
    expect((await t.call('POST', '/dry-run', { rule: ruleBody })).body.triggers).toBe(workerTriggers.length);
    const before = await t.call('POST', '/dry-run', { rule: ruleBody, from: new Date(start - 7_200_000).toISOString(), to: new Date(start).toISOString() });
    expect(before.body).toEqual({ evaluatedEvents: 0, matchedEvents: 0, triggers: 0, firstTriggers: [] });

    const tooLong = await t.call('POST', '/dry-run', { rule: ruleBody, from: new Date(start - 32 * 86_400_000).toISOString(), to: new Date(start).toISOString() });
    expect(tooLong.status).toBe(400);
    const backwards = await t.call('POST', '/dry-run', { rule: ruleBody, from: new Date(start).toISOString(), to: new Date(start - 1).toISOString() });
    expect(backwards.status).toBe(400);
  });
});
