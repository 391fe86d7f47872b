import type { Target } from './targets.js';

/**
 * The public API as the benchmarks use it: ingest with the app's key, and the app's resources
 * (destinations, rules) with the client secret, as a user would set them up.
 */

/** Ingests one request with the app's key; resolves with the ids of the accepted events. */
export async function ingest(target: Target, body: unknown): Promise<string[]> {
  const res = await fetch(`${target.url}/v1/ingest`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': target.apiKey },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as { events?: Array<{ id: string }> };
  if (res.status !== 202 || !answer.events) throw new Error(`POST /v1/ingest answered ${res.status}: ${JSON.stringify(answer)}`);
  return answer.events.map((e) => e.id);
}

export interface ManagementApi {
  /** POST /v1/apps/{appId}/{path} with the client secret; resolves with the created resource. */
  post<T>(path: string, body: unknown): Promise<T>;
  /** PATCH /v1/apps/{appId}/{path}; resolves with the changed resource. */
  patch<T>(path: string, body: unknown): Promise<T>;
  /** DELETE /v1/apps/{appId}/{path}. */
  delete(path: string): Promise<void>;
}

export function managementApi(url: string, clientSecret: string, appId: string): ManagementApi {
  const call = async (method: string, path: string, expected: number, body?: unknown): Promise<unknown> => {
    const res = await fetch(`${url}/v1/apps/${appId}/${path}`, {
      method,
      headers: { authorization: `Bearer ${clientSecret}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (res.status !== expected) throw new Error(`${method} /v1/apps/{app}/${path} answered ${res.status}: ${text}`);
    return text === '' ? undefined : JSON.parse(text);
  };
  return {
    post: async <T>(path: string, body: unknown) => (await call('POST', path, 201, body)) as T,
    patch: async <T>(path: string, body: unknown) => (await call('PATCH', path, 200, body)) as T,
    delete: async (path: string) => void (await call('DELETE', path, 204)),
  };
}
