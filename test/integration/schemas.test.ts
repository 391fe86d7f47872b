import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVALID_AUTH, NOT_FOUND, createTestApp, expectError, expectValidationError, readOnlySecretOf } from '../helpers/api-assertions.js';
import { MODES, startApi, type ApiHarness, type TestAccount } from '../helpers/api-harness.js';
import { openApiCheck, type OpenApiCheck } from '../helpers/openapi-check.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const ORDER_CREATED = {
  eventName: 'order.created',
  description: 'An order was placed',
  fields: [
    { name: 'amount', type: 'number', required: true },
    { id: 'currency-field', name: 'currency', type: 'enum', enumValues: ['EUR', 'USD'] },
    { name: 'gift', type: 'boolean' },
  ],
  metadataFields: [{ name: 'region', type: 'string' }],
};

describe.each(MODES)('event schemas (%s)', (mode) => {
  let api: ApiHarness;
  let openapi: OpenApiCheck;
  let account: TestAccount;
  /** The current test's app. */
  let app: { id: string; slug: string };

  beforeAll(async () => {
    api = await startApi(mode);
    openapi = await openApiCheck(api);
  });
  afterAll(async () => {
    await api?.stop();
  });

  /** Each test owns a fresh account with one app. */
  async function freshApp(): Promise<void> {
    account = await api.newAccount();
    app = (await createTestApp(api, account, { name: 'Schemas' })).app;
  }

  function call(method: string, path: string, body?: unknown, auth: Record<string, string> = account.auth) {
    return api.request(method, path, { headers: auth, ...(body !== undefined ? { body } : {}) });
  }

  async function ok(method: string, path: string, documentedPath: string, status: number, body?: unknown): Promise<any> {
    const res = await call(method, path, body);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    openapi.assertResponse(method, documentedPath, status, res.body);
    return res.body;
  }

  const create = (body: unknown, appRef = app.id) => ok('POST', `/v1/apps/${appRef}/schemas`, '/v1/apps/{appId}/schemas', 201, body);
  const byName = (name: string, appRef = app.id) => call('GET', `/v1/apps/${appRef}/schemas/by-event-name/${encodeURIComponent(name)}`);

  /** Another account's app, by id and by slug, for the 404 checks. */
  async function foreignAppRefs(): Promise<string[]> {
    const other = await api.newAccount();
    const theirs = (await api.request('POST', '/v1/apps', { headers: other.auth, body: { name: 'Theirs', slug: 'theirs' } })).body.app;
    await api.request('POST', `/v1/apps/${theirs.id}/schemas`, { headers: other.auth, body: ORDER_CREATED });
    return [theirs.id, 'theirs'];
  }

  describe('POST /v1/apps/{appId}/schemas', () => {
    it('creates a schema: 201, field ids assigned, required defaulting to false, enumValues only on enums', async () => {
      await freshApp();
      const schema = await create(ORDER_CREATED);
      expect(schema).toEqual({
        id: expect.stringMatching(UUID),
        appId: app.id,
        eventName: 'order.created',
        description: 'An order was placed',
        fields: [
          { id: expect.stringMatching(UUID), name: 'amount', type: 'number', required: true },
          { id: 'currency-field', name: 'currency', type: 'enum', required: false, enumValues: ['EUR', 'USD'] },
          { id: expect.stringMatching(UUID), name: 'gift', type: 'boolean', required: false },
        ],
        metadataFields: [{ id: expect.stringMatching(UUID), name: 'region', type: 'string', required: false }],
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      });
      expect(new Set(schema.fields.map((f: any) => f.id)).size).toBe(3);
    });

    it('takes dotted metadata field names (metadata is flat: `service.name` is one key), never dotted data field names', async () => {
      await freshApp();
      const schema = await create({ eventName: 'log', fields: [{ name: 'body', type: 'string' }], metadataFields: [{ name: 'service.name', type: 'string', required: true }] });
      expect(schema.metadataFields).toEqual([{ id: expect.stringMatching(UUID), name: 'service.name', type: 'string', required: true }]);
      expectValidationError(await call('POST', `/v1/apps/${app.id}/schemas`, { eventName: 'log2', fields: [{ name: 'service.name', type: 'string' }] }), 'fields.0.name', /letters, digits, _ or -/);
    });

    it('defaults description to "" and metadataFields to [], and resolves the app by slug', async () => {
      await freshApp();
      const schema = await create({ eventName: 'ping', fields: [{ name: 'n', type: 'string' }] }, app.slug);
      expect(schema).toMatchObject({ appId: app.id, description: '', metadataFields: [] });
    });

    it('409 for an event name the app already has; another app may use it', async () => {
      await freshApp();
      await create(ORDER_CREATED);
      expectError(await call('POST', `/v1/apps/${app.id}/schemas`, { ...ORDER_CREATED, description: 'again' }), 409, /already has a schema for event name "order.created"/);
      const second = (await createTestApp(api, account, { name: 'Second' })).app;
      expect((await create(ORDER_CREATED, second.id)).appId).toBe(second.id);
      // Event names are case-sensitive: a different name.
      expect((await create({ ...ORDER_CREATED, eventName: 'Order.Created' })).eventName).toBe('Order.Created');
    });

    const field = { name: 'amount', type: 'number' };
    it.each([
      [{ fields: [field] }, 'eventName', /non-empty string/],
      [{ eventName: '', fields: [field] }, 'eventName', /1–200 characters/],
      [{ eventName: 'has space', fields: [field] }, 'eventName', /letters, digits/],
      [{ eventName: 'a/b', fields: [field] }, 'eventName', /letters, digits/],
      [{ eventName: 'é', fields: [field] }, 'eventName', /letters, digits/],
      [{ eventName: 'x'.repeat(201), fields: [field] }, 'eventName', /1–200/],
      [{ eventName: 'e' }, 'fields', /array/],
      [{ eventName: 'e', fields: [] }, 'fields', /at least 1 field/],
      [{ eventName: 'e', fields: {} }, 'fields', /array of fields/],
      [{ eventName: 'e', fields: [{ type: 'string' }] }, 'fields.0.name', /non-empty string/],
      [{ eventName: 'e', fields: [{ name: '', type: 'string' }] }, 'fields.0.name', /1–100/],
      [{ eventName: 'e', fields: [{ name: 'order.total', type: 'string' }] }, 'fields.0.name', /letters, digits, _ or -/],
      [{ eventName: 'e', fields: [{ name: '$level', type: 'string' }] }, 'fields.0.name', /letters, digits, _ or -/],
      [{ eventName: 'e', fields: [{ name: 'n'.repeat(101), type: 'string' }] }, 'fields.0.name', /1–100/],
      [{ eventName: 'e', fields: [{ name: 'a', type: 'date' }] }, 'fields.0.type', /one of: string, number, boolean, enum/],
      [{ eventName: 'e', fields: [{ name: 'a' }] }, 'fields.0.type', /one of/],
      [{ eventName: 'e', fields: [{ name: 'a', type: 'string', required: 'yes' }] }, 'fields.0.required', /boolean/],
      [{ eventName: 'e', fields: [{ name: 'a', type: 'enum' }] }, 'fields.0.enumValues', /at least one value for type enum/],
      [{ eventName: 'e', fields: [{ name: 'a', type: 'enum', enumValues: [] }] }, 'fields.0.enumValues', /at least one value/],
      [{ eventName: 'e', fields: [{ name: 'a', type: 'enum', enumValues: ['x', 'x'] }] }, 'fields.0.enumValues', /duplicate value "x"/],
      [{ eventName: 'e', fields: [{ name: 'a', type: 'enum', enumValues: [1] }] }, 'fields.0.enumValues.0', /string/],
      [{ eventName: 'e', fields: [{ name: 'a', type: 'string', enumValues: ['x'] }] }, 'fields.0.enumValues', /only allowed for type enum/],
      [{ eventName: 'e', fields: [field, { ...field, type: 'string' }] }, 'fields.1.name', /duplicate field name "amount"/],
      [{ eventName: 'e', fields: [{ ...field, id: 'x' }, { id: 'x', name: 'b', type: 'string' }] }, 'fields.1.id', /duplicate field id "x"/],
      [{ eventName: 'e', fields: [{ ...field, id: 'has space' }] }, 'fields.0.id', /letters, digits/],
      [{ eventName: 'e', fields: [{ ...field, format: 'int' }] }, 'fields.0', /Unrecognized key/],
      [{ eventName: 'e', fields: [field], metadataFields: [{ name: 'r', type: 'string' }, { name: 'r', type: 'number' }] }, 'metadataFields.1.name', /duplicate field name/],
      [{ eventName: 'e', fields: [field], metadataFields: null }, 'metadataFields', /array/],
      [{ eventName: 'e', fields: [field], metadataFields: [{ name: '.hidden', type: 'string' }] }, 'metadataFields.0.name', /not starting with - or \./],
      [{ eventName: 'e', fields: [field], metadataFields: [{ name: 'a b', type: 'string' }] }, 'metadataFields.0.name', /letters, digits, _, - or \./],
      [{ eventName: 'e', fields: [field], metadataFields: [{ name: '$level', type: 'string' }] }, 'metadataFields.0.name', /letters, digits/],
      [{ eventName: 'e', fields: [field], description: 5 }, 'description', /string/],
      [{ eventName: 'e', fields: [field], description: 'd'.repeat(2001) }, 'description', /at most 2000/],
      [{ eventName: 'e', fields: [field], description: 'nul\u0000' }, 'description', /NUL characters/],
      [{ eventName: 'e', fields: [{ name: 'a', type: 'enum', enumValues: ['ok', 'x\u0000'] }] }, 'fields.0.enumValues.1', /NUL characters/],
      [{ eventName: 'e', fields: [{ name: 'a', type: 'enum', enumValues: ['\uDE80'] }] }, 'fields.0.enumValues.0', /unpaired surrogate/],
      [{ eventName: 'e', fields: [field], version: 2 }, 'body', /Unrecognized key/],
    ])('400 for %j (%s)', async (body, path, message) => {
      await freshApp();
      expectValidationError(await call('POST', `/v1/apps/${app.id}/schemas`, body), path, message);
    });

    it('lists every problem of a body in details', async () => {
      await freshApp();
      const res = await call('POST', `/v1/apps/${app.id}/schemas`, { eventName: 'ok', fields: [{ name: 'a', type: 'enum' }, { name: 'a', type: 'string', enumValues: ['x'] }] });
      const body = expectError(res, 400);
      expect(body.details!.map((d) => d.path).sort()).toEqual(['fields.0.enumValues', 'fields.1.enumValues', 'fields.1.name']);
    });

    it("404 for an unknown app and another account's app by id and by slug; 401; 403 for a read-only secret", async () => {
      await freshApp();
      for (const ref of [...(await foreignAppRefs()), uuidv7(), 'no-such-app']) {
        expectError(await call('POST', `/v1/apps/${ref}/schemas`, ORDER_CREATED), 404, NOT_FOUND);
      }
      expectError(await api.request('POST', `/v1/apps/${app.id}/schemas`, { body: ORDER_CREATED }), 401, INVALID_AUTH);
      const reader = await readOnlySecretOf(api, account);
      expectError(await api.request('POST', `/v1/apps/${app.id}/schemas`, { headers: reader, body: ORDER_CREATED }), 403, 'Insufficient scope');
      expect((await call('GET', `/v1/apps/${app.id}/schemas`)).body).toEqual([]);
    });
  });

  describe('GET /v1/apps/{appId}/schemas', () => {
    it("lists the app's schemas, oldest first, and pages with limit and offset", async () => {
      await freshApp();
      const other = (await createTestApp(api, account, { name: 'Other' })).app;
      await create({ eventName: 'not.this.app', fields: [{ name: 'x', type: 'string' }] }, other.id);
      const names = ['a.one', 'b.two', 'c.three', 'd.four'];
      const created = [];
      for (const eventName of names) created.push(await create({ eventName, fields: [{ name: 'x', type: 'string' }] }));
      const list = (query: string, ref = app.id) => ok('GET', `/v1/apps/${ref}/schemas${query}`, '/v1/apps/{appId}/schemas', 200);
      expect(await list('')).toEqual(created);
      expect(await list('', app.slug)).toEqual(created);
      expect((await list('?limit=3')).map((s: any) => s.eventName)).toEqual(names.slice(0, 3));
      expect((await list('?limit=3&offset=3')).map((s: any) => s.eventName)).toEqual(names.slice(3));
      expect(await list('?offset=4')).toEqual([]);
    });

    it('answers [] for an app without schemas', async () => {
      await freshApp();
      expect(await ok('GET', `/v1/apps/${app.id}/schemas`, '/v1/apps/{appId}/schemas', 200)).toEqual([]);
    });

    it.each([['?limit=0', 'limit'], ['?limit=1001', 'limit'], ['?offset=-3', 'offset'], ['?offset=x', 'offset'], ['?eventName=a', 'query']])('400 for %s', async (query, path) => {
      await freshApp();
      expectValidationError(await call('GET', `/v1/apps/${app.id}/schemas${query}`), path);
    });

    it("404 for another account's app by id and by slug; 401; a read-only secret may list", async () => {
      await freshApp();
      for (const ref of await foreignAppRefs()) expectError(await call('GET', `/v1/apps/${ref}/schemas`), 404, NOT_FOUND);
      expectError(await api.request('GET', `/v1/apps/${app.id}/schemas`), 401, INVALID_AUTH);
      const schema = await create(ORDER_CREATED);
      const reader = await readOnlySecretOf(api, account);
      expect((await api.request('GET', `/v1/apps/${app.id}/schemas`, { headers: reader })).body).toEqual([schema]);
      expect((await api.request('GET', `/v1/apps/${app.id}/schemas/by-event-name/order.created`, { headers: reader })).body).toEqual(schema);
    });
  });

  describe('GET /v1/apps/{appId}/schemas/by-event-name/{eventName}', () => {
    it.each(['order.created', 'user:signed-up', 'a_b-c.d:e', 'v1.2.3', 'x'])('finds %j, dots and colons included', async (eventName) => {
      await freshApp();
      await create({ eventName: 'decoy', fields: [{ name: 'x', type: 'string' }] });
      const created = await create({ ...ORDER_CREATED, eventName });
      const res = await byName(eventName, app.slug);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      openapi.assertResponse('GET', '/v1/apps/{appId}/schemas/by-event-name/{eventName}', 200, res.body);
      expect(res.body).toEqual(created);
      // Through the raw path too, with the dot not percent-encoded.
      expect((await call('GET', `/v1/apps/${app.id}/schemas/by-event-name/${eventName}`)).body).toEqual(created);
    });

    it("404 for a name without a schema, for another app's schema, and for another account's app", async () => {
      await freshApp();
      const other = (await createTestApp(api, account, { name: 'Other' })).app;
      await create(ORDER_CREATED, other.id);
      expectError(await byName('order.created'), 404, NOT_FOUND);
      expectError(await byName('order'), 404, NOT_FOUND);
      expectError(await byName('not a valid name'), 404, NOT_FOUND);
      expectError(await byName('nul\u0000byte'), 404, NOT_FOUND);
      for (const ref of await foreignAppRefs()) expectError(await byName('order.created', ref), 404, NOT_FOUND);
      expectError(await api.request('GET', `/v1/apps/${other.id}/schemas/by-event-name/order.created`), 401, INVALID_AUTH);
    });
  });

  describe('PATCH /v1/apps/{appId}/schemas/{schemaId}', () => {
    const path = '/v1/apps/{appId}/schemas/{schemaId}';

    it('updates the description alone and keeps the fields', async () => {
      await freshApp();
      const schema = await create(ORDER_CREATED);
      const updated = await ok('PATCH', `/v1/apps/${app.slug}/schemas/${schema.id}`, path, 200, { description: 'Changed' });
      expect(updated).toEqual({ ...schema, description: 'Changed', updatedAt: expect.any(String) });
      expect((await byName('order.created')).body).toEqual(updated);
    });

    it('replaces fields and metadataFields entirely', async () => {
      await freshApp();
      const schema = await create(ORDER_CREATED);
      const updated = await ok('PATCH', `/v1/apps/${app.id}/schemas/${schema.id}`, path, 200, {
        fields: [
          { id: 'currency-field', name: 'currency', type: 'enum', enumValues: ['GBP'] },
          { name: 'total', type: 'number', required: true },
        ],
        metadataFields: [],
      });
      expect(updated.fields).toEqual([
        { id: 'currency-field', name: 'currency', type: 'enum', required: false, enumValues: ['GBP'] },
        { id: expect.stringMatching(UUID), name: 'total', type: 'number', required: true },
      ]);
      expect(updated.metadataFields).toEqual([]);
      expect(updated).toMatchObject({ eventName: 'order.created', description: 'An order was placed' });
      expect((await byName('order.created')).body).toEqual(updated);
      // metadataFields alone leaves fields as they are.
      const again = await ok('PATCH', `/v1/apps/${app.id}/schemas/${schema.id}`, path, 200, { metadataFields: [{ name: 'tier', type: 'string' }] });
      expect(again.fields).toEqual(updated.fields);
      expect(again.metadataFields).toEqual([{ id: expect.stringMatching(UUID), name: 'tier', type: 'string', required: false }]);
    });

    it('400 for eventName, which cannot be changed, and for invalid fields', async () => {
      await freshApp();
      const schema = await create(ORDER_CREATED);
      const url = `/v1/apps/${app.id}/schemas/${schema.id}`;
      expectError(await call('PATCH', url, { eventName: 'order.renamed' }), 400, /eventName cannot be changed/);
      expectValidationError(await call('PATCH', url, { fields: [] }), 'fields', /at least 1 field/);
      expectValidationError(await call('PATCH', url, { fields: [{ name: 'a', type: 'enum' }] }), 'fields.0.enumValues');
      expectValidationError(await call('PATCH', url, { metadataFields: [{ name: '.b', type: 'string' }] }), 'metadataFields.0.name');
      expectValidationError(await call('PATCH', url, { metadataFields: [{ name: '-b', type: 'string' }] }), 'metadataFields.0.name');
      expectValidationError(await call('PATCH', url, { description: null }), 'description');
      expectValidationError(await call('PATCH', url, 'text'), 'body');
      // Nothing of the refused updates was applied.
      expect((await byName('order.created')).body).toEqual(schema);
    });

    it("404 for an unknown schema, another app's schema, and another account's app", async () => {
      await freshApp();
      const schema = await create(ORDER_CREATED);
      const other = (await createTestApp(api, account, { name: 'Other' })).app;
      for (const url of [`/v1/apps/${app.id}/schemas/${uuidv7()}`, `/v1/apps/${app.id}/schemas/not-a-uuid`, `/v1/apps/${other.id}/schemas/${schema.id}`]) {
        expectError(await call('PATCH', url, { description: 'x' }), 404, NOT_FOUND);
      }
      for (const ref of await foreignAppRefs()) expectError(await call('PATCH', `/v1/apps/${ref}/schemas/${schema.id}`, { description: 'x' }), 404, NOT_FOUND);
      expectError(await api.request('PATCH', `/v1/apps/${app.id}/schemas/${schema.id}`, { body: { description: 'x' } }), 401, INVALID_AUTH);
      const reader = await readOnlySecretOf(api, account);
      expectError(await api.request('PATCH', `/v1/apps/${app.id}/schemas/${schema.id}`, { headers: reader, body: { description: 'x' } }), 403, 'Insufficient scope');
      expect((await byName('order.created')).body.description).toBe('An order was placed');
    });
  });

  describe('DELETE /v1/apps/{appId}/schemas/{schemaId}', () => {
    it('deletes a schema; the event name can then be registered again', async () => {
      await freshApp();
      const schema = await create(ORDER_CREATED);
      const res = await call('DELETE', `/v1/apps/${app.slug}/schemas/${schema.id}`);
      expect(res.status).toBe(204);
      openapi.assertResponse('DELETE', '/v1/apps/{appId}/schemas/{schemaId}', 204, res.body);
      expectError(await byName('order.created'), 404, NOT_FOUND);
      expect((await call('GET', `/v1/apps/${app.id}/schemas`)).body).toEqual([]);
      expectError(await call('DELETE', `/v1/apps/${app.id}/schemas/${schema.id}`), 404, NOT_FOUND);
      expect((await create(ORDER_CREATED)).id).not.toBe(schema.id);
    });

    it("404 for another app's schema and another account's app; 401; 403", async () => {
      await freshApp();
      const schema = await create(ORDER_CREATED);
      const other = (await createTestApp(api, account, { name: 'Other' })).app;
      expectError(await call('DELETE', `/v1/apps/${other.id}/schemas/${schema.id}`), 404, NOT_FOUND);
      expectError(await call('DELETE', `/v1/apps/${app.id}/schemas/nope`), 404, NOT_FOUND);
      for (const ref of await foreignAppRefs()) expectError(await call('DELETE', `/v1/apps/${ref}/schemas/${schema.id}`), 404, NOT_FOUND);
      expectError(await api.request('DELETE', `/v1/apps/${app.id}/schemas/${schema.id}`), 401, INVALID_AUTH);
      const reader = await readOnlySecretOf(api, account);
      expectError(await api.request('DELETE', `/v1/apps/${app.id}/schemas/${schema.id}`, { headers: reader }), 403, 'Insufficient scope');
      expect((await byName('order.created')).status).toBe(200);
    });
  });
});
