import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSUFFICIENT_SCOPE, INVALID_AUTH, NOT_FOUND, expectError, expectValidationError, readOnlySecretOf } from '../helpers/api-assertions.js';
import { MODES, UNREACHABLE_MAIL_SERVER, startApi, type ApiHarness } from '../helpers/api-harness.js';
import { appSession, foreignAppRefs, type AppSession } from '../helpers/app-session.js';
import { openApiCheck, type OpenApiCheck } from '../helpers/openapi-check.js';
import type { MatchRecord } from '../../src/ports/state-store.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const LIST = '/v1/apps/{appId}/notification-rules';
const ONE = '/v1/apps/{appId}/notification-rules/{ruleId}';
const HOOK_SECRET = 'T000/B000/rul3Secr3t';

/** Notification rules through the API: create, list, read, update, delete, validation, statistics. */
describe.each(MODES)('notification rules (%s)', (mode) => {
  let api: ApiHarness;
  let openapi: OpenApiCheck;
  let s: AppSession;
  /** The current app's destinations: a Slack one and an e-mail one. */
  let slack: { id: string };
  let mail: { id: string };

  beforeAll(async () => {
    api = await startApi(mode, { OUTBOUND_ALLOW_PRIVATE: 'true', ...UNREACHABLE_MAIL_SERVER });
    openapi = await openApiCheck(api);
  });
  afterAll(async () => {
    await api?.stop();
  });

  const base = (appRef = s.app.id) => `/v1/apps/${appRef}/notification-rules`;
  const create = (body: unknown) => s.ok('POST', base(), LIST, 201, body);
  async function fresh(): Promise<void> {
    s = await appSession(api, openapi, 'Rules');
    const destinations = `/v1/apps/${s.app.id}/destinations`;
    slack = (await s.call('POST', destinations, { type: 'slack', label: 'Ops', url: `https://127.0.0.1:9/services/${HOOK_SECRET}` })).body;
    mail = (await s.call('POST', destinations, { type: 'email', label: 'Mail', email: 'ops@example.com' })).body;
  }
  const spec = () => ({
    name: 'Large payment',
    eventName: 'payment.failed',
    enabled: true,
    conditions: [{ field: 'amount', operator: 'greater_than', value: 100 }],
    actions: [{ destinationId: slack.id, channel: 'slack' }],
  });

  describe('POST', () => {
    it("creates a rule as in the API documentation's example: ids assigned, targets shown, no triggers yet", async () => {
      await fresh();
      const rule = await create(spec());
      expect(rule).toEqual({
        id: expect.stringMatching(UUID),
        appId: s.app.id,
        name: 'Large payment',
        eventName: 'payment.failed',
        enabled: true,
        match: 'all',
        cooldownSeconds: 0,
        trigger: { type: 'every' },
        snoozedUntil: null,
        suppressedCount: 0,
        conditions: [{ id: expect.stringMatching(UUID), field: 'amount', operator: 'greater_than', value: 100 }],
        actions: [{ id: expect.stringMatching(UUID), destinationId: slack.id, channel: 'slack', target: 'https://127.0.0.1:9/…', enabled: true }],
        lastTriggeredAt: null,
        triggerCount: 0,
        createdAt: expect.any(String),
        updatedAt: rule.createdAt,
      });
      // Reading the destinations to check the actions does not write them.
      const destination = (await s.call('GET', `/v1/apps/${s.app.id}/destinations/${slack.id}`)).body;
      expect(destination.updatedAt).toBe(destination.createdAt);
    });

    it('fills in defaults and the channel; takes every operator, match any and a cooldown', async () => {
      await fresh();
      expect(await create({ name: 'Bare', eventName: 'ping' })).toMatchObject({ enabled: true, match: 'all', conditions: [], actions: [], cooldownSeconds: 0 });
      const conditions = [
        { field: 'status', operator: 'equals', value: 'failed' },
        { field: 'order.total', operator: 'greater_than_or_equal', value: '99.5' },
        { field: 'metadata.region', operator: 'not_equals', value: 'eu' },
        { field: '$level', operator: 'equals', value: 'error' },
        { field: 'tags', operator: 'contains', value: 'vip' },
        { field: 'note', operator: 'not_contains', value: 'test' },
        { field: 'n', operator: 'less_than', value: 5 },
        { field: 'n', operator: 'less_than_or_equal', value: 5 },
        { field: '$customer_id', operator: 'exists' },
        { field: 'flag', operator: 'equals', value: true },
      ];
      const rule = await create({ ...spec(), match: 'any', cooldownSeconds: 86_400, conditions, actions: [{ destinationId: mail.id }, { destinationId: slack.id, enabled: false }] });
      expect(rule.conditions.map(({ id: _id, ...c }: any) => c)).toEqual(conditions);
      expect(rule.actions).toEqual([
        { id: expect.stringMatching(UUID), destinationId: mail.id, channel: 'email', target: 'ops@example.com', enabled: true },
        { id: expect.stringMatching(UUID), destinationId: slack.id, channel: 'slack', target: 'https://127.0.0.1:9/…', enabled: false },
      ]);
      expect(rule).toMatchObject({ match: 'any', cooldownSeconds: 86_400 });
    });

    it("400 naming the action: another app's destination, an unknown one, a channel that is not the destination's", async () => {
      await fresh();
      const theirs = (await s.call('POST', '/v1/apps', { name: 'Other' })).body.app;
      const foreign = (await s.call('POST', `/v1/apps/${theirs.id}/destinations`, { type: 'slack', label: 'x', url: 'https://127.0.0.1:9/x' })).body;
      expectValidationError(await s.call('POST', base(), { ...spec(), actions: [{ destinationId: foreign.id }] }), 'actions.0.destinationId', /destination of this app/);
      const res = await s.call('POST', base(), {
        ...spec(),
        actions: [{ destinationId: slack.id }, { destinationId: uuidv7() }, { destinationId: mail.id, channel: 'slack' }],
      });
      expectValidationError(res, 'actions.1.destinationId', /destination of this app/);
      expectValidationError(res, 'actions.2.channel', /must be "email"/);
      expect(res.body.message).toBe('actions.1.destinationId: must be the id of a destination of this app');
      expect(await s.ok('GET', base(), LIST, 200)).toEqual([]);
    });

    it.each([
      ['name', /non-empty/, { name: '' }],
      ['eventName', /letters, digits/, { eventName: 'has space' }],
      ['enabled', /boolean/, { enabled: 'yes' }],
      ['match', /all or any/, { match: 'some' }],
      ['conditions', /array/, { conditions: {} }],
      ['conditions.0.operator', /one of/, { conditions: [{ field: 'a', operator: 'matches', value: 'x' }] }],
      ['conditions.0.value', /required for operator equals/, { conditions: [{ field: 'a', operator: 'equals' }] }],
      ['conditions.0.value', /numeric string/, { conditions: [{ field: 'a', operator: 'greater_than', value: 'lots' }] }],
      ['conditions.0.field', /\$level or \$customer_id/, { conditions: [{ field: '$other', operator: 'exists' }] }],
      ['conditions.0.field', /empty segment/, { conditions: [{ field: 'a..b', operator: 'exists' }] }],
      ['actions.0.destinationId', /destination of this app/, { actions: [{ destinationId: 'not-a-uuid' }] }],
      ['actions.0.channel', /one of/, { actions: [{ destinationId: uuidv7(), channel: 'sms' }] }],
      ['actions.0', /Unrecognized key/, { actions: [{ destinationId: uuidv7(), secret: 'x' }] }],
      ['cooldownSeconds', /0 to 86400/, { cooldownSeconds: -1 }],
      ['cooldownSeconds', /0 to 86400/, { cooldownSeconds: 86_401 }],
      ['cooldownSeconds', /0 to 86400/, { cooldownSeconds: 1.5 }],
      ['body', /Unrecognized key/, { triggerCount: 5 }],
    ])('400 naming %s (%s)', async (path, message, change) => {
      await fresh();
      expectValidationError(await s.call('POST', base(), { ...spec(), ...change }), path, message);
    });
  });

  describe('GET', () => {
    it('lists in creation order with limit/offset, reads one, and shows the trigger statistics the worker keeps', async () => {
      await fresh();
      const first = await create(spec());
      const second = await create({ ...spec(), name: 'Second' });
      const at = Date.UTC(2026, 0, 2, 3, 4, 5, 6);
      // Three triggers as the worker records them: matches of an `every` rule, the last at `at`.
      for (const [i, nowMs] of [at - 2000, at - 1000, at].entries()) await api.container.state.recordMatch(everyMatch(second.id, s.app.id, `e${i}`, nowMs));
      const list = await s.ok('GET', base(s.app.slug), LIST, 200);
      expect(list.map((r: any) => r.id)).toEqual([first.id, second.id]);
      expect(list[0]).toEqual(first);
      expect(list[1]).toMatchObject({ triggerCount: 3, lastTriggeredAt: new Date(at).toISOString() });
      expect(await s.ok('GET', `${base()}/${second.id}`, ONE, 200)).toEqual(list[1]);
      expect((await s.ok('GET', `${base()}?limit=1&offset=1`, LIST, 200)).map((r: any) => r.id)).toEqual([second.id]);
      expectValidationError(await s.call('GET', `${base()}?limit=1001`), 'limit');
    });
  });

  describe('PATCH', () => {
    it('changes any field; lists replace the old ones and keep the ids sent back', async () => {
      await fresh();
      const rule = await create(spec());
      const url = `${base()}/${rule.id}`;
      expect(await s.ok('PATCH', url, ONE, 200, {})).toEqual(rule);
      const renamed = await s.ok('PATCH', url, ONE, 200, { name: 'Renamed', enabled: false, match: 'any', cooldownSeconds: 60, eventName: 'payment.retried' });
      expect(renamed).toMatchObject({ name: 'Renamed', enabled: false, match: 'any', cooldownSeconds: 60, eventName: 'payment.retried', conditions: rule.conditions, actions: rule.actions });
      const kept = rule.actions[0];
      const replaced = await s.ok('PATCH', url, ONE, 200, {
        conditions: [{ field: 'amount', operator: 'less_than', value: 5 }],
        actions: [{ id: kept.id, destinationId: slack.id, enabled: false }, { id: uuidv7(), destinationId: mail.id }],
      });
      expect(replaced.conditions).toEqual([{ id: expect.stringMatching(UUID), field: 'amount', operator: 'less_than', value: 5 }]);
      expect(replaced.conditions[0].id).not.toBe(rule.conditions[0].id);
      expect(replaced.actions[0]).toEqual({ ...kept, enabled: false });
      expect(replaced.actions[1]).toMatchObject({ destinationId: mail.id, channel: 'email' });
      expect([kept.id]).not.toContain(replaced.actions[1].id);
      expect(await s.ok('GET', url, ONE, 200)).toEqual(replaced);
      // What a read returns can be sent back unchanged: same ids, nothing written.
      const { conditions, actions } = replaced;
      expect(await s.ok('PATCH', url, ONE, 200, { conditions, actions })).toEqual(replaced);
    });

    it('400 for invalid changes, with the action path; nothing is applied', async () => {
      await fresh();
      const rule = await create(spec());
      const url = `${base()}/${rule.id}`;
      expectValidationError(await s.call('PATCH', url, { actions: [{ destinationId: slack.id, channel: 'email' }] }), 'actions.0.channel', /must be "slack"/);
      expectValidationError(await s.call('PATCH', url, { name: 'x', cooldownSeconds: 'long' }), 'cooldownSeconds');
      expectValidationError(await s.call('PATCH', url, { appId: uuidv7() }), 'body', /Unrecognized key/);
      expect(await s.ok('GET', url, ONE, 200)).toEqual(rule);
    });
  });

  describe('DELETE and isolation', () => {
    it('deletes (204), then 404; the rules go with their app', async () => {
      await fresh();
      const rule = await create(spec());
      await api.container.state.recordMatch(everyMatch(rule.id, s.app.id, 'e1', Date.now()));
      expect(await api.container.state.ruleCounters([rule.id])).toEqual([expect.objectContaining({ triggerCount: 1 })]);
      const res = await s.call('DELETE', `${base()}/${rule.id}`);
      expect(res.status).toBe(204);
      expect(await api.container.state.ruleCounters([rule.id])).toEqual([{ triggerCount: 0, suppressedCount: 0, lastTriggeredAtMs: null }]);
      openapi.assertResponse('DELETE', ONE, 204, res.body);
      expectError(await s.call('GET', `${base()}/${rule.id}`), 404, NOT_FOUND);
      expectError(await s.call('DELETE', `${base()}/${rule.id}`), 404, NOT_FOUND);
      const kept = await create(spec());
      expect(await api.container.metadata.rules.findById(s.app.id, kept.id)).not.toBeNull();
      expect((await s.call('DELETE', `/v1/apps/${s.app.id}`)).status).toBe(204);
      expect(await api.container.metadata.rules.findById(s.app.id, kept.id)).toBeNull();
    });

    it("404 for another app's rule, unknown ids and another account's app; 401; 403 for writes when read-only", async () => {
      await fresh();
      const rule = await create(spec());
      const other = (await s.call('POST', '/v1/apps', { name: 'Other' })).body.app;
      for (const url of [`${base(other.id)}/${rule.id}`, `${base()}/${uuidv7()}`, `${base()}/nope`]) {
        expectError(await s.call('GET', url), 404, NOT_FOUND);
        expectError(await s.call('PATCH', url, { name: 'x' }), 404, NOT_FOUND);
        expectError(await s.call('DELETE', url), 404, NOT_FOUND);
      }
      for (const ref of await foreignAppRefs(api)) {
        expectError(await s.call('GET', base(ref)), 404, NOT_FOUND);
        expectError(await s.call('POST', base(ref), spec()), 404, NOT_FOUND);
      }
      expectError(await s.call('GET', base(), undefined, {}), 401, INVALID_AUTH);
      const reader = await readOnlySecretOf(api, s.account);
      expect((await s.call('GET', `${base()}/${rule.id}`, undefined, reader)).status).toBe(200);
      expectError(await s.call('POST', base(), spec(), reader), 403, INSUFFICIENT_SCOPE);
      expectError(await s.call('PATCH', `${base()}/${rule.id}`, { name: 'x' }, reader), 403, INSUFFICIENT_SCOPE);
      expectError(await s.call('DELETE', `${base()}/${rule.id}`, undefined, reader), 403, INSUFFICIENT_SCOPE);
      expect(JSON.stringify(await s.ok('GET', base(), LIST, 200))).not.toContain(HOOK_SECRET);
    });
  });
});

/** A match of an `every` rule as the worker records it. */
function everyMatch(ruleId: string, appId: string, eventId: string, nowMs: number): MatchRecord {
  return { ruleId, appId, eventId, eventTimeMs: nowMs, nowMs, trigger: { type: 'every' }, group: '', cooldownMs: 0, snoozed: false };
}
