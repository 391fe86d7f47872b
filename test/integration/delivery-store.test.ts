import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryOutcome, DeliveryRepository, NewDelivery } from '../../src/ports/metadata.js';
import { createTestApp } from '../helpers/api-assertions.js';
import { MODES, startApi, type ApiHarness } from '../helpers/api-harness.js';

/**
 * The deliveries table as the delivery queue and workers use it (DeliveryStore): one delivery per rule
 * action and event however often it is created, and exactly one owner per attempt, decided by the
 * database on both backends.
 */
const AHEAD_MS = 3_600_000;

describe.each(MODES)('delivery store (%s)', (mode) => {
  let api: ApiHarness;
  let store: DeliveryRepository;
  let appId: string;

  beforeAll(async () => {
    api = await startApi(mode);
    store = api.container.metadata.deliveries;
    appId = (await createTestApp(api, await api.newAccount(), { name: 'Store' })).app.id;
  });
  afterAll(async () => {
    await api?.stop();
  });

  const job = (): NewDelivery => ({ appId, ruleId: uuidv7(), actionId: uuidv7(), destinationId: uuidv7(), eventId: uuidv7(), payload: '{"alert":true}' });
  /**
   * The tests' clock, an hour ahead of the real one. The service under test runs its own delivery
   * worker on the same table, whose poller claims whatever is due by the real clock; these deliveries
   * (to destinations that do not exist) must stay this file's alone, so none is ever due before then.
   */
  const at = (offsetMs: number) => new Date(Date.now() + AHEAD_MS + offsetMs);
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

  /** One attempt, claimed on its own: the claimed delivery, or null. */
  const claimOne = async (id: string, attemptsMade: number, now: Date, leaseUntil: Date) => (await store.claim([{ id, attemptsMade }], now, leaseUntil))[0] ?? null;
  /** One outcome, recorded on its own: whether the claim still held. */
  const finishOne = async (id: string, attempts: number, outcome: DeliveryOutcome) => (await store.finish([{ id, attempts, outcome }])).has(id);
  const SUCCEEDED: DeliveryOutcome = { status: 'succeeded', lastError: null, nextAttemptAt: null };

  it('lets exactly one of many workers claim an attempt, and hands it the payload', async () => {
    const [id] = await store.createMany([job()], at(30_000));
    // A first attempt is claimable at once (the queued job); the due time is only the fallback.
    const claims = await Promise.all(Array.from({ length: 8 }, () => claimOne(id!, 0, at(0), at(60_000))));
    const won = claims.filter((c) => c !== null);
    expect(won).toHaveLength(1);
    expect(won[0]).toEqual({ id, appId, ruleId: expect.any(String), actionId: expect.any(String), destinationId: expect.any(String), eventId: expect.any(String), attempts: 1, payload: '{"alert":true}' });
    // A redelivered job for the same first attempt finds nothing to claim.
    expect(await claimOne(id!, 0, at(0), at(60_000))).toBeNull();
  });

  it('claims many attempts in one go, only those still to be made, each by exactly one of racing workers', async () => {
    const rows = Array.from({ length: 12 }, () => job());
    const ids = await store.createMany(rows, at(30_000));
    const [attempted, ...fresh] = ids as [string, ...string[]];
    expect(await claimOne(attempted, 0, at(0), at(60_000))).not.toBeNull();

    // Every delivery asked for, with a first attempt that one of them already had; a stranger id too.
    const wanted = [...ids, uuidv7()].map((id) => ({ id, attemptsMade: 0 }));
    const racing = await Promise.all(Array.from({ length: 4 }, () => store.claim(wanted, at(0), at(60_000))));
    const taken = racing.flat().map((c) => c.id);
    expect(taken.sort()).toEqual([...fresh].sort());
    for (const claimed of racing.flat()) {
      const row = rows[ids.indexOf(claimed.id)]!;
      expect(claimed).toEqual({ id: claimed.id, appId, ruleId: row.ruleId, actionId: row.actionId, destinationId: row.destinationId, eventId: row.eventId, attempts: 1, payload: row.payload });
    }
    expect(await store.claim([], at(0), at(60_000))).toEqual([]);
  });

  it('records many outcomes in one go, each only while its claim holds', async () => {
    const ids = await store.createMany(Array.from({ length: 4 }, () => job()), at(30_000));
    const claimed = await store.claim(ids.map((id) => ({ id, attemptsMade: 0 })), at(0), at(60_000));
    expect(claimed).toHaveLength(4);
    const [a, b, c, d] = ids as [string, string, string, string];
    const retryAt = at(10_000);
    const recorded = await store.finish([
      { id: a, attempts: 1, outcome: SUCCEEDED },
      { id: b, attempts: 1, outcome: SUCCEEDED },
      { id: c, attempts: 1, outcome: { status: 'pending', lastError: 'the receiver answered 503', nextAttemptAt: retryAt } },
      // A claim lost to a takeover: the attempt count moved on.
      { id: d, attempts: 7, outcome: SUCCEEDED },
    ]);
    expect([...recorded].sort()).toEqual([a, b, c].sort());
    expect(await store.get(a)).toMatchObject({ status: 'succeeded', attempts: 1, lastError: null, nextAttemptAt: null });
    expect(await store.get(b)).toMatchObject({ status: 'succeeded', attempts: 1 });
    expect(await store.get(c)).toMatchObject({ status: 'pending', attempts: 1, lastError: 'the receiver answered 503', nextAttemptAt: retryAt });
    expect(await store.get(d)).toMatchObject({ status: 'pending', attempts: 1, lastError: null });
    expect(await store.finish([])).toEqual(new Set());
  });

  it('polls due retries; a lease hides a delivery until it runs out; a lost claim cannot record', async () => {
    const [id] = await store.createMany([job()], at(-1));
    expect(await dueIds(at(0))).toContain(id);
    const claimed = (await claimOne(id!, 0, at(0), at(60_000)))!;
    expect(await dueIds(at(0))).not.toContain(id);
    expect(await finishOne(id!, claimed.attempts, { status: 'pending', lastError: 'timeout', nextAttemptAt: at(10_000) })).toBe(true);
    expect(await dueIds(at(0))).not.toContain(id);
    // A retry is claimed only once due, and only with the attempt count the poller saw.
    expect(await claimOne(id!, 1, at(0), at(60_000))).toBeNull();
    expect(await dueIds(at(11_000))).toContain(id);
    const retry = (await claimOne(id!, 1, at(11_000), at(71_000)))!;
    expect(retry.attempts).toBe(2);
    // The lease of attempt 2 runs out (its worker died): another worker takes the delivery over,
    // and the first one's outcome is refused.
    const takeover = (await claimOne(id!, 2, at(72_000), at(132_000)))!;
    expect(takeover.attempts).toBe(3);
    expect(await finishOne(id!, 2, SUCCEEDED)).toBe(false);
    expect(await finishOne(id!, 3, SUCCEEDED)).toBe(true);
    expect(await store.get(id!)).toMatchObject({ status: 'succeeded', attempts: 3, lastError: null, nextAttemptAt: null });
    // Finished deliveries are never due nor claimable again.
    expect(await dueIds(at(3_600_000))).not.toContain(id);
    expect(await claimOne(id!, 3, at(3_600_000), at(3_660_000))).toBeNull();
  });

  it('records a final failure', async () => {
    const [id] = await store.createMany([job()], at(0));
    await claimOne(id!, 0, at(0), at(60_000));
    expect(await finishOne(id!, 1, { status: 'failed', lastError: 'the receiver answered 404', nextAttemptAt: null })).toBe(true);
    expect(await store.get(id!)).toMatchObject({ status: 'failed', attempts: 1, lastError: 'the receiver answered 404', nextAttemptAt: null });
  });
});
