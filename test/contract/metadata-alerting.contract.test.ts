import { v7 as uuidv7 } from 'uuid';
import { describe, expect, it } from 'vitest';
import type { AppRecord, MetadataStore, NewDelivery, NewNotificationRule } from '../../src/ports/metadata.js';
import { clockPast, digest, METADATA_BACKENDS, migratedStore, newAccountWithApp } from '../helpers/metadata-backends.js';

/**
 * The metadata port's contract for what alerting stores: destinations, notification rules and
 * deliveries, on every backend. The store, accounts, apps, secrets and schemas:
 * metadata.contract.test.ts.
 */
const UNKNOWN_ID = '018f0000-0000-7000-8000-000000000000';

describe.each(METADATA_BACKENDS)('metadata store on $name: alerting', (backend) => {
  const store = migratedStore(backend);

  const slack = (app: AppRecord, label = 'Ops') =>
    store().destinations.create({ appId: app.id, type: 'slack', label, url: 'https://hooks.example/services/secret', email: null, signingSecret: null });
  const rule = (app: AppRecord, overrides: Partial<NewNotificationRule> = {}) =>
    store().rules.create({ appId: app.id, name: 'Big', eventName: 'order.created', enabled: true, match: 'all', conditions: [], actions: [], cooldownSeconds: 0, trigger: { type: 'every' }, ...overrides });
  const actionOn = (destinationId: string, enabled = true) => ({ id: uuidv7(), destinationId, channel: 'slack' as const, enabled });

  describe('destinations', () => {
    it('creates, finds, lists, updates and deletes the destinations of an app', async () => {
      const { account, app } = await newAccountWithApp(store());
      const other = await store().apps.create({ accountId: account.id, name: 'Other', slug: 'other', apiKeyDigest: digest(), apiKeyPrefix: 'p' });
      const first = await slack(app);
      const hook = await store().destinations.create({ appId: app.id, type: 'webhook', label: 'Hook', url: 'https://example.com/in', email: null, signingSecret: 'whsec_x' });
      expect(first).toMatchObject({ appId: app.id, type: 'slack', label: 'Ops', url: 'https://hooks.example/services/secret', email: null, signingSecret: null, verified: false, verifiedAt: null });
      expect(await store().destinations.findById(app.id, first.id)).toEqual(first);
      expect(await store().destinations.findById(other.id, first.id)).toBeNull();
      expect((await store().destinations.findByIds(app.id, [first.id, hook.id, UNKNOWN_ID])).map((d) => d.id).sort()).toEqual([first.id, hook.id].sort());
      expect(await store().destinations.findByIds(other.id, [first.id])).toEqual([]);
      expect(await store().destinations.findByIds(app.id, [])).toEqual([]);
      expect((await store().destinations.list(app.id, { limit: 10, offset: 0 })).map((d) => d.id)).toEqual([first.id, hook.id]);
      expect((await store().destinations.list(app.id, { limit: 1, offset: 1 })).map((d) => d.id)).toEqual([hook.id]);
      expect((await store().destinations.listAll(app.id)).map((d) => d.id).sort()).toEqual([first.id, hook.id].sort());

      await clockPast(first.updatedAt);
      const updated = await store().destinations.update(first.id, { label: 'Renamed', url: undefined, verified: true, verifiedAt: first.createdAt });
      expect(updated).toEqual({ ...first, label: 'Renamed', verified: true, verifiedAt: first.createdAt, updatedAt: updated!.updatedAt });
      expect(updated!.updatedAt.getTime()).toBeGreaterThan(first.updatedAt.getTime());
      expect(await store().destinations.update(UNKNOWN_ID, { label: 'x' })).toBeNull();

      expect(await store().destinations.delete(other.id, first.id)).toBe(false);
      expect(await store().destinations.delete(app.id, first.id)).toBe(true);
      expect(await store().destinations.findById(app.id, first.id)).toBeNull();
      await store().apps.delete(app.id);
      expect(await store().destinations.findById(app.id, hook.id)).toBeNull();
    });

    it('marks a destination verified only while it still has the url and email that were tested', async () => {
      const { app } = await newAccountWithApp(store());
      const destination = await slack(app);
      const at = new Date(destination.createdAt.getTime() + 1000);
      expect(await store().destinations.markVerified(destination.id, { url: 'https://hooks.example/services/moved', email: null }, at)).toBeNull();
      expect(await store().destinations.markVerified(destination.id, destination, at)).toEqual({ ...destination, verified: true, verifiedAt: at, updatedAt: at });
      expect(await store().destinations.markVerified(UNKNOWN_ID, destination, at)).toBeNull();
    });

    it('takes row locks inside a transaction, and refuses them outside one', async () => {
      const { app } = await newAccountWithApp(store());
      const destination = await slack(app);
      const found = await store().transaction(async (tx) => ({
        update: await tx.destinations.findById(app.id, destination.id, 'update'),
        share: await tx.destinations.findByIds(app.id, [destination.id], 'share'),
      }));
      expect(found).toEqual({ update: destination, share: [destination] });
      await expect(store().destinations.findById(app.id, destination.id, 'update')).rejects.toThrow();
    });
  });

  describe('notification rules', () => {
    it('creates, finds, lists, updates and deletes the rules of an app', async () => {
      const { account, app } = await newAccountWithApp(store());
      const other = await store().apps.create({ accountId: account.id, name: 'Other', slug: 'other', apiKeyDigest: digest(), apiKeyPrefix: 'p' });
      const destination = await slack(app);
      const conditions = [{ id: 'c1', field: 'data.amount', operator: 'greater_than' as const, value: 100 }, { id: 'c2', field: 'customerId', operator: 'exists' as const }];
      const big = await rule(app, { conditions, actions: [actionOn(destination.id)], cooldownSeconds: 30, match: 'any' });
      const off = await rule(app, { name: 'Off', enabled: false, actions: [actionOn(destination.id, false)] });
      const plain = await rule(app, { name: 'Plain' });
      expect(big).toMatchObject({ appId: app.id, name: 'Big', eventName: 'order.created', enabled: true, match: 'any', conditions, cooldownSeconds: 30 });
      expect(await store().rules.findById(app.id, big.id)).toEqual(big);
      expect(await store().rules.findById(other.id, big.id)).toBeNull();
      expect((await store().rules.list(app.id, { limit: 10, offset: 0 })).map((r) => r.id)).toEqual([big.id, off.id, plain.id]);
      expect((await store().rules.list(app.id, { limit: 1, offset: 2 })).map((r) => r.id)).toEqual([plain.id]);
      expect((await store().rules.listEnabled(app.id)).map((r) => r.id)).toEqual([big.id, plain.id]);
      expect((await store().rules.listUsingDestination(app.id, destination.id)).map((r) => r.id)).toEqual([big.id, off.id]);
      expect(await store().rules.listUsingDestination(other.id, destination.id)).toEqual([]);

      await clockPast(plain.updatedAt);
      const updated = await store().rules.update(plain.id, { enabled: false, actions: [actionOn(destination.id)], name: undefined });
      expect(updated).toEqual({ ...plain, enabled: false, actions: updated!.actions, updatedAt: updated!.updatedAt });
      expect(updated!.updatedAt.getTime()).toBeGreaterThan(plain.updatedAt.getTime());
      expect(await store().rules.findById(app.id, plain.id)).toEqual(updated);
      expect(await store().rules.update(UNKNOWN_ID, { name: 'x' })).toBeNull();

      expect(await store().rules.delete(other.id, big.id)).toBe(false);
      expect(await store().rules.delete(app.id, big.id)).toBe(true);
      expect(await store().rules.findById(app.id, big.id)).toBeNull();
      await store().apps.delete(app.id);
      expect(await store().rules.findById(app.id, off.id)).toBeNull();
    });

    it("writes a rule in a transaction that read its destinations without writing them back", async () => {
      const { app } = await newAccountWithApp(store());
      const destination = await slack(app);
      await clockPast(destination.updatedAt);
      const created = await store().transaction(async (tx) => {
        const [shared] = await tx.destinations.findByIds(app.id, [destination.id], 'share');
        return tx.rules.create({ appId: app.id, name: 'R', eventName: 'e', enabled: true, match: 'all', conditions: [], actions: [actionOn(shared!.id)], cooldownSeconds: 0, trigger: { type: 'every' } });
      });
      expect(await store().rules.findById(app.id, created.id)).toEqual(created);
      expect(await store().destinations.findById(app.id, destination.id)).toEqual(destination);
    });
  });

  describe('deliveries', () => {
    const job = (appId: string, eventId = uuidv7()): NewDelivery => ({ appId, ruleId: uuidv7(), actionId: uuidv7(), destinationId: uuidv7(), eventId, payload: '{"alert":true}' });
    const at = (offsetMs: number) => new Date(Date.now() + offsetMs);

    it('creates each delivery once, however often and concurrently it is asked for', async () => {
      const { app } = await newAccountWithApp(store());
      const [a, b, c] = [job(app.id), job(app.id), job(app.id)];
      const first = await store().deliveries.createMany([a, b], at(60_000));
      expect(first).toHaveLength(2);
      expect(await store().deliveries.createMany([a, b], at(60_000))).toEqual([]);
      expect(await store().deliveries.createMany([], at(0))).toEqual([]);
      const racing = await Promise.all(Array.from({ length: 4 }, () => store().deliveries.createMany([b, c], at(60_000))));
      expect(racing.flat()).toHaveLength(1);
      const again = await store().deliveries.createIfAbsent(a, at(0));
      expect(again).toEqual({ created: false, delivery: await store().deliveries.get(first[0]!) });
      const fresh = await store().deliveries.createIfAbsent({ ...a, actionId: uuidv7() }, at(60_000));
      expect(fresh.created).toBe(true);
      expect(fresh.delivery).toMatchObject({ appId: app.id, ruleId: a.ruleId, eventId: a.eventId, status: 'pending', attempts: 0, lastError: null, nextAttemptAt: expect.any(Date) });
      expect(await store().deliveries.get(UNKNOWN_ID)).toBeNull();
    });

    it('claims an attempt for exactly one of several workers, and records its outcome while the claim holds', async () => {
      const { app } = await newAccountWithApp(store());
      const row = job(app.id);
      const [id] = await store().deliveries.createMany([row], at(-1));
      expect((await store().deliveries.due(at(0), 1000)).find((d) => d.id === id)).toEqual({ id, attempts: 0 });
      const claims = await Promise.all(Array.from({ length: 4 }, () => store().deliveries.claim([{ id: id!, attemptsMade: 0 }], at(0), at(60_000))));
      const won = claims.flat();
      expect(won).toEqual([{ id, appId: app.id, ruleId: row.ruleId, actionId: row.actionId, destinationId: row.destinationId, eventId: row.eventId, attempts: 1, payload: row.payload }]);
      expect((await store().deliveries.due(at(0), 1000)).map((d) => d.id)).not.toContain(id);
      expect(await store().deliveries.claim([], at(0), at(60_000))).toEqual([]);
      const outcome = { status: 'failed' as const, lastError: 'the receiver answered 404', nextAttemptAt: null };
      expect(await store().deliveries.finish([{ id: id!, attempts: 7, outcome }])).toEqual(new Set());
      expect(await store().deliveries.finish([{ id: id!, attempts: 1, outcome }])).toEqual(new Set([id]));
      expect(await store().deliveries.get(id!)).toMatchObject({ status: 'failed', attempts: 1, lastError: 'the receiver answered 404', nextAttemptAt: null });
      expect(await store().deliveries.finish([])).toEqual(new Set());
    });

    /** The delivery's attempts as the API reads them. */
    const attemptsOf = async (appId: string, id: string) => (await store().deliveries.findWithAttempts(appId, id))?.attempts;
    const measured = (startedAt: Date, durationMs: number, httpStatus: number | null) => ({ startedAt, durationMs, httpStatus });

    it('records every attempt: in progress from its claim, then its start, duration, outcome, HTTP status and error', async () => {
      const { app } = await newAccountWithApp(store());
      const [id] = await store().deliveries.createMany([job(app.id)], at(60_000));
      const claimedAt = at(0);
      expect(await store().deliveries.claim([{ id: id!, attemptsMade: 0 }], claimedAt, at(60_000))).toHaveLength(1);
      expect(await attemptsOf(app.id, id!)).toEqual([{ number: 1, startedAt: claimedAt, durationMs: null, outcome: 'in_progress', httpStatus: null, error: null }]);

      const firstStart = at(5);
      const retry = { status: 'pending' as const, lastError: 'receiver answered HTTP 500: oops', nextAttemptAt: at(-1) };
      expect(await store().deliveries.finish([{ id: id!, attempts: 1, outcome: retry, measured: measured(firstStart, 12, 500) }])).toEqual(new Set([id]));
      expect(await store().deliveries.claim([{ id: id!, attemptsMade: 1 }], at(0), at(60_000))).toHaveLength(1);
      const secondStart = at(10);
      const delivered = { status: 'succeeded' as const, lastError: null, nextAttemptAt: null };
      expect(await store().deliveries.finish([{ id: id!, attempts: 2, outcome: delivered, measured: measured(secondStart, 0, 200) }])).toEqual(new Set([id]));

      const found = await store().deliveries.findWithAttempts(app.id, id!);
      expect(found?.delivery).toEqual(await store().deliveries.get(id!));
      expect(found?.delivery).toMatchObject({ status: 'succeeded', attempts: 2 });
      expect(found?.attempts).toEqual([
        { number: 1, startedAt: firstStart, durationMs: 12, outcome: 'failed', httpStatus: 500, error: 'receiver answered HTTP 500: oops' },
        { number: 2, startedAt: secondStart, durationMs: 0, outcome: 'succeeded', httpStatus: 200, error: null },
      ]);
    });

    it('records an outcome given without measurements on the attempt its claim started', async () => {
      const { app } = await newAccountWithApp(store());
      const [id] = await store().deliveries.createMany([job(app.id)], at(60_000));
      const claimedAt = at(0);
      await store().deliveries.claim([{ id: id!, attemptsMade: 0 }], claimedAt, at(60_000));
      const gaveUp = { status: 'failed' as const, lastError: 'the destination no longer exists', nextAttemptAt: null };
      expect(await store().deliveries.finish([{ id: id!, attempts: 1, outcome: gaveUp }])).toEqual(new Set([id]));
      expect(await attemptsOf(app.id, id!)).toEqual([{ number: 1, startedAt: claimedAt, durationMs: null, outcome: 'failed', httpStatus: null, error: 'the destination no longer exists' }]);
    });

    it('marks an attempt abandoned when its lease ran out and the next attempt took over; its late outcome is not recorded', async () => {
      const { app } = await newAccountWithApp(store());
      const [id] = await store().deliveries.createMany([job(app.id)], at(60_000));
      const firstClaim = at(-2_000);
      // A lease that has already run out: the worker holding it is taken to be dead.
      expect(await store().deliveries.claim([{ id: id!, attemptsMade: 0 }], firstClaim, at(-1))).toHaveLength(1);
      expect((await store().deliveries.due(at(0), 1000)).find((d) => d.id === id)).toEqual({ id, attempts: 1 });
      expect(await store().deliveries.claim([{ id: id!, attemptsMade: 1 }], at(0), at(60_000))).toHaveLength(1);
      const [abandoned, current] = (await attemptsOf(app.id, id!))!;
      expect(abandoned).toEqual({ number: 1, startedAt: firstClaim, durationMs: null, outcome: 'abandoned', httpStatus: null, error: expect.stringMatching(/lease ran out/) });
      expect(current).toMatchObject({ number: 2, outcome: 'in_progress' });

      // The first worker was only slow: its outcome comes too late to count, even when it is recorded
      // in the same batch as the attempt that took over.
      const delivered = { status: 'succeeded' as const, lastError: null, nextAttemptAt: null };
      expect(await store().deliveries.finish([{ id: id!, attempts: 1, outcome: delivered, measured: measured(firstClaim, 70_000, 200) }])).toEqual(new Set());
      const late = { id: id!, attempts: 1, outcome: delivered, measured: measured(firstClaim, 70_000, 200) };
      expect(await store().deliveries.finish([late, { id: id!, attempts: 2, outcome: delivered, measured: measured(at(0), 3, 204) }])).toEqual(new Set([id]));
      expect((await attemptsOf(app.id, id!))!.map((a) => [a.number, a.outcome, a.httpStatus])).toEqual([
        [1, 'abandoned', null],
        [2, 'succeeded', 204],
      ]);
    });

    it('retries a failed delivery once, due at once on a fresh schedule; its attempts stay and numbering continues', async () => {
      const { account, app } = await newAccountWithApp(store());
      const other = await store().apps.create({ accountId: account.id, name: 'Other', slug: 'other', apiKeyDigest: digest(), apiKeyPrefix: 'p' });
      const [id] = await store().deliveries.createMany([job(app.id)], at(60_000));
      expect(await store().deliveries.retry(app.id, id!, at(0))).toEqual({ outcome: 'not_failed', delivery: await store().deliveries.get(id!) });
      expect(await store().deliveries.retry(app.id, UNKNOWN_ID, at(0))).toEqual({ outcome: 'not_found' });
      expect(await store().deliveries.retry(other.id, id!, at(0))).toEqual({ outcome: 'not_found' });
      expect(await store().deliveries.findWithAttempts(other.id, id!)).toBeNull();
      expect(await store().deliveries.findWithAttempts(app.id, UNKNOWN_ID)).toBeNull();

      await store().deliveries.claim([{ id: id!, attemptsMade: 0 }], at(0), at(60_000));
      const gaveUp = { status: 'failed' as const, lastError: 'receiver answered HTTP 400', nextAttemptAt: null };
      await store().deliveries.finish([{ id: id!, attempts: 1, outcome: gaveUp, measured: measured(at(0), 4, 400) }]);
      const now = at(0);
      const racing = await Promise.all(Array.from({ length: 4 }, () => store().deliveries.retry(app.id, id!, now)));
      expect(racing.map((r) => r.outcome).sort()).toEqual(['not_failed', 'not_failed', 'not_failed', 'retried']);
      const retried = racing.find((r) => r.outcome === 'retried');
      // Pending and due now; the attempt already made still counts, and stays listed.
      expect(retried).toEqual({ outcome: 'retried', delivery: await store().deliveries.get(id!) });
      expect(await store().deliveries.get(id!)).toMatchObject({ status: 'pending', attempts: 1, lastError: 'receiver answered HTTP 400', nextAttemptAt: now });
      // The schedule starts over: the workers see a delivery with no attempts made, due now.
      expect((await store().deliveries.due(at(0), 1000)).find((d) => d.id === id)).toEqual({ id, attempts: 0 });
      expect(await store().deliveries.claim([{ id: id!, attemptsMade: 1 }], at(0), at(60_000))).toEqual([]);
      const [claimed] = await store().deliveries.claim([{ id: id!, attemptsMade: 0 }], at(0), at(60_000));
      expect(claimed).toMatchObject({ id, attempts: 1 });
      const delivered = { status: 'succeeded' as const, lastError: null, nextAttemptAt: null };
      expect(await store().deliveries.finish([{ id: id!, attempts: 1, outcome: delivered, measured: measured(at(0), 2, 200) }])).toEqual(new Set([id]));
      expect((await attemptsOf(app.id, id!))!.map((a) => [a.number, a.outcome, a.httpStatus])).toEqual([
        [1, 'failed', 400],
        [2, 'succeeded', 200],
      ]);
      expect(await store().deliveries.get(id!)).toMatchObject({ status: 'succeeded', attempts: 2, lastError: null });
      expect(await store().deliveries.retry(app.id, id!, at(0))).toMatchObject({ outcome: 'not_failed', delivery: { status: 'succeeded' } });

      // The attempts go with their delivery, and that with its app.
      await store().apps.delete(app.id);
      expect(await store().deliveries.findWithAttempts(app.id, id!)).toBeNull();
    });

    it("lists an app's deliveries newest first, by rule, status and keyset position", async () => {
      const { app } = await newAccountWithApp(store());
      const ruleId = uuidv7();
      const ids = await store().deliveries.createMany(
        Array.from({ length: 4 }, (_, i) => ({ ...job(app.id), ruleId: i % 2 === 0 ? ruleId : uuidv7() })),
        at(3_600_000),
      );
      const newestFirst = [...ids].reverse();
      const list = (query: Parameters<MetadataStore['deliveries']['list']>[1]) => store().deliveries.list(app.id, query).then((rows) => rows.map((d) => d.id));
      expect(await list({ limit: 10 })).toEqual(newestFirst);
      expect(await list({ limit: 2, after: newestFirst[1] })).toEqual(newestFirst.slice(2));
      expect(await list({ limit: 10, ruleId })).toEqual([ids[2], ids[0]]);
      expect(await list({ limit: 10, status: 'succeeded' })).toEqual([]);
      expect(await list({ limit: 10, status: 'pending' })).toEqual(newestFirst);
      await store().apps.delete(app.id);
      expect(await list({ limit: 10 })).toEqual([]);
    });
  });
});
