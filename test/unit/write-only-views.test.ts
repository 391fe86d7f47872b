import { describe, expect, it } from 'vitest';
import type { ApiDeps } from '../../src/http/routes/api-deps.js';
import { v1Routes } from '../../src/http/routes/v1.js';

/**
 * A client secret without the `read` scope may change objects but not read them, so a write answers
 * it only with what the write made (route.ts, `writeOnlyView`). A write route added without a view
 * would answer such a secret `{}`; this keeps every one declared, so none is forgotten silently. What
 * the views let through over HTTP is tested in test/integration/client-secrets.test.ts.
 */
// Route declarations only: building them does not touch their dependencies.
const routes = v1Routes({} as ApiDeps);

describe('write-only views', () => {
  it('are declared by every write of a client secret whose success has a body', () => {
    const writes = routes.filter((route) => route.auth === 'client' && (route.scope ?? (route.method === 'get' ? 'read' : 'write')) === 'write');
    const withBody = writes.filter((route) => Object.values(route.responses).some((response) => response.schema !== undefined));
    expect(withBody.length).toBeGreaterThan(10);
    expect(withBody.filter((route) => route.writeOnlyView === undefined).map((route) => `${route.method} ${route.path}`)).toEqual([]);
  });

  it('pick ids and credentials shown once out of the full answer, never the object itself', () => {
    const view = (operationId: string) => routes.find((route) => route.operationId === operationId)?.writeOnlyView;
    const app = { id: 'a1', name: 'Shop', slug: 'shop', apiKeyHint: 'svc_live_ab…' };
    expect(view('createApp')?.parse({ app, apiKey: 'svc_live_new' })).toEqual({ app: { id: 'a1' }, apiKey: 'svc_live_new' });
    expect(view('updateApp')?.parse(app)).toEqual({ id: 'a1' });
    const rule = { id: 'r1', name: 'Big refund', conditions: [{ field: 'amount' }], triggerCount: 7 };
    expect(view('updateNotificationRule')?.parse(rule)).toEqual({ id: 'r1' });
  });
});
