import { expect } from 'vitest';
import { createTestApp } from './api-assertions.js';
import type { ApiHarness, TestAccount } from './api-harness.js';
import type { OpenApiCheck } from './openapi-check.js';

type Reply = { status: number; body: any; headers: Headers };

/** A fresh account with one app, and requests made as that account (each test owns its data). */
export interface AppSession {
  readonly account: TestAccount;
  readonly app: { id: string; slug: string; name: string };
  /** A request with the account's secret, or with `auth` when given. */
  call(method: string, path: string, body?: unknown, auth?: Record<string, string>): Promise<Reply>;
  /** `call`, expecting `status`, with the body checked against the OpenAPI document at `documentedPath`. */
  ok(method: string, path: string, documentedPath: string, status: number, body?: unknown): Promise<any>;
}

export async function appSession(api: ApiHarness, openapi: OpenApiCheck, appName = 'Alerting'): Promise<AppSession> {
  const account = await api.newAccount();
  const app = (await createTestApp(api, account, { name: appName })).app;
  const call = (method: string, path: string, body?: unknown, auth: Record<string, string> = account.auth) =>
    api.request(method, path, { headers: auth, ...(body !== undefined ? { body } : {}) });
  return {
    account,
    app,
    call,
    async ok(method, path, documentedPath, status, body) {
      const res = await call(method, path, body);
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      openapi.assertResponse(method, documentedPath, status, res.body);
      return res.body;
    },
  };
}

/** Another account's app, by id and by slug, for the 404 checks (no existence leaks). */
export async function foreignAppRefs(api: ApiHarness): Promise<string[]> {
  const other = await api.newAccount();
  const slug = `theirs-${Math.random().toString(36).slice(2, 8)}`;
  const theirs = (await createTestApp(api, other, { name: 'Theirs', slug })).app;
  return [theirs.id, slug];
}
