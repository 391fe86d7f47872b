import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresMetadataStore } from '../../src/adapters/metadata/metadata-store.js';
import type { MetadataStore } from '../../src/ports/metadata.js';
import { RedisStateStore } from '../../src/adapters/state/redis-state-store.js';
import type { StateStore } from '../../src/ports/state-store.js';
import { RuleSetCache, type AppRuleSet } from '../../src/services/rule-set-cache.js';
import { MODES, UNREACHABLE_MAIL_SERVER, startApi, type ApiHarness } from '../helpers/api-harness.js';
import { appSession, type AppSession } from '../helpers/app-session.js';
import { capturingLogger } from '../helpers/logger.js';
import { openApiCheck, type OpenApiCheck } from '../helpers/openapi-check.js';

/**
 * The worker's view of an app's rules (src/services/rule-set-cache.ts). `worker` is a second cache
 * with its own database and state-store connections, as another process has (distributed mode); in
 * embedded mode there is one process, so it shares the service's stores. Every change made through
 * the API must be seen by it on its very next call.
 */
describe.each(MODES)('rule set cache (%s)', (mode) => {
  let api: ApiHarness;
  let openapi: OpenApiCheck;
  let worker: RuleSetCache;
  const closers: Array<() => Promise<void>> = [];
  let s: AppSession;

  beforeAll(async () => {
    api = await startApi(mode, { OUTBOUND_ALLOW_PRIVATE: 'true', ...UNREACHABLE_MAIL_SERVER });
    openapi = await openApiCheck(api);
    let metadata: MetadataStore = api.container.metadata;
    let state: StateStore = api.container.state;
    const distributed = api.container.config.distributed;
    if (distributed) {
      const ownMetadata = createPostgresMetadataStore({ url: distributed.databaseUrl });
      const ownState = new RedisStateStore({ url: distributed.redisUrl, keyPrefix: distributed.redisKeyPrefix });
      closers.push(() => ownMetadata.close(), () => ownState.close());
      [metadata, state] = [ownMetadata, ownState];
    }
    worker = new RuleSetCache({ metadata, state, logger: capturingLogger().logger });
  });
  afterAll(async () => {
    for (const close of closers) await close();
    await api?.stop();
  });

  const rules = () => `/v1/apps/${s.app.id}/notification-rules`;
  const destinations = () => `/v1/apps/${s.app.id}/destinations`;
  const summary = (set: AppRuleSet) =>
    Object.fromEntries([...set.rulesByEvent].map(([event, list]) => [event, list.map((r) => ({ name: r.name, actions: r.actions.map((a) => a.destination.url ?? a.destination.email) }))]));

  it("holds the app's enabled rules by event name, with enabled actions joined to full destinations", async () => {
    s = await appSession(api, openapi, 'Shop');
    const hook = await s.ok('POST', destinations(), '/v1/apps/{appId}/destinations', 201, { type: 'webhook', label: 'Hook', url: 'http://127.0.0.1:9/hook/s3cret' });
    const mail = (await s.call('POST', destinations(), { type: 'email', label: 'Mail', email: 'ops@example.com' })).body;
    const conditions = [{ field: 'amount', operator: 'greater_than', value: 100 }];
    const big = (await s.call('POST', rules(), { name: 'Big', eventName: 'order.created', match: 'any', cooldownSeconds: 30, conditions, actions: [{ destinationId: hook.id }, { destinationId: mail.id, enabled: false }] })).body;
    await s.call('POST', rules(), { name: 'Off', eventName: 'order.created', enabled: false, actions: [{ destinationId: mail.id }] });
    await s.call('POST', rules(), { name: 'Refunds', eventName: 'order.refunded', actions: [{ destinationId: mail.id }] });

    const set = await worker.forApp(s.app.id);
    expect(set).toMatchObject({ appId: s.app.id, appName: 'Shop' });
    expect(summary(set)).toEqual({ 'order.created': [{ name: 'Big', actions: ['http://127.0.0.1:9/hook/s3cret'] }], 'order.refunded': [{ name: 'Refunds', actions: ['ops@example.com'] }] });
    const [rule] = set.rulesByEvent.get('order.created')!;
    expect(rule).toMatchObject({ id: big.id, match: 'any', cooldownSeconds: 30, conditions: big.conditions });
    expect(rule!.actions[0]).toEqual({
      id: big.actions[0].id,
      destination: { id: hook.id, appId: s.app.id, type: 'webhook', label: 'Hook', url: 'http://127.0.0.1:9/hook/s3cret', email: null, signingSecret: hook.signingSecret },
    });
    const event = { event: 'order.created', level: 'info', customerId: null, metadata: {} };
    expect(rule!.matches({ ...event, data: { amount: 101 } })).toBe(true);
    expect(rule!.matches({ ...event, data: { amount: 99 } })).toBe(false);
  });

  it('serves from its cache until a service changes something, then reloads on the next call', async () => {
    s = await appSession(api, openapi, 'Cached');
    const mail = (await s.call('POST', destinations(), { type: 'email', label: 'Mail', email: 'a@example.com' })).body;
    const rule = (await s.call('POST', rules(), { name: 'R', eventName: 'e', actions: [{ destinationId: mail.id }] })).body;
    expect(summary(await worker.forApp(s.app.id))).toEqual({ e: [{ name: 'R', actions: ['a@example.com'] }] });

    // A write that bypasses the services is not seen: the cache is really serving.
    await api.container.metadata.rules.update(rule.id, { name: 'Behind its back' });
    expect(summary(await worker.forApp(s.app.id))).toEqual({ e: [{ name: 'R', actions: ['a@example.com'] }] });

    const steps: Array<[() => Promise<{ status: number }>, Record<string, unknown>]> = [
      [() => s.call('PATCH', `${rules()}/${rule.id}`, { name: 'Renamed' }), { e: [{ name: 'Renamed', actions: ['a@example.com'] }] }],
      [() => s.call('PATCH', `${destinations()}/${mail.id}`, { email: 'b@example.com' }), { e: [{ name: 'Renamed', actions: ['b@example.com'] }] }],
      [() => s.call('PATCH', `${rules()}/${rule.id}`, { eventName: 'f' }), { f: [{ name: 'Renamed', actions: ['b@example.com'] }] }],
      [() => s.call('POST', rules(), { name: 'Second', eventName: 'f' }), { f: [{ name: 'Renamed', actions: ['b@example.com'] }, { name: 'Second', actions: [] }] }],
      [() => s.call('PATCH', `${rules()}/${rule.id}`, { enabled: false }), { f: [{ name: 'Second', actions: [] }] }],
    ];
    for (const [change, expected] of steps) {
      expect([200, 201]).toContain((await change()).status);
      expect(summary(await worker.forApp(s.app.id))).toEqual(expected);
    }
    const second = (await s.call('GET', rules())).body.find((r: any) => r.name === 'Second');
    expect((await s.call('DELETE', `${rules()}/${second.id}`)).status).toBe(204);
    expect(summary(await worker.forApp(s.app.id))).toEqual({});
  });

  it("sees an app's rename and deletion; an unknown app has no rules", async () => {
    s = await appSession(api, openapi, 'Before');
    await s.call('POST', rules(), { name: 'R', eventName: 'e' });
    expect((await worker.forApp(s.app.id)).appName).toBe('Before');
    expect((await s.call('PATCH', `/v1/apps/${s.app.id}`, { name: 'After' })).status).toBe(200);
    expect((await worker.forApp(s.app.id)).appName).toBe('After');
    expect((await s.call('DELETE', `/v1/apps/${s.app.id}`)).status).toBe(204);
    expect(await worker.forApp(s.app.id)).toEqual({ appId: s.app.id, appName: '', rulesByEvent: new Map(), rulesById: new Map() });
    expect((await worker.forApp(uuidv7())).rulesByEvent.size).toBe(0);
  });
});
