import { expect } from 'vitest';
import { digestCredential, generateClientSecret, maskedHint, shownPrefix } from '../../src/domain/credentials.js';
import type { ApiHarness, TestAccount } from './api-harness.js';

/** What the assertions read of a response: any object with a status and a parsed JSON body. */
type Response = { status: number; body: any };

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  502: 'Bad Gateway',
};

/**
 * The standard error body (`statusCode`, `error`, `message`, `timestamp`, `path`, and `details` only
 * on a 400) with this status; `message` is matched exactly (a string) or by pattern. Returns the body
 * for further checks (`details`).
 */
export function expectError(res: Response, status: number, message?: string | RegExp): { message: string; details?: Array<{ path: string; message: string }> } {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ statusCode: status, error: STATUS_TEXT[status], path: expect.any(String), timestamp: expect.any(String) });
  // Exactly the standard fields; `details` only on a 400 (and not on every one: malformed JSON has none).
  const fields = ['error', 'message', 'path', 'statusCode', 'timestamp', ...(status === 400 && 'details' in res.body ? ['details'] : [])];
  expect(Object.keys(res.body).sort()).toEqual(fields.sort());
  if (typeof message === 'string') expect(res.body.message).toBe(message);
  else if (message) expect(res.body.message).toMatch(message);
  return res.body;
}

/** A 400 whose `details` name `path` (and whose message starts with it, since it is the first problem). */
export function expectValidationError(res: Response, path: string, message?: RegExp): void {
  const body = expectError(res, 400);
  expect(body.details, JSON.stringify(body)).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
  if (message) expect(body.details!.find((d) => d.path === path)!.message).toMatch(message);
}

/**
 * expectError, plus the request path the body names and, on a 400, a non-empty `details` list of
 * exactly `{ path, message }` items.
 */
export function expectErrorBody(res: Response, expected: { status: number; path: string; message?: string | RegExp }): void {
  const body = expectError(res, expected.status, expected.message);
  expect(res.body.path).toBe(expected.path);
  expect(new Date(res.body.timestamp).toISOString()).toBe(res.body.timestamp);
  if (expected.status === 400) {
    expect(body.details?.length, JSON.stringify(body)).toBeGreaterThan(0);
    for (const detail of body.details!) expect(Object.keys(detail).sort()).toEqual(['message', 'path']);
  }
}

export const NOT_FOUND = 'Resource not found';
export const INVALID_AUTH = 'Invalid or missing authentication';
export const INSUFFICIENT_SCOPE = 'Insufficient scope';

/** Creates an app through the API and returns the 201 body (`{ app, apiKey }`). */
export async function createTestApp(api: ApiHarness, account: TestAccount, body: Record<string, unknown> = { name: 'Test app' }): Promise<{ app: any; apiKey: string }> {
  const res = await api.request('POST', '/v1/apps', { headers: account.auth, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/**
 * `Authorization` for a second, read-only secret of the same account: a 403 from it shows the scope
 * check itself, since the same request with a read-write secret of the account would succeed.
 */
export async function readOnlySecretOf(api: ApiHarness, account: TestAccount): Promise<{ authorization: string }> {
  const secret = generateClientSecret();
  await api.container.metadata.clientSecrets.create({
    accountId: account.accountId,
    label: 'read-only (test)',
    scopes: ['read'],
    digest: digestCredential(secret),
    hint: maskedHint(shownPrefix(secret)),
  });
  return { authorization: `Bearer ${secret}` };
}
