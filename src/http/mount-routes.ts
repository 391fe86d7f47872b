import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { Router } from 'express';
import { DomainError } from '../domain/errors.js';
import { writeJson } from './error-response.js';
import { setResponseHeader, writeResponseHead } from './response-head.js';
import { readJsonBody } from './json-body.js';
import type { Authenticator, Principal } from '../services/authenticator.js';
import type { AccountRateLimit } from './rate-limit.js';
import type { ExchangeNotes } from '../observability/http-metrics.js';
import { parseInput, type AnyRoute, type RouteResult } from './route.js';
import type { RouteTable } from '../lib/route-table.js';
import type { TurnBudget } from '../lib/turn-budget.js';
import { mapAwaitable, type Awaitable } from '../lib/awaitable.js';

const INVALID_AUTH = 'Invalid or missing authentication';

/** OpenAPI `{appId}` → Express `:appId`. */
export function expressPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const header = headers.authorization;
  if (!header) return undefined;
  // RFC 9110: the scheme name is case-insensitive ("bearer" is as good as "Bearer").
  const match = /^Bearer +([^\s]+)$/i.exec(header);
  return match?.[1];
}

/** 401, with the challenge RFC 9110 asks for when the route takes a Bearer credential. */
function unauthenticated(route: AnyRoute): DomainError {
  return new DomainError('unauthenticated', INVALID_AUTH, route.auth === 'client' ? { headers: { 'WWW-Authenticate': 'Bearer' } } : {});
}

/**
 * Every credential problem (missing, malformed, unknown, revoked, or the other kind of credential)
 * is the same 401.
 */
function authenticate(route: AnyRoute, headers: IncomingHttpHeaders, authenticator: Authenticator): Awaitable<Principal | null> {
  if (route.auth === 'none') return null;
  const presented = route.auth === 'client' ? bearerToken(headers) : headers['x-api-key'];
  if (typeof presented !== 'string') throw unauthenticated(route);
  return mapAwaitable(authenticator.authenticate(presented), (principal) => {
    if (!principal || principal.kind !== (route.auth === 'client' ? 'client' : 'api_key')) throw unauthenticated(route);
    return principal;
  });
}

/** A valid secret without the route's scope (by default: `read` for GET, else `write`) is 403. */
function authorize(route: AnyRoute, principal: Principal | null): void {
  if (principal?.kind !== 'client') return;
  const needed = route.scope ?? (route.method === 'get' ? 'read' : 'write');
  if (!principal.scopes.includes(needed)) throw new DomainError('forbidden', 'Insufficient scope');
}

/** What the edge hands a route besides its declaration: the request's parts. */
export interface RouteInput {
  readonly headers: IncomingHttpHeaders;
  readonly params: unknown;
  readonly query: unknown;
  /**
   * Reads and parses the JSON body (json-body.ts); undefined when there is none. With `turns`, the
   * parsing of a large body waits for its share of the event loop's turn.
   */
  readBody(turns?: TurnBudget): Promise<unknown>;
  readonly notes: ExchangeNotes;
}

export interface RouteDeps {
  readonly authenticator: Authenticator;
  readonly rateLimit?: AccountRateLimit | undefined;
  /**
   * Admits the ingest routes' work on a large body (parsing, validating and encoding up to a hundred
   * events, once its bytes are in) only while the event loop's turn has time left (turn-budget.ts),
   * so that a saturated process keeps accepting connections and answering its other routes. None:
   * admitted at once.
   */
  readonly turns?: TurnBudget | undefined;
}

/**
 * Serves one route declaration: authenticate, count the request against the account's rate limit,
 * check the scope, read the body, validate path, query and body, run. The rate limit comes right after
 * authentication, so every response of an authenticated request (a 403 or 400 too) is counted and
 * carries the RateLimit headers (set on `res` here), and a 401 is neither (see rate-limit.ts).
 * The body is read last: a request without a valid credential, over its budget or out of its scope
 * is answered without its body being read or decompressed, so that reading (up to 1 MiB, decoded) is
 * work only a valid credential can ask for.
 * Throws a DomainError for the edge to answer. Plain node objects: Express routes every endpoint
 * through this but the ingest endpoint, which calls it without Express (ingest-endpoint.ts).
 */
export async function serveRoute(route: AnyRoute, deps: RouteDeps, input: RouteInput, res: ServerResponse): Promise<RouteResult> {
  // A cached credential and budget held by this process answer at once: awaited only when they did
  // not, since every await is a promise more on every request (lib/awaitable.ts).
  const authenticated = authenticate(route, input.headers, deps.authenticator);
  const principal = authenticated instanceof Promise ? await authenticated : authenticated;
  if (principal && deps.rateLimit) {
    const admitted = deps.rateLimit.admit(principal.accountId);
    for (const [name, value] of Object.entries(admitted instanceof Promise ? await admitted : admitted)) setResponseHeader(res, name, value);
  }
  authorize(route, principal);
  const raw = route.body ? await input.readBody(route.ingest ? deps.turns : undefined) : undefined;
  if (route.ingest) input.notes.events = Array.isArray(raw) ? Math.max(1, raw.length) : 1;
  const params: unknown = route.params ? parseInput(route.params, input.params, 'path') : undefined;
  const query: unknown = route.query ? parseInput(route.query, input.query, 'query') : undefined;
  const body: unknown = route.body ? (route.fastBody?.(raw) ?? parseInput(route.body, raw, 'body')) : undefined;
  const result = await route.handler({ params, query, body, principal, headers: input.headers, rawBody: raw, notes: input.notes });
  if (principal?.kind !== 'client' || principal.scopes.includes('read') || result.body === undefined) return result;
  return { ...result, body: route.writeOnlyView?.parse(result.body) ?? {} };
}

/**
 * A route's answer on the response: its headers, then its body as JSON, as the bytes given (with the
 * Content-Type the route set), or no body (a 204).
 */
export function writeResult(res: ServerResponse, result: RouteResult): void {
  for (const [name, value] of Object.entries(result.headers ?? {})) setResponseHeader(res, name, value);
  if (Buffer.isBuffer(result.body)) {
    setResponseHeader(res, 'Content-Length', result.body.length);
    writeResponseHead(res, result.status);
    res.end(result.body);
    return;
  }
  if (result.body !== undefined) {
    writeJson(res, result.status, result.body);
    return;
  }
  writeResponseHead(res, result.status);
  res.end();
}

/**
 * Every route declaration on an Express router; errors go to the app's error handler. `table` is the
 * edge's route table (it holds these routes among others), which decides which template serves a path.
 */
export function mountRoutes(routes: readonly AnyRoute[], deps: RouteDeps, table: RouteTable): Router {
  const router = Router();
  for (const route of routes) {
    router[route.method](expressPath(route.path), async (req, res, next) => {
      // Express takes the first template that matches; a concrete path shadows a templated one
      // (route-table.ts): a request for it that its own routes do not serve goes on to the 405.
      if (table.find(req.method, req.path) !== route) {
        next();
        return;
      }
      const notes: ExchangeNotes = {};
      res.locals.notes = notes;
      const input = { headers: req.headers, params: req.params, query: req.query, readBody: (turns?: TurnBudget) => (route.bodyReader ? route.bodyReader.read(req, turns) : readJsonBody(req, { turns })), notes };
      writeResult(res, await serveRoute(route, deps, input, res));
    });
  }
  return router;
}
