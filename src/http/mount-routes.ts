import { Router, type Request } from 'express';
import { DomainError } from '../domain/errors.js';
import type { Authenticator, Principal } from '../services/authenticator.js';
import { parseInput, type AnyRoute } from './route.js';

const INVALID_AUTH = 'Invalid or missing authentication';

/** OpenAPI `{appId}` → Express `:appId`. */
export function expressPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

function bearerToken(req: Request): string | undefined {
  const header = req.headers.authorization;
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
 * Contract section 2: every credential problem (missing, malformed, unknown, revoked, or the other
 * kind of credential) is the same 401; a valid read-only secret doing anything but GET is 403.
 */
async function authenticate(route: AnyRoute, req: Request, authenticator: Authenticator): Promise<Principal | null> {
  if (route.auth === 'none') return null;
  const presented = route.auth === 'client' ? bearerToken(req) : req.headers['x-api-key'];
  if (typeof presented !== 'string') throw unauthenticated(route);
  const principal = await authenticator.authenticate(presented);
  if (!principal) throw unauthenticated(route);
  if (route.auth === 'client') {
    if (principal.kind !== 'client') throw unauthenticated(route);
    const needed = route.method === 'get' ? 'read' : 'write';
    if (!principal.scopes.includes(needed)) throw new DomainError('forbidden', 'Insufficient scope');
  } else if (principal.kind !== 'api_key') {
    throw unauthenticated(route);
  }
  return principal;
}

/** Serves route declarations: authenticate, validate path, query and body, run, answer. */
export function mountRoutes(routes: readonly AnyRoute[], deps: { authenticator: Authenticator }): Router {
  const router = Router();
  for (const route of routes) {
    router[route.method](expressPath(route.path), async (req, res) => {
      const principal = await authenticate(route, req, deps.authenticator);
      const params: unknown = route.params ? parseInput(route.params, req.params, 'path') : undefined;
      const query: unknown = route.query ? parseInput(route.query, req.query, 'query') : undefined;
      const body: unknown = route.body ? parseInput(route.body, req.body, 'body') : undefined;
      const result = await route.handler({ params, query, body, principal, req, res });
      for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, value);
      if (result.body === undefined) res.status(result.status).end();
      else res.status(result.status).json(result.body);
    });
  }
  return router;
}
