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
 * allowed, case is ignored, HEAD is served by a GET route. As in OpenAPI, a concrete path wins over a
 * templated one: `/rules/preview` is served only by its own templates, never by `/rules/{ruleId}`, so
 * `GET /rules/preview` is a 405 when only POST serves it (mount-routes.ts makes Express agree).
 */
export function routeTable(routes: readonly RouteTemplate[]): RouteTable {
  const compiled = routes.map((route) => {
    const parts = route.path.split(/\{[A-Za-z0-9_]+\}/);
    return {
      route,
      method: route.method.toUpperCase(),
      params: parts.length - 1,
      pattern: new RegExp(`^${parts.map(escapeRegExp).join('[^/]+')}/?$`, 'i'),
    };
  });
  /** The templates that serve this path: of those matching it, the ones with the fewest parameters. */
  const servingAt = (path: string) => {
    const matching = compiled.filter((c) => c.pattern.test(path));
    const fewest = Math.min(...matching.map((c) => c.params));
    return matching.filter((c) => c.params === fewest);
  };
  return {
    find(method, path) {
      const wanted = method === 'HEAD' ? ['HEAD', 'GET'] : [method];
      return servingAt(path).find((c) => wanted.includes(c.method))?.route;
    },
    methodsAt(path) {
      const methods = new Set(servingAt(path).map((c) => c.method));
      if (methods.has('GET')) methods.add('HEAD');
      return [...methods].sort();
    },
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
