import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryRepository, type NewDelivery } from '../../src/adapters/metadata/repositories/delivery-repository.js';
import { createTestApp } from '../helpers/api-assertions.js';
import { MODES, startApi, type ApiHarness } from '../helpers/api-harness.js';

/**
 * The deliveries table as the delivery queue and workers use it (DeliveryStore): one delivery per rule
 * action and event however often it is created, and exactly one owner per attempt, decided by the
 * database on both backends.
 */
describe.each(MODES)('delivery store (%s)', (mode) => {
  let api: ApiHarness;
  let store: DeliveryRepository;
  let appId: string;

  beforeAll(async () => {
    api = await startApi(mode);
    store = new DeliveryRepository(api.container.metadata);
    appId = (await createTestApp(api, await api.newAccount(), { name: 'Store' })).app.id;
  });
  afterAll(async () => {
    await api?.stop();
  });

  const job = (): NewDelivery => ({ appId, ruleId: uuidv7(), actionId: uuidv7(), destinationId: uuidv7(), eventId: uuidv7(), payload: '{"alert":true}' });
  const at = (offsetMs: number) => new Date(Date.now() + offsetMs);
  const dueIds = async (now: Date) => (await store.due(now, 1000)).map((d) => d.id);

  it('creates each delivery once: repeated and concurrent batches create only what is missing', async () => {
    const [a, b, c] = [job(), job(), job()];
    const first = await store.createMany([a, b], at(0));
    expect(first).toHaveLength(2);
    expect(await store.createMany([a, b], at(0))).toEqual([]);
    const racing = await Promise.all(Array.from({ length: 5 }, () => store.createMany([b, c], at(0))));
    expect(racing.flat()).toHaveLength(1);
    const created = await store.createIfAbsent(a, at(0));
    expect(created).toMatchObject({ created: false, delivery: { id: first[0], status: 'pending', attempts: 0, lastError: null } });
    // Another action of the same rule for the same event is another delivery.
    expect((await store.createIfAbsent({ ...a, actionId: uuidv7() }, at(0))).created).toBe(true);
  });

  it('lets exactly one of many workers claim an attempt, and hands it the payload', async () => {
    const [id] = await store.createMany([job()], at(30_000));
    // A first attempt is claimable at once (the queued job); the due time is only the fallback.
    const claims = await Promise.all(Array.from({ length: 8 }, () => store.claim(id!, 0, at(0), at(60_000))));
    const won = claims.filter((c) => c !== null);
    expect(won).toHaveLength(1);
    expect(won[0]).toMatchObject({ id, appId, attempts: 1, payload: '{"alert":true}' });
    // A redelivered job for the same first attempt finds nothing to claim.
    expect(await store.claim(id!, 0, at(0), at(60_000))).toBeNull();
  });

  it('polls due retries; a lease hides a delivery until it runs out; a lost claim cannot record', async () => {
    const [id] = await store.createMany([job()], at(-1));
    expect(await dueIds(at(0))).toContain(id);
    const claimed = (await store.claim(id!, 0, at(0), at(60_000)))!;
    expect(await dueIds(at(0))).not.toContain(id);
    expect(await store.finish(id!, claimed.attempts, { status: 'pending', lastError: 'timeout', nextAttemptAt: at(10_000) })).toBe(true);
    expect(await dueIds(at(0))).not.toContain(id);
    // A retry is claimed only once due, and only with the attempt count the poller saw.
    expect(await store.claim(id!, 1, at(0), at(60_000))).toBeNull();
    expect(await dueIds(at(11_000))).toContain(id);
    const retry = (await store.claim(id!, 1, at(11_000), at(71_000)))!;
    expect(retry.attempts).toBe(2);
    // The lease of attempt 2 runs out (its worker died): another worker takes the delivery over,
    // and the first one's outcome is refused.
    const takeover = (await store.claim(id!, 2, at(72_000), at(132_000)))!;
    expect(takeover.attempts).toBe(3);
    expect(await store.finish(id!, 2, { status: 'succeeded', lastError: null, nextAttemptAt: null })).toBe(false);
    expect(await store.finish(id!, 3, { status: 'succeeded', lastError: null, nextAttemptAt: null })).toBe(true);
    expect(await store.get(id!)).toMatchObject({ status: 'succeeded', attempts: 3, lastError: null, nextAttemptAt: null });
    // Finished deliveries are never due nor claimable again.
    expect(await dueIds(at(3_600_000))).not.toContain(id);
    expect(await store.claim(id!, 3, at(3_600_000), at(3_660_000))).toBeNull();
  });

  it('records a final failure', async () => {
    const [id] = await store.createMany([job()], at(0));
    await store.claim(id!, 0, at(0), at(60_000));
    expect(await store.finish(id!, 1, { status: 'failed', lastError: 'the receiver answered 404', nextAttemptAt: null })).toBe(true);
    expect(await store.get(id!)).toMatchObject({ status: 'failed', attempts: 1, lastError: 'the receiver answered 404', nextAttemptAt: null });
  });
});
