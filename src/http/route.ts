import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { z } from 'zod';
import { DomainError, type ErrorDetail } from '../domain/errors.js';
import type { TurnBudget } from '../lib/turn-budget.js';
import type { ExchangeNotes } from '../observability/http-metrics.js';
import type { ApiKeyPrincipal, ClientPrincipal } from '../services/authenticator.js';

/**
 * One declaration per endpoint: its path, the zod schemas that validate its input, the schemas of its
 * responses, and its handler. `mountRoutes` (mount-routes.ts) serves the declarations with Express;
 * `buildOpenApiDocument` (openapi.ts) describes the very same declarations, so the OpenAPI document
 * cannot drift from what the server validates.
 */

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** `client`: Bearer client secret (management). `api_key`: `x-api-key` (ingest). `none`: public. */
export type AuthKind = 'client' | 'api_key' | 'none';

type PrincipalFor<A extends AuthKind> = A extends 'client' ? ClientPrincipal : A extends 'api_key' ? ApiKeyPrincipal : null;

export interface ResponseSpec {
  readonly description: string;
  /** Absent for responses without a body (204). */
  readonly schema?: z.ZodType;
}

export interface RouteContext<P, Q, B, Principal> {
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  readonly principal: Principal;
  /** The request's headers, as received. */
  readonly headers: IncomingHttpHeaders;
  /** The body as parsed from JSON, before validation and defaults: what the client sent. */
  readonly rawBody: unknown;
  /** What the route tells the edge's metrics about its request. */
  readonly notes: ExchangeNotes;
}

export interface RouteResult {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface RouteDefinition<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType = z.ZodType,
  A extends AuthKind = AuthKind,
> {
  readonly method: HttpMethod;
  /** OpenAPI form, `{name}` for parameters: `/v1/apps/{appId}`. */
  readonly path: string;
  readonly operationId: string;
  readonly summary: string;
  readonly description?: string;
  readonly tags: readonly string[];
  readonly auth: A;
  /**
   * The scope a client secret needs; by default `read` for GET and `write` for every other method. A
   * POST that only reads (its input is too large for a query string) says `read`.
   */
  readonly scope?: 'read' | 'write';
  readonly params?: P;
  readonly query?: Q;
  readonly body?: B;
  /**
   * What the OpenAPI document shows for `body`, when `body` is a form client generators cannot turn into
   * code (a union of an object and an array): one of the forms `body` accepts, the others in its description.
   */
  readonly documentedBody?: z.ZodType;
  /**
   * A written-out check of `body` for the usual, well-formed case: what `body` would give, or undefined
   * to let `body` (and its messages) decide. For the hot path only (ingest); it must accept nothing
   * that `body` refuses.
   */
  readonly fastBody?: (raw: unknown) => z.output<B> | undefined;
  /**
   * What this write answers a client secret without the `read` scope, which may change objects but not
   * read them: a schema of the fields the write itself made (ids, a credential shown once). The rest
   * of the response is left out (zod drops keys a schema does not name), so that a write cannot serve
   * as a read. Every write whose response has a body declares one (test/unit/write-only-views.test.ts).
   */
  readonly writeOnlyView?: z.ZodType;
  /** Success responses; the error responses every route can give are added by openapi.ts. */
  readonly responses: Readonly<Record<number, ResponseSpec>>;
  /** Error statuses only this route gives (a destination test's 502), documented next to the common ones. */
  readonly errors?: readonly number[];
  /** Events arrive through this route: its requests count in eas_events_accepted/rejected_total (docs/metrics.md). */
  readonly ingest?: boolean;
  /**
   * Reads the body when it is not JSON (the default reader, json-body.ts): what it returns is then
   * validated by `body`. `mediaTypes` lists what it accepts, for the OpenAPI document; the route
   * answers in the request's media type, a Buffer body with its Content-Type header.
   */
  readonly bodyReader?: { read(req: IncomingMessage, turns?: TurnBudget): Promise<unknown>; readonly mediaTypes: readonly string[] };
  handler(ctx: RouteContext<z.output<P>, z.output<Q>, z.output<B>, PrincipalFor<A>>): Promise<RouteResult>;
}

/** A route with its types erased, for lists of routes. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteDefinition<any, any, any, AuthKind>;

/** Identity function that gives the handler its inferred input types. */
export function defineRoute<P extends z.ZodType = z.ZodUndefined, Q extends z.ZodType = z.ZodUndefined, B extends z.ZodType = z.ZodUndefined, A extends AuthKind = AuthKind>(
  route: RouteDefinition<P, Q, B, A>,
): AnyRoute {
  return route as AnyRoute;
}

/**
 * Validates one part of a request. A failure is a 400 whose message names the first problem in plain
 * words ("name: must be a non-empty string") and whose `details` list every problem with its path.
 */
export function parseInput<T extends z.ZodType>(schema: T, input: unknown, where: 'body' | 'query' | 'path'): z.output<T> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details: ErrorDetail[] = explainIssues(result.error.issues, []).map((issue) => ({
    path: issue.path.length > 0 ? issue.path.map(String).join('.') : where,
    message: issue.message,
  }));
  const first = details[0]!;
  throw new DomainError('validation_failed', `${first.path}: ${first.message}`, { details });
}

type Issue = z.core.$ZodIssue;

/**
 * A union's own message is a bare "Invalid input". When all but one branch failed on the type of the
 * value itself (an object sent where the other branch wants an array), the client meant the remaining
 * branch: report its problems instead, with their full paths.
 */
function explainIssues(issues: readonly Issue[], prefix: PropertyKey[]): Array<{ path: PropertyKey[]; message: string }> {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      const meant = issue.errors.filter((branch) => !branch.every((i) => i.code === 'invalid_type' && i.path.length === 0));
      if (meant.length === 1) return explainIssues(meant[0]!, path);
    }
    return [{ path, message: issue.message }];
  });
}

/** The usual write-only view: the id of the object the write created or changed. */
export const idOnlyView = z.object({ id: z.string() });

/** Query strings give strings; every list that returns a bare array shares these bounds. */
export const paginationQuery = z
  .object({
    limit: z.coerce.number({ error: 'must be a whole number from 1 to 1000' }).int('must be a whole number from 1 to 1000').min(1, 'must be a whole number from 1 to 1000').max(1000, 'must be a whole number from 1 to 1000').default(100).describe('Most items to return, 1 to 1000'),
    offset: z.coerce.number({ error: 'must be a whole number of 0 or more' }).int('must be a whole number of 0 or more').min(0, 'must be a whole number of 0 or more').default(0).describe('Items to skip from the start of the list (oldest first)'),
  })
  .strict();

/**
 * The cursor-paged lists (the events and the deliveries): `limit` 1–100, default 25, and the opaque
 * `cursor` of the previous page.
 */
/** A `limit` query parameter: a whole number from 1 to `max`. */
export function limitParam(max: number) {
  const message = `must be a whole number from 1 to ${max}`;
  return z.coerce.number({ error: message }).int(message).min(1, message).max(max, message);
}

export const cursorPageQueryFields = {
  limit: limitParam(100).default(25).describe('Most items on the page, 1 to 100'),
  cursor: z.string().min(1, 'must be a cursor from a previous response').optional().describe('Opaque cursor taken from the previous response'),
};
