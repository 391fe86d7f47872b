import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, readOnlySecretOf } from '../helpers/api-assertions.js';
import { MODES, startApi, type ApiHarness } from '../helpers/api-harness.js';

/**
 * Keys and secrets are never logged. The service runs at debug level with its log captured, is driven
 * through every operation that handles a credential (create, rotate, delete, authentication failures,
 * credentials sent in the wrong place), and no value, nor its random part alone, may appear in any
 * line.
 */
describe.each(MODES)('credentials never reach the log (%s)', (mode) => {
  let api: ApiHarness;

  beforeAll(async () => {
    api = await startApi(mode);
  });
  afterAll(async () => {
    await api?.stop();
  });

  it('logs no API key and no client secret', async () => {
    const account = await api.newAccount();
    const reader = await readOnlySecretOf(api, account);
    const credentials: string[] = [account.secret, reader.authorization.slice('Bearer '.length)];
    const send = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
      api.request(method, path, { headers, ...(body !== undefined ? { body } : {}) });

    const created = await createTestApp(api, account, { name: 'Logged', slug: 'logged' });
    credentials.push(created.apiKey);
    const rotated = (await send('POST', '/v1/apps/logged/keys/rotate', account.auth)).body;
    const rotatedAgain = (await send('POST', `/v1/apps/${created.app.id}/rotate-key`, account.auth)).body;
    credentials.push(rotated.apiKey, rotatedAgain.apiKey);
    expect(await api.container.services.authenticator.authenticate(rotatedAgain.apiKey)).not.toBeNull();
    expect(await api.container.services.authenticator.authenticate(created.apiKey)).toBeNull();

    const doomed = await createTestApp(api, account, { name: 'Doomed' });
    credentials.push(doomed.apiKey);
    expect((await send('DELETE', `/v1/apps/${doomed.app.id}`, account.auth)).status).toBe(204);

    const schema = { eventName: 'order.created', fields: [{ name: 'amount', type: 'number', required: true }] };
    const createdSchema = (await send('POST', '/v1/apps/logged/schemas', account.auth, schema)).body;
    await send('PATCH', `/v1/apps/logged/schemas/${createdSchema.id}`, account.auth, { description: 'changed' });
    await send('GET', '/v1/apps/logged/schemas/by-event-name/order.created', reader);
    await send('PUT', '/v1/apps/logged/default-metadata', account.auth, { env: 'test' });
    await send('GET', '/v1/apps', reader);

    // Failures: a revoked key, keys where a secret belongs, a secret where a key belongs, a read-only
    // secret writing, credentials in a body and a query string.
    const statuses = [
      (await send('GET', '/v1/apps', { authorization: `Bearer ${created.apiKey}` })).status,
      (await send('GET', '/v1/apps', { 'x-api-key': rotatedAgain.apiKey })).status,
      (await send('GET', '/v1/apps', { 'x-api-key': account.secret })).status,
      (await send('GET', '/v1/apps', { authorization: account.secret })).status,
      (await send('POST', '/v1/apps', reader, { name: 'x' })).status,
      (await send('POST', '/v1/apps', account.auth, { name: 'x', apiKey: rotatedAgain.apiKey })).status,
      (await send('GET', `/v1/apps?key=${rotatedAgain.apiKey}`, account.auth)).status,
      (await send('POST', '/v1/apps', { ...account.auth, 'content-type': 'application/json' })).status,
    ];
    expect(statuses).toEqual([401, 401, 401, 401, 403, 400, 400, 400]);

    // The capture is live: a line written through the service's own logger is there.
    api.container.logger.debug({ probe: 'log-capture-check' }, 'probe');
    const log = api.logLines().join('\n');
    expect(log).toContain('log-capture-check');
    for (const value of credentials) {
      const randomPart = value.replace(/^svc_(live|cs)_/, '');
      expect(randomPart.length).toBeGreaterThanOrEqual(43);
      expect(log.includes(value), `a credential (${value.slice(0, 12)}…) was logged`).toBe(false);
      expect(log.includes(randomPart), `the random part of a credential (${value.slice(0, 12)}…) was logged`).toBe(false);
    }
  });
});
