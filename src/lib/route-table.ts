/** A path the edge serves, in OpenAPI form (`/v1/apps/{appId}`), as route declarations give it. */
export interface RouteTemplate {
  readonly method: string;
  readonly path: string;
  /** Events arrive through this route: its requests count in eas_events_accepted/rejected_total. */
  readonly ingest?: boolean;
}

export interface RouteTable {
  /** The template a request is served by; undefined when none matches its method and path. */
  find(method: string, path: string): RouteTemplate | undefined;
  /** Every method some template serves at this path (HEAD with GET), for a 405's `Allow`; empty for an unknown path. */
  methodsAt(path: string): string[];
}

/**
 * Templates → a matcher that agrees with Express: `{name}` is one path segment, a trailing slash is
 * allowed, case is ignored, HEAD is served by a GET route.
 */
export function routeTable(routes: readonly RouteTemplate[]): RouteTable {
  const compiled = routes.map((route) => ({
    route,
    method: route.method.toUpperCase(),
    pattern: new RegExp(`^${route.path.split(/\{[A-Za-z0-9_]+\}/).map(escapeRegExp).join('[^/]+')}/?$`, 'i'),
  }));
  return {
    find(method, path) {
      const wanted = method === 'HEAD' ? ['HEAD', 'GET'] : [method];
      return compiled.find((c) => wanted.includes(c.method) && c.pattern.test(path))?.route;
    },
    methodsAt(path) {
      const methods = new Set(compiled.filter((c) => c.pattern.test(path)).map((c) => c.method));
      if (methods.has('GET')) methods.add('HEAD');
      return [...methods].sort();
    },
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
