import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODES, startApi, type ApiHarness, type TestAccount } from '../helpers/api-harness.js';
import { waitFor } from '../helpers/service-process.js';

/** GET /v1/apps/{appId}/events in both modes: order, filters, cursor paging, and every 400 (limit, from, to, level, cursor). */
describe.each(MODES)('GET /v1/apps/{appId}/events (%s)', (mode) => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi(mode);
  });
  afterAll(async () => {
    await api.stop();
  });

  interface AppUnderTest {
    account: TestAccount;
    appId: string;
    slug: string;
    apiKey: string;
  }

  async function newApp(): Promise<AppUnderTest> {
    const account = await api.newAccount();
    const res = await api.request('POST', '/v1/apps', { headers: account.auth, body: { name: 'Reader' } });
    expect(res.status).toBe(201);
    return { account, appId: res.body.app.id, slug: res.body.app.slug, apiKey: res.body.apiKey };
  }

  async function send(app: AppUnderTest, events: unknown[]): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < events.length; i += 100) {
      const res = await api.request('POST', '/v1/ingest', { headers: { 'x-api-key': app.apiKey }, body: events.slice(i, i + 100) });
      expect(res.status).toBe(202);
      ids.push(...res.body.events.map((e: { id: string }) => e.id));
    }
    return ids;
  }

  const list = (app: AppUnderTest, query = '', auth = app.account.auth) => api.request('GET', `/v1/apps/${app.appId}/events${query}`, { headers: auth });

  async function readable(app: AppUnderTest, count: number): Promise<void> {
    await waitFor(async () => (await api.container.events.query({ appId: app.appId, limit: 1000 })).length >= count, 20_000, `${count} readable events`);
  }

  async function allPages(app: AppUnderTest, query: string, limit: number): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const sep = query ? '&' : '?';
      const res = await list(app, `${query}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      ids.push(...res.body.items.map((e: { id: string }) => e.id));
      cursor = res.body.nextCursor;
      pages += 1;
    } while (cursor && pages < 1000);
    return { ids, pages };
  }

  const at = (iso: string) => ({ timestamp: iso });

  it('lists newest first, with every documented event field, by id or slug', async () => {
    const app = await newApp();
    await send(app, [
      { event: 'a', level: 'error', customer_id: 'c1', data: { n: 1 }, metadata: { k: 'v' }, ...at('2026-01-01T00:00:01Z') },
      { event: 'b', ...at('2026-01-01T00:00:03Z') },
      { event: 'c', ...at('2026-01-01T00:00:02Z') },
    ]);
    await readable(app, 3);
    const res = await list(app);
    expect(res.status).toBe(200);
    expect(res.body.items.map((e: { event: string }) => e.event)).toEqual(['b', 'c', 'a']);
    expect(res.body.nextCursor).toBeNull();
    expect(res.body.items[2]).toEqual({
      id: expect.any(String),
      appId: app.appId,
      event: 'a',
      customer_id: 'c1',
      data: { n: 1 },
      level: 'error',
      metadata: { k: 'v' },
      timestamp: '2026-01-01T00:00:01.000Z',
      ingestedAt: expect.stringMatching(/Z$/),
    });
    expect(res.body.items[0]).not.toHaveProperty('customer_id');
    const bySlug = await api.request('GET', `/v1/apps/${app.slug}/events`, { headers: app.account.auth });
    expect(bySlug.body.items).toEqual(res.body.items);
  });

  it('breaks timestamp ties by id, descending', async () => {
    const app = await newApp();
    const ids = await send(app, Array.from({ length: 5 }, () => ({ event: 'tie', ...at('2026-02-02T00:00:00Z') })));
    await readable(app, 5);
    const res = await list(app);
    expect(res.body.items.map((e: { id: string }) => e.id)).toEqual([...ids].sort().reverse());
  });

  it('filters by level, type, customer_id, from (inclusive) and to (exclusive), alone and together', async () => {
    const app = await newApp();
    await send(app, [
      { event: 'order.created', level: 'info', customer_id: 'alice', ...at('2026-03-01T10:00:00Z') },
      { event: 'order.created', level: 'error', customer_id: 'bob', ...at('2026-03-01T11:00:00Z') },
      { event: 'order.failed', level: 'error', customer_id: 'alice', ...at('2026-03-01T12:00:00Z') },
      { event: 'user.signup', level: 'success', ...at('2026-03-01T13:00:00Z') },
    ]);
    await readable(app, 4);
    const events = async (query: string) => (await list(app, query)).body.items.map((e: { event: string; timestamp: string }) => `${e.event}@${e.timestamp.slice(11, 13)}`);
    expect(await events('?level=error')).toEqual(['order.failed@12', 'order.created@11']);
    expect(await events('?type=order.created')).toEqual(['order.created@11', 'order.created@10']);
    expect(await events('?customer_id=alice')).toEqual(['order.failed@12', 'order.created@10']);
    expect(await events('?from=2026-03-01T11:00:00Z')).toEqual(['user.signup@13', 'order.failed@12', 'order.created@11']);
    expect(await events('?to=2026-03-01T11:00:00Z')).toEqual(['order.created@10']);
    // 11:00+01:00 is 10:00Z: inclusive start, exclusive end.
    expect(await events('?from=2026-03-01T11:00:00%2B01:00&to=2026-03-01T12:00:00Z')).toEqual(['order.created@11', 'order.created@10']);
    expect(await events('?level=error&customer_id=alice&type=order.failed')).toEqual(['order.failed@12']);
    expect(await events('?level=warning')).toEqual([]);
  });

  it('pages with a cursor through every event exactly once', async () => {
    const app = await newApp();
    const ids = await send(app, Array.from({ length: 60 }, (_, n) => ({ event: 'p', data: { n }, ...at(new Date(Date.UTC(2026, 3, 1, 0, 0, n % 20)).toISOString()) })));
    await readable(app, 60);
    const { ids: seen, pages } = await allPages(app, '', 25);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(60);
    expect(new Set(seen)).toEqual(new Set(ids));
    const first = await list(app);
    expect(first.body.items).toHaveLength(25);
  });

  it('pages with no duplicate and no gap while new events keep arriving', async () => {
    const app = await newApp();
    const initial = await send(app, Array.from({ length: 150 }, (_, n) => ({ event: 'old', data: { n }, ...at(new Date(Date.UTC(2026, 4, 1, 0, 0, n % 30)).toISOString()) })));
    await readable(app, 150);
    let writing = true;
    const writer = (async () => {
      while (writing) await send(app, Array.from({ length: 10 }, () => ({ event: 'new' })));
    })();
    try {
      const { ids } = await allPages(app, '', 7);
      expect(new Set(ids).size).toBe(ids.length);
      const seen = new Set(ids);
      expect(initial.filter((id) => !seen.has(id))).toEqual([]);
    } finally {
      writing = false;
      await writer;
    }
  });

  it('keeps the filters bound to the cursor', async () => {
    const app = await newApp();
    await send(app, Array.from({ length: 6 }, (_, n) => ({ event: n % 2 ? 'odd' : 'even', ...at(new Date(Date.UTC(2026, 5, 1, 0, 0, n)).toISOString()) })));
    await readable(app, 6);
    const { ids } = await allPages(app, '?type=even', 2);
    expect(ids).toHaveLength(3);
    const page = await list(app, '?type=even&limit=1');
    const reused = await list(app, `?type=odd&limit=1&cursor=${encodeURIComponent(page.body.nextCursor)}`);
    expect(reused.status).toBe(400);
    expect(reused.body.message).toContain('cursor');
  });

  it('refuses a forged cursor, another app\'s cursor and garbage with 400', async () => {
    const app = await newApp();
    const other = await newApp();
    await send(app, [{ event: 'a' }, { event: 'b' }]);
    await send(other, [{ event: 'a' }, { event: 'b' }]);
    await readable(app, 2);
    await readable(other, 2);
    const page = await list(app, '?limit=1');
    const cursor: string = page.body.nextCursor;
    const [payload, signature] = cursor.split('.') as [string, string];
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = `${Buffer.from(JSON.stringify({ ...decoded, t: decoded.t + 1 })).toString('base64url')}.${signature}`;
    const otherPage = await list(other, '?limit=1');
    for (const bad of [forged, otherPage.body.nextCursor, 'garbage', `${cursor}x`, "' OR 1=1 --"]) {
      const res = await list(app, `?limit=1&cursor=${encodeURIComponent(bad)}`);
      expect(res.status, bad).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
    }
  });

  it.each([
    ['?limit=0', 'limit'],
    ['?limit=101', 'limit'],
    ['?limit=ten', 'limit'],
    ['?limit=2.5', 'limit'],
    ['?level=fatal', 'level'],
    ['?from=yesterday', 'from'],
    ['?to=2026-01-01', 'to'],
    ['?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', 'from'],
    ["?type=a'b", 'type'],
    ['?sort=asc', 'query'],
  ])('answers %s with 400 naming %s', async (query, path) => {
    const app = await newApp();
    const res = await list(app, query);
    expect(res.status).toBe(400);
    expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path);
  });

  it('matches adversarial filter values exactly, as data', async () => {
    const app = await newApp();
    const nasty = ["o'brien", 'back\\slash', "' OR 1=1 --", 'emoji 🚀 and \t tab', '%_wild_%'];
    await send(app, nasty.map((customer_id) => ({ event: 'x', customer_id })));
    await send(app, [{ event: 'x', customer_id: 'plain' }]);
    await readable(app, nasty.length + 1);
    for (const value of nasty) {
      const res = await list(app, `?customer_id=${encodeURIComponent(value)}`);
      expect(res.status).toBe(200);
      expect(res.body.items.map((e: { customer_id: string }) => e.customer_id)).toEqual([value]);
    }
    expect((await list(app, `?customer_id=${encodeURIComponent('%')}`)).body.items).toEqual([]);
  });

  it('reads one event by its id, as the list shows it; 404 for an id the app does not have', async () => {
    const app = await newApp();
    const other = await newApp();
    const [id, second] = await send(app, [{ event: 'one', level: 'warning', customer_id: 'c9', data: { deep: { n: [1, 'x'] } }, metadata: { k: 1 } }, { event: 'two' }]);
    const [foreign] = await send(other, [{ event: 'elsewhere' }]);
    await readable(app, 2);
    await readable(other, 1);
    const one = await api.request('GET', `/v1/apps/${app.slug}/events/${id!.toUpperCase()}`, { headers: app.account.auth });
    expect(one.status).toBe(200);
    expect(one.body).toEqual((await list(app)).body.items.find((e: { id: string }) => e.id === id));
    expect(one.body).toMatchObject({ id, event: 'one', level: 'warning', customer_id: 'c9', data: { deep: { n: [1, 'x'] } }, metadata: { k: 1 } });
    expect((await api.request('GET', `/v1/apps/${app.appId}/events/${second}`, { headers: app.account.auth })).body.event).toBe('two');
    for (const missing of [foreign, '00000000-0000-4000-8000-000000000000', 'not-an-id']) {
      const res = await api.request('GET', `/v1/apps/${app.appId}/events/${missing}`, { headers: app.account.auth });
      expect(res.status, String(missing)).toBe(404);
      expect(res.body).toMatchObject({ statusCode: 404, error: 'Not Found' });
    }
    expect((await api.request('GET', `/v1/apps/${app.appId}/events/${id}`, { headers: other.account.auth })).status).toBe(404);
  });

  it('is 404 for another account\'s app, readable with a read-only secret of the owner', async () => {
    const app = await newApp();
    const stranger = await api.newAccount();
    expect((await list(app, '', stranger.auth)).status).toBe(404);
    expect((await api.request('GET', `/v1/apps/${app.slug}/events`, { headers: stranger.auth })).status).toBe(404);
    const created = await api.request('POST', '/v1/client-secrets', { headers: app.account.auth, body: { label: 'reader', scopes: ['read'] } });
    expect(created.status).toBe(201);
    expect((await list(app, '', { authorization: `Bearer ${created.body.clientSecret}` })).status).toBe(200);
    expect((await list(app, '', { authorization: 'Bearer nope' })).status).toBe(401);
  });
});
