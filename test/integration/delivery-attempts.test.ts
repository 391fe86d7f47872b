import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { INVALID_AUTH, NOT_FOUND, expectError, readOnlySecretOf } from '../helpers/api-assertions.js';
import { MODES, startApi, type ApiHarness } from '../helpers/api-harness.js';
import { appSession, foreignAppRefs, type AppSession } from '../helpers/app-session.js';
import { sampleAlert } from '../helpers/alerts.js';
import { openApiCheck, type OpenApiCheck } from '../helpers/openapi-check.js';
import { startHttpReceiver, type Reply } from '../helpers/receivers.js';
import { waitFor } from '../helpers/service-process.js';

const ONE = '/v1/apps/{appId}/deliveries/{deliveryId}';
const RETRY = '/v1/apps/{appId}/deliveries/{deliveryId}/retry';

/** Short enough for a test: the second attempt 0–100 ms after the first, the third 100–200 ms later. */
const RETRIES = '0,100ms,200ms';

/**
 * A delivery's attempts and the retry of a failed delivery, over HTTP, with the service's own delivery
 * worker sending to real receivers on loopback. Each delivery is written through the repository the
 * rules pipeline uses, due at once, so the worker's poller takes it from there; how rules make
 * deliveries is alerts.test.ts's subject.
 */
describe.each(MODES)('delivery attempts (%s)', (mode) => {
  let api: ApiHarness;
  let openapi: OpenApiCheck;

  beforeAll(async () => {
    api = await startApi(mode, { OUTBOUND_ALLOW_PRIVATE: 'true', DELIVERY_RETRY_SCHEDULE: RETRIES });
    openapi = await openApiCheck(api);
  });
  afterAll(async () => {
    await api?.stop();
  });

  /** A fresh account and app with a webhook destination at a receiver that answers as `reply` says. */
  async function setup(reply: () => Reply) {
    const s = await appSession(api, openapi, 'Attempts');
    const receiver = await startHttpReceiver(reply);
    onTestFinished(() => receiver.close());
    const destination = await s.ok('POST', `/v1/apps/${s.app.id}/destinations`, '/v1/apps/{appId}/destinations', 201, {
      type: 'webhook',
      label: 'receiver',
      url: `${receiver.baseUrl}/hook`,
    });
    return { s, receiver, destinationId: destination.id as string };
  }

  /** A delivery to the destination, due now: the worker's poller attempts it within half a second. */
  async function deliver(s: AppSession, destinationId: string): Promise<string> {
    const ruleId = uuidv7();
    const eventId = uuidv7();
    const payload = JSON.stringify(sampleAlert({ appId: s.app.id, appName: s.app.name, ruleId, eventId }));
    const [id] = await api.container.metadata.deliveries.createMany([{ appId: s.app.id, ruleId, actionId: uuidv7(), destinationId, eventId, payload }], new Date());
    return id!;
  }

  const one = (s: AppSession, id: string) => s.ok('GET', `/v1/apps/${s.app.id}/deliveries/${id}`, ONE, 200);
  const settled = async (s: AppSession, id: string, status: 'succeeded' | 'failed', what: string) => {
    await waitFor(async () => (await one(s, id)).status === status, 10_000, what);
    return one(s, id);
  };

  it('records each attempt: a 500, then a 200 on the retry, with start, duration and status', async () => {
    let answered = 0;
    const { s, receiver, destinationId } = await setup(() => (++answered === 1 ? { status: 500, body: 'try later' } : { status: 200, body: 'ok' }));
    const id = await deliver(s, destinationId);
    const before = Date.now();
    const delivery = await settled(s, id, 'succeeded', 'the delivery to succeed');

    expect(receiver.requests).toHaveLength(2);
    expect(delivery).toMatchObject({ id, destinationId, status: 'succeeded', lastError: null });
    expect(delivery.attempts).toEqual([
      { number: 1, startedAt: expect.any(String), durationMs: expect.any(Number), outcome: 'failed', httpStatus: 500, error: 'receiver answered HTTP 500: try later' },
      { number: 2, startedAt: expect.any(String), durationMs: expect.any(Number), outcome: 'succeeded', httpStatus: 200 },
    ]);
    const [first, second] = delivery.attempts;
    for (const attempt of delivery.attempts) expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
    expect(Date.parse(first.startedAt)).toBeGreaterThan(before - 60_000);
    expect(Date.parse(second.startedAt)).toBeGreaterThanOrEqual(Date.parse(first.startedAt));

    // The list shows the same delivery, its attempts counted rather than listed.
    const list = await s.ok('GET', `/v1/apps/${s.app.id}/deliveries`, '/v1/apps/{appId}/deliveries', 200);
    const { attempts: _listed, ...common } = delivery;
    expect(list.items).toEqual([{ ...common, attempts: 2 }]);
  });

  it('retries a delivery that failed for good: 202, pending, then attempted again, its attempts numbered on', async () => {
    let status = 400;
    const { s, receiver, destinationId } = await setup(() => ({ status, body: status === 400 ? 'bad payload' : 'ok' }));
    const id = await deliver(s, destinationId);
    const failed = await settled(s, id, 'failed', 'the delivery to fail');
    expect(failed).toMatchObject({ status: 'failed', lastError: 'receiver answered HTTP 400: bad payload' });
    expect(failed.attempts).toEqual([expect.objectContaining({ number: 1, outcome: 'failed', httpStatus: 400 })]);

    // The receiver is fixed; the retry is accepted at once and sent within a second or two.
    status = 200;
    const asked = Date.now();
    const accepted = await s.ok('POST', `/v1/apps/${s.app.id}/deliveries/${id}/retry`, RETRY, 202);
    // (The poller may already have claimed the next attempt: only the first is certain to be there.)
    expect(accepted).toMatchObject({ id, status: 'pending' });
    expect(accepted.attempts[0]).toMatchObject({ number: 1, outcome: 'failed', httpStatus: 400 });
    const delivered = await settled(s, id, 'succeeded', 'the retried delivery to succeed');
    expect(Date.now() - asked).toBeLessThan(5_000);
    expect(receiver.requests).toHaveLength(2);
    expect(delivered).toMatchObject({ status: 'succeeded', lastError: null });
    expect(delivered.attempts.map((a: any) => [a.number, a.outcome, a.httpStatus])).toEqual([
      [1, 'failed', 400],
      [2, 'succeeded', 200],
    ]);

    // Only a failed delivery can be retried.
    const again = await s.call('POST', `/v1/apps/${s.app.id}/deliveries/${id}/retry`);
    expectError(again, 409, 'Only a failed delivery can be retried; this one is succeeded');
    openapi.assertResponse('POST', RETRY, 409, again.body);
  });

  it("409 for a pending delivery; 404 for an unknown id, a malformed one and another app's delivery", async () => {
    const { s, destinationId } = await setup(() => ({ status: 200 }));
    const [pending] = await api.container.metadata.deliveries.createMany(
      [{ appId: s.app.id, ruleId: uuidv7(), actionId: uuidv7(), destinationId, eventId: uuidv7(), payload: '{}' }],
      // Due in an hour, so the worker leaves it pending while the test runs.
      new Date(Date.now() + 3_600_000),
    );
    expect(await one(s, pending!)).toMatchObject({ status: 'pending', attempts: [] });
    expectError(await s.call('POST', `/v1/apps/${s.app.id}/deliveries/${pending}/retry`), 409, /this one is pending/);

    const unknown = uuidv7();
    for (const path of [`/deliveries/${unknown}`, '/deliveries/not-a-uuid']) {
      expectError(await s.call('GET', `/v1/apps/${s.app.id}${path}`), 404, NOT_FOUND);
      expectError(await s.call('POST', `/v1/apps/${s.app.id}${path}/retry`), 404, NOT_FOUND);
    }
    // Another app of the same account, and another account's app, do not see it.
    const sibling = (await s.call('POST', '/v1/apps', { name: 'Sibling' })).body.app;
    for (const appRef of [sibling.id, ...(await foreignAppRefs(api))]) {
      expectError(await s.call('GET', `/v1/apps/${appRef}/deliveries/${pending}`), 404, NOT_FOUND);
      expectError(await s.call('POST', `/v1/apps/${appRef}/deliveries/${pending}/retry`), 404, NOT_FOUND);
    }
    // By the app's slug, as every app-scoped path.
    expect(await s.ok('GET', `/v1/apps/${s.app.slug}/deliveries/${pending}`, ONE, 200)).toMatchObject({ id: pending });
  });

  it('needs a secret; reading needs the read scope, retrying the write scope', async () => {
    const { s, destinationId } = await setup(() => ({ status: 200 }));
    const id = await deliver(s, destinationId);
    await settled(s, id, 'succeeded', 'the delivery to succeed');
    expectError(await s.call('GET', `/v1/apps/${s.app.id}/deliveries/${id}`, undefined, {}), 401, INVALID_AUTH);
    expectError(await s.call('POST', `/v1/apps/${s.app.id}/deliveries/${id}/retry`, undefined, {}), 401, INVALID_AUTH);
    const reader = await readOnlySecretOf(api, s.account);
    expect((await s.call('GET', `/v1/apps/${s.app.id}/deliveries/${id}`, undefined, reader)).body.attempts).toHaveLength(1);
    expectError(await s.call('POST', `/v1/apps/${s.app.id}/deliveries/${id}/retry`, undefined, reader), 403);
  });
});
