import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveryRepository } from '../../src/ports/metadata.js';
import { encodeCursor } from '../../src/domain/cursor.js';
import { CursorSigningKey } from '../../src/services/cursor-signing-key.js';
import { INVALID_AUTH, NOT_FOUND, expectError, expectValidationError, readOnlySecretOf } from '../helpers/api-assertions.js';
import { MODES, startApi, type ApiHarness } from '../helpers/api-harness.js';
import { appSession, foreignAppRefs, type AppSession } from '../helpers/app-session.js';
import { openApiCheck, type OpenApiCheck } from '../helpers/openapi-check.js';

const LIST = '/v1/apps/{appId}/deliveries';

/**
 * The deliveries list over rows written through the repository the worker uses (its own guarantees:
 * delivery-store.test.ts).
 */
describe.each(MODES)('deliveries (%s)', (mode) => {
  let api: ApiHarness;
  let openapi: OpenApiCheck;
  let repository: DeliveryRepository;
  let s: AppSession;
  const ruleA = uuidv7();
  const ruleB = uuidv7();

  beforeAll(async () => {
    api = await startApi(mode);
    openapi = await openApiCheck(api);
    repository = api.container.metadata.deliveries;
  });
  afterAll(async () => {
    await api?.stop();
  });

  const base = (appRef = s.app.id) => `/v1/apps/${appRef}/deliveries`;
  const list = (query = '') => s.ok('GET', `${base()}${query}`, LIST, 200);

  /**
   * A delivery of `ruleId` for a new event. Its first attempt is due in an hour: the service's own
   * delivery worker runs in this process, and would otherwise attempt it (and fail it, the destination
   * being made up) while the test reads the list.
   */
  const later = () => new Date(Date.now() + 3_600_000);
  const job = (ruleId: string, appId = s.app.id) => ({ appId, ruleId, actionId: uuidv7(), destinationId: uuidv7(), eventId: uuidv7(), payload: '{}' });

  /** Seven deliveries, oldest first: rule A gets 0, 2, 4, 6; rule B the others. Every third one failed. */
  async function seed(): Promise<string[]> {
    s = await appSession(api, openapi, 'Deliveries');
    const ids = await repository.createMany(Array.from({ length: 7 }, (_, i) => job(i % 2 === 0 ? ruleA : ruleB)), later());
    expect(ids).toHaveLength(7);
    for (const id of ids.filter((_, i) => i % 3 === 0)) {
      expect(await repository.claim([{ id, attemptsMade: 0 }], new Date(), new Date(Date.now() + 60_000))).toHaveLength(1);
      expect(await repository.finish([{ id, attempts: 1, outcome: { status: 'failed', lastError: 'the receiver answered 500', nextAttemptAt: null } }])).toEqual(new Set([id]));
    }
    return ids;
  }

  /** Follows nextCursor to the end; every page is checked against the OpenAPI document. */
  async function allPages(query: string): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: any = await list(`?${query}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
      ids.push(...page.items.map((d: any) => d.id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== null);
    return { ids, pages };
  }

  it('lists newest first with every field; an app without deliveries has an empty page', async () => {
    const ids = await seed();
    const page = await list();
    expect(page.nextCursor).toBeNull();
    expect(page.items.map((d: any) => d.id)).toEqual([...ids].reverse());
    expect(page.items.at(-1)).toEqual({
      id: ids[0],
      ruleId: ruleA,
      actionId: expect.any(String),
      destinationId: expect.any(String),
      eventId: expect.any(String),
      status: 'failed',
      attempts: 1,
      lastError: 'the receiver answered 500',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    expect(page.items[1]).toMatchObject({ id: ids[5], status: 'pending', attempts: 0, lastError: null });
    const other = (await s.call('POST', '/v1/apps', { name: 'Quiet' })).body.app;
    expect(await s.ok('GET', base(other.id), LIST, 200)).toEqual({ items: [], nextCursor: null });
  });

  it('pages with limit and cursor, without repeats or gaps, also while new deliveries arrive', async () => {
    const ids = await seed();
    const first = await list('?limit=3');
    expect(first.items.map((d: any) => d.id)).toEqual([ids[6], ids[5], ids[4]]);
    // A delivery created after the first page is newer: it does not shift the pages that follow.
    await repository.createMany([job(ruleA)], later());
    const second = await list(`?limit=3&cursor=${encodeURIComponent(first.nextCursor)}`);
    expect(second.items.map((d: any) => d.id)).toEqual([ids[3], ids[2], ids[1]]);
    const third = await list(`?limit=3&cursor=${encodeURIComponent(second.nextCursor)}`);
    expect(third).toEqual({ items: [expect.objectContaining({ id: ids[0] })], nextCursor: null });
    expect((await list('?limit=100')).items).toHaveLength(8);
    expect((await list()).items).toHaveLength(8);
  });

  it('filters by rule and status, and pages through a filtered list', async () => {
    const ids = await seed();
    expect((await allPages(`ruleId=${ruleA}&limit=1`)).ids).toEqual([ids[6], ids[4], ids[2], ids[0]]);
    expect((await allPages(`ruleId=${ruleB.toUpperCase()}&limit=2`)).ids).toEqual([ids[5], ids[3], ids[1]]);
    expect((await allPages('status=failed&limit=2')).ids).toEqual([ids[6], ids[3], ids[0]]);
    expect((await allPages(`status=pending&ruleId=${ruleA}`)).ids).toEqual([ids[4], ids[2]]);
    expect((await list(`?ruleId=${uuidv7()}`)).items).toEqual([]);
    expect((await list('?status=succeeded')).items).toEqual([]);
  });

  it('400 for bad filters and limits, and for a cursor it did not issue for this request', async () => {
    await seed();
    const { nextCursor } = await list('?limit=2');
    expectValidationError(await s.call('GET', `${base()}?limit=0`), 'limit', /1 to 100/);
    expectValidationError(await s.call('GET', `${base()}?limit=101`), 'limit', /1 to 100/);
    expectValidationError(await s.call('GET', `${base()}?limit=ten`), 'limit');
    expectValidationError(await s.call('GET', `${base()}?status=lost`), 'status', /pending, succeeded, failed/);
    expectValidationError(await s.call('GET', `${base()}?ruleId=42`), 'ruleId', /rule id/);
    expectValidationError(await s.call('GET', `${base()}?cursor=`), 'cursor');
    expectValidationError(await s.call('GET', `${base()}?order=asc`), 'query', /Unrecognized key/);
    const tampered = `${nextCursor.slice(0, -2)}${nextCursor.endsWith('AA') ? 'AB' : 'AA'}`;
    expectValidationError(await s.call('GET', `${base()}?cursor=${encodeURIComponent(tampered)}`), 'cursor', /not a cursor issued by this service/);
    // Bound to the filters and the app it was issued for.
    expectValidationError(await s.call('GET', `${base()}?status=failed&cursor=${encodeURIComponent(nextCursor)}`), 'cursor', /other filters/);
    const other = (await s.call('POST', '/v1/apps', { name: 'Other' })).body.app;
    expectValidationError(await s.call('GET', `${base(other.id)}?cursor=${encodeURIComponent(nextCursor)}`), 'cursor', /another app/);
    // What the events list of the same app issues (same key, no filters) is not a deliveries cursor.
    const key = await new CursorSigningKey(api.container.metadata.settings).get();
    const eventsCursor = encodeCursor({ timestamp: new Date(), id: uuidv7() }, { appId: s.app.id, filters: {} }, key);
    expectValidationError(await s.call('GET', `${base()}?cursor=${encodeURIComponent(eventsCursor)}`), 'cursor', /other filters/);
  });

  it("404 for another account's app; 401 without a secret; a read-only secret may list", async () => {
    await seed();
    for (const ref of await foreignAppRefs(api)) expectError(await s.call('GET', base(ref)), 404, NOT_FOUND);
    expectError(await s.call('GET', base(), undefined, {}), 401, INVALID_AUTH);
    const reader = await readOnlySecretOf(api, s.account);
    expect((await s.call('GET', base(), undefined, reader)).body.items).toHaveLength(7);
  });

  it('the deliveries go with their app', async () => {
    const [id] = await seed();
    expect(await repository.get(id!)).not.toBeNull();
    expect((await s.call('DELETE', `/v1/apps/${s.app.id}`)).status).toBe(204);
    expect(await repository.get(id!)).toBeNull();
  });
});
