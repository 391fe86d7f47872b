/**
 * The one way the dashboard calls the API: `fetch` with the client secret as a Bearer token,
 * same origin, JSON in and out. Every failure becomes an ApiError whose message is plain words
 * that the page shows next to what caused it (components/error-alert.tsx).
 */

export interface ErrorDetail {
  readonly path: string;
  readonly message: string;
}

export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    message: string,
    /** 0 when the service could not be reached at all. */
    readonly status: number,
    readonly details: readonly ErrorDetail[] = [],
  ) {
    super(message);
  }
}

export type Query = Readonly<Record<string, string | number | undefined>>;

export interface ApiClient {
  get<T>(path: string, query?: Query): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
  put<T>(path: string, body: unknown): Promise<T>;
  patch<T>(path: string, body: unknown): Promise<T>;
  delete(path: string): Promise<void>;
}

/** `onUnauthenticated` runs on a 401: the secret was revoked or is wrong, so the session is over. */
export function createApiClient(secret: string, onUnauthenticated: () => void): ApiClient {
  async function request<T>(method: string, path: string, options: { query?: Query; body?: unknown } = {}): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', authorization: `Bearer ${secret}` };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(path + queryString(options.query), {
        method,
        headers,
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        // No cookies exist for this origin; the secret travels only in the header above.
        credentials: 'omit',
        cache: 'no-store',
      });
    } catch {
      throw new ApiError('Could not reach the service. Check that it is running and try again.', 0);
    }
    if (response.status === 401) onUnauthenticated();
    if (!response.ok) throw await errorOf(method, response);
    if (response.status === 204) return undefined as T;
    return (await response.json()) as T;
  }

  return {
    get: (path, query) => request('GET', path, query === undefined ? {} : { query }),
    post: (path, body) => request('POST', path, body === undefined ? {} : { body }),
    put: (path, body) => request('PUT', path, { body }),
    patch: (path, body) => request('PATCH', path, { body }),
    delete: (path) => request<void>('DELETE', path),
  };
}

function queryString(query: Query | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') params.set(name, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** A path segment: ids, slugs and event names (dots included) go into paths through this. */
export function segment(value: string): string {
  return encodeURIComponent(value);
}

/**
 * The standard error body `{ statusCode, error, message, timestamp, path, details? }` in plain words.
 * Anything else (a proxy's HTML page) still gives a sentence, never a parse error.
 */
async function errorOf(method: string, response: Response): Promise<ApiError> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  const message = isRecord(body) && typeof body.message === 'string' ? body.message : undefined;
  const details = isRecord(body) && Array.isArray(body.details) ? body.details.filter(isDetail) : [];
  return new ApiError(plainMessage(method, response, message), response.status, details);
}

function plainMessage(method: string, response: Response, message: string | undefined): string {
  switch (response.status) {
    case 401:
      return 'The client secret was not accepted. It may have been revoked; sign in again.';
    case 403:
      return `This client secret lacks the ${method === 'GET' ? 'read' : 'write'} scope needed for that.`;
    case 429: {
      const retryAfter = response.headers.get('retry-after');
      const wait = retryAfter === null ? 'in a moment' : `in ${retryAfter} s`;
      return `Too many requests for this account right now. Try again ${wait}.`;
    }
    default:
      if (message !== undefined && message !== '') return message;
      return `The service answered ${response.status}${response.statusText ? ` ${response.statusText}` : ''}.`;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function isDetail(value: unknown): value is ErrorDetail {
  return isRecord(value) && typeof value.path === 'string' && typeof value.message === 'string';
}
