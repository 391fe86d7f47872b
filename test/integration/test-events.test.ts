import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INSUFFICIENT_SCOPE, INVALID_AUTH, NOT_FOUND, expectError, expectValidationError, readOnlySecretOf } from '../helpers/api-assertions.js';
import { MODES, startApi, type ApiHarness } from '../helpers/api-harness.js';
import { appSession, foreignAppRefs, type AppSession } from '../helpers/app-session.js';
import { openApiCheck, type OpenApiCheck } from '../helpers/openapi-check.js';
import { waitFor } from '../helpers/service-process.js';

const PATH = '/v1/apps/{appId}/events/test';

/**
 * Test events: the dashboard sends one event with a client secret, and it goes through the same
 * ingest as `POST /v1/ingest` (schema checks, default metadata, idempotency) and then the whole
 * pipeline: it becomes readable through the events list.
 */
describe.each(MODES)('POST /v1/apps/{appId}/events/test (%s)', (mode) => {
  let api: ApiHarness;
  let openapi: OpenApiCheck;
  let s: AppSession;

  beforeAll(async () => {
    api = await startApi(mode);
    openapi = await openApiCheck(api);
  });
  afterAll(async () => {
    await api?.stop();
  });

  const url = (appRef = s.app.id) => `/v1/apps/${appRef}/events/test`;
  const listed = async (): Promise<any[]> => (await s.ok('GET', `/v1/apps/${s.app.id}/events`, '/v1/apps/{appId}/events', 200)).items;

  it('accepts one event with 202 and the ingest response; it is then readable like any event', async () => {
    s = await appSession(api, openapi, 'Test events');
    await s.call('PUT', `/v1/apps/${s.app.id}/default-metadata`, { env: 'staging' });
    const accepted = await s.ok('POST', url(s.app.slug), PATH, 202, { event: 'order.created', data: { amount: 42 }, level: 'warning', metadata: { source: 'dashboard' } });
    expect(accepted).toEqual({ accepted: 1, events: [{ id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7/) }] });
    await waitFor(async () => (await listed()).length === 1, 15_000, 'the test event in the events list');
    expect((await listed())[0]).toMatchObject({
      id: accepted.events[0].id,
      appId: s.app.id,
      event: 'order.created',
      data: { amount: 42 },
      level: 'warning',
      metadata: { env: 'staging', source: 'dashboard' },
    });
  });

  it('checks the event against the app schema, as ingest does; nothing of a refused event is stored', async () => {
    s = await appSession(api, openapi, 'Checked');
    const schema = { eventName: 'order.created', fields: [{ name: 'amount', type: 'number', required: true }] };
    expect((await s.call('POST', `/v1/apps/${s.app.id}/schemas`, schema)).status).toBe(201);
    expectValidationError(await s.call('POST', url(), { event: 'order.created', data: { amount: 'lots' } }), 'data.amount');
    expectValidationError(await s.call('POST', url(), { event: 'order.created', data: {} }), 'data.amount', /required/);
    expect((await s.ok('POST', url(), PATH, 202, { event: 'order.created', data: { amount: 1 } })).accepted).toBe(1);
    await waitFor(async () => (await listed()).length === 1, 15_000, 'the valid event');
    expect((await listed()).map((e) => e.data)).toEqual([{ amount: 1 }]);
  });

  it.each([
    ['body', /Unrecognized key/, { event: 'a', extra: true }],
    ['body', /expected object/, [{ event: 'a' }]],
    ['event', /1 to 200 characters/, { event: 'has space' }],
    ['level', /one of info, warning, error, success/, { event: 'a', level: 'fatal' }],
    ['timestamp', /24 hours in the future/, { event: 'a', timestamp: new Date(Date.now() + 48 * 3600_000).toISOString() }],
  ])('400 naming %s (%s): one event, validated as ingest validates it', async (path, message, body) => {
    s = await appSession(api, openapi, 'Invalid');
    expectValidationError(await s.call('POST', url(), body), path, message);
  });

  it('replays a request with the same Idempotency-Key; 409 for the key with another body', async () => {
    s = await appSession(api, openapi, 'Idempotent');
    const headers = { ...s.account.auth, 'idempotency-key': 'dashboard-click-1' };
    const first = await api.request('POST', url(), { headers, body: { event: 'a' } });
    expect(first.status).toBe(202);
    const again = await api.request('POST', url(), { headers, body: { event: 'a' } });
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expectError(await api.request('POST', url(), { headers, body: { event: 'b' } }), 409);
  });

  it("401 without a client secret or with the app's API key; 403 read-only; 404 for another account's app", async () => {
    s = await appSession(api, openapi, 'Guarded');
    const { apiKey } = (await s.call('POST', '/v1/apps', { name: 'Keyed' })).body;
    const event = { event: 'a' };
    expectError(await s.call('POST', url(), event, {}), 401, INVALID_AUTH);
    expectError(await s.call('POST', url(), event, { 'x-api-key': apiKey }), 401, INVALID_AUTH);
    expectError(await s.call('POST', url(), event, await readOnlySecretOf(api, s.account)), 403, INSUFFICIENT_SCOPE);
    for (const ref of await foreignAppRefs(api)) expectError(await s.call('POST', url(ref), event), 404, NOT_FOUND);
    expect(await listed()).toEqual([]);
  });
});
