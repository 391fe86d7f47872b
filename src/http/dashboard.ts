import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { Router, type Request, type Response } from 'express';
import { errorBody } from './error-response.js';

/**
 * Where Vite puts the built dashboard (src/dashboard/vite.config.ts). Two levels up from this file
 * is the repository root both from src/http (tsx) and from dist/http (the compiled service).
 */
export const DASHBOARD_DIR = new URL('../../dist/dashboard/', import.meta.url);

/** The `route` label of every dashboard response in the HTTP metrics: one series, whatever the path. */
export const DASHBOARD_ROUTE_LABEL = 'dashboard';

/**
 * The dashboard is one script and one style sheet from this origin and talks to this origin only;
 * nothing inline, no frames, no plugins. A script injected through some rendering bug could neither
 * run inline nor send the client secret anywhere else.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  // For browsers that predate frame-ancestors.
  'X-Frame-Options': 'DENY',
};

/** Vite names these files after their content hash: a new build is a new name, so they never go stale. */
const HASHED_ASSET_CACHE = 'public, max-age=31536000, immutable';
/** index.html names the current hashed files: always revalidated (ETag / Last-Modified make that a 304). */
const ENTRY_CACHE = 'no-cache';

/** Paths that are never the dashboard's, whatever the request accepts: their own 404 stays JSON. */
const NOT_DASHBOARD = /^\/(?:v1|healthz|readyz|metrics)(?:\/|$)/i;

const NOT_BUILT_MESSAGE = 'The dashboard is not built: run `npm run build` (or `npx vite build --config src/dashboard/vite.config.ts`), then reload';

/** Marks a response as the dashboard's: security headers, and its fixed metrics label. */
function asDashboardResponse(res: Response): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
  res.locals.notes = { ...res.locals.notes, routeLabel: DASHBOARD_ROUTE_LABEL };
}

/**
 * A browser navigating (a reload of `/apps/x/rules`, a bookmark) asks for text/html by name. API
 * clients send application/json or accept anything, and keep getting the JSON 404 for a path that
 * does not exist.
 */
function isNavigation(req: Request): boolean {
  return /\btext\/html\b/i.test(req.headers.accept ?? '');
}

function isMissingFile(err: unknown): boolean {
  const code = typeof err === 'object' && err !== null && 'code' in err ? err.code : undefined;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Serves the single-page dashboard from `dir` (docs/decisions/0014-dashboard.md): the hashed files
 * under /assets/ with a year-long cache, any other built file revalidated each time, and index.html
 * for `/` and for every other GET or HEAD navigation outside the API and the probes, so that the
 * dashboard's own routes work on reload. Mounted after the `/v1` routes and only where they are.
 * When nothing is built, `/` and navigations get a 503 that says how to build it.
 */
export function dashboardRouter(options: { readonly dir?: URL } = {}): Router {
  const root = fileURLToPath(options.dir ?? DASHBOARD_DIR);
  const indexFile = path.join(root, 'index.html');
  const router = Router();

  // Outside the dashboard: leave the whole router, on to the JSON 404.
  router.use((req, _res, next) => next(NOT_DASHBOARD.test(req.path) ? 'router' : undefined));

  const staticOptions = { index: false, redirect: false, dotfiles: 'ignore' } as const;
  router.use(
    '/assets',
    express.static(path.join(root, 'assets'), {
      ...staticOptions,
      setHeaders: (res: Response) => {
        asDashboardResponse(res);
        res.setHeader('Cache-Control', HASHED_ASSET_CACHE);
      },
    }),
  );
  router.use(
    express.static(root, {
      ...staticOptions,
      setHeaders: (res: Response) => {
        asDashboardResponse(res);
        res.setHeader('Cache-Control', ENTRY_CACHE);
      },
    }),
  );

  router.use((req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    // A missing asset is a 404, never the page: a script answered with HTML would only confuse.
    if (req.path !== '/' && (!isNavigation(req) || req.path.startsWith('/assets/'))) return next();
    asDashboardResponse(res);
    res.setHeader('Cache-Control', ENTRY_CACHE);
    res.sendFile(indexFile, (err: unknown) => {
      if (!err) return;
      // The client went away part-way through: there is no one left to answer.
      if (res.headersSent) return;
      if (isMissingFile(err)) {
        res.status(503).json(errorBody(503, NOT_BUILT_MESSAGE, req.path));
        return;
      }
      next(err);
    });
  });

  return router;
}
