import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_DIR, dashboardRouter } from '../../src/http/dashboard.js';
import { notFoundHandler } from '../../src/http/error-response.js';
import { startApi, type ApiHarness } from '../helpers/api-harness.js';
import { parseMetrics } from '../helpers/prometheus-text.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const INDEX = fileURLToPath(new URL('index.html', DASHBOARD_DIR));
const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

/**
 * test/run-all.sh builds the dashboard before the suites; a run of this file alone builds it when
 * it is missing, so the test never depends on what an earlier run left behind.
 */
function ensureBuilt(): void {
  if (existsSync(INDEX)) return;
  const build = spawnSync(process.execPath, [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--config', 'src/dashboard/vite.config.ts', '--logLevel', 'warn'], {
    cwd: ROOT,
    encoding: 'utf8',
    // vitest sets NODE_ENV=test, with which Vite builds React's development bundle: build what ships.
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (build.status !== 0) throw new Error(`dashboard build failed:\n${build.stdout}${build.stderr}`);
}

function expectSecurityHeaders(headers: Headers): void {
  const csp = headers.get('content-security-policy') ?? '';
  for (const directive of ["default-src 'self'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"]) {
    expect(csp).toContain(directive);
  }
  expect(csp).not.toContain('unsafe-inline');
  expect(headers.get('x-content-type-options')).toBe('nosniff');
  expect(headers.get('referrer-policy')).toBe('no-referrer');
}

function expectJsonNotFound(res: { status: number; body: any; headers: Headers }, urlPath: string): void {
  expect(res.status).toBe(404);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body).toMatchObject({ statusCode: 404, error: 'Not Found', message: 'Resource not found', path: urlPath });
}

describe('dashboard served by the API process', () => {
  let api: ApiHarness;

  beforeAll(async () => {
    ensureBuilt();
    api = await startApi('embedded');
  });
  afterAll(async () => {
    await api?.stop();
  });

  it('answers / with the page, its CSP and no caching of the entry point', async () => {
    const res = await fetch(`${api.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expectSecurityHeaders(res.headers);
    const html = await res.text();
    expect(html).toContain('<div id="root"></div>');
    // Nothing inline: the CSP would block it. Every script is a file of this origin.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\sstyle=/);
  });

  it('answers a deep link that a browser reloads with the same page', async () => {
    const index = readFileSync(INDEX, 'utf8');
    for (const deepLink of ['/apps/5d3c0a1e-2f4b-4c8a-9a7e-1b2c3d4e5f60/rules', '/client-secrets', '/sign-in']) {
      const res = await fetch(`${api.url}${deepLink}`, { headers: HTML });
      expect(res.status, deepLink).toBe(200);
      expectSecurityHeaders(res.headers);
      expect(await res.text()).toBe(index);
    }
    const head = await fetch(`${api.url}/apps/x/events`, { method: 'HEAD', headers: HTML });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('serves the hashed assets with a year-long immutable cache', async () => {
    const html = await (await fetch(`${api.url}/`)).text();
    const script = /<script[^>]*\bsrc="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    const style = /<link[^>]*\bhref="(\/assets\/[^"]+\.css)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect(style).toBeDefined();

    const js = await fetch(`${api.url}${script!}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expectSecurityHeaders(js.headers);
    expect((await js.text()).length).toBeGreaterThan(1000);

    const css = await fetch(`${api.url}${style!}`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);

    // A missing asset is a 404, never the page, even to a client that asks for HTML.
    expectJsonNotFound(await api.request('GET', '/assets/missing-0000.js', { headers: HTML }), '/assets/missing-0000.js');
  });

  it('keeps the JSON 404 of the API and of anything that is not a page navigation', async () => {
    // An unknown API path stays the API's, even when a browser asks for it.
    expectJsonNotFound(await api.request('GET', '/v1/nope'), '/v1/nope');
    expectJsonNotFound(await api.request('GET', '/v1/nope', { headers: HTML }), '/v1/nope');
    // Only GET and HEAD navigations get the page.
    expectJsonNotFound(await api.request('POST', '/apps', { body: { name: 'x' } }), '/apps');
    expectJsonNotFound(await api.request('POST', '/apps', { headers: HTML, body: { name: 'x' } }), '/apps');
    // An API client (Accept: */* or JSON) asking for a path that does not exist.
    expectJsonNotFound(await api.request('GET', '/no-such-path'), '/no-such-path');
    expectJsonNotFound(await api.request('GET', '/no-such-path', { headers: { accept: 'application/json' } }), '/no-such-path');
    // The API's own answers are untouched: no page headers on them.
    const apps = await api.request('GET', '/v1/apps');
    expect(apps.status).toBe(401);
    expect(apps.headers.get('content-security-policy')).toBeNull();
    expect((await api.request('GET', '/healthz', { headers: HTML })).body).toEqual({ status: 'ok' });
  });

  it('counts dashboard requests under one fixed route label, never their paths', async () => {
    await fetch(`${api.url}/apps/some-app/deliveries`, { headers: HTML });
    const samples = [...parseMetrics(await (await fetch(`${api.url}/metrics`)).text()).values()].filter((s) => s.name === 'eas_http_requests_total');
    expect(samples.some((s) => s.labels.route === 'dashboard' && s.labels.status === '200' && s.value > 0)).toBe(true);
    for (const sample of samples) {
      expect(sample.labels.route).not.toMatch(/some-app|client-secrets|sign-in|assets/);
    }
  });
});

describe('dashboard not built', () => {
  const emptyDir = mkdtempSync(path.join(tmpdir(), 'eas-no-dashboard-'));
  let server: Server;
  let url: string;

  beforeAll(async () => {
    const app = express();
    app.use(dashboardRouter({ dir: pathToFileURL(`${emptyDir}/`) }));
    app.use(notFoundHandler);
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(emptyDir, { recursive: true, force: true });
  });

  it('answers / and navigations with a 503 that says how to build it, and the API paths with their 404', async () => {
    for (const [urlPath, headers] of [
      ['/', {}],
      ['/apps/x/rules', HTML],
    ] as const) {
      const res = await fetch(`${url}${urlPath}`, { headers });
      expect(res.status, urlPath).toBe(503);
      expect(await res.json()).toMatchObject({ statusCode: 503, error: 'Service Unavailable', message: expect.stringContaining('npm run build'), path: urlPath });
    }
    const api = await fetch(`${url}/v1/apps`, { headers: HTML });
    expect(api.status).toBe(404);
    expect(await api.json()).toMatchObject({ statusCode: 404, message: 'Resource not found' });
  });
});
