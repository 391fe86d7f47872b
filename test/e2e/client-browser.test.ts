import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.js';
import { requestJson } from '../helpers/http-json.js';
import { startService, waitFor, type ServiceProcess } from '../helpers/service-process.js';

/**
 * The client library (clients/js), built as published, in a real browser (Debian's Chromium): a page
 * on its own origin loads it as an ES module and sends events to the service with an API key, gzip
 * through the browser's CompressionStream, across origins because CORS_ALLOWED_ORIGINS names the
 * page's. A page of an origin the service does not name cannot, and the client reports the drop.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** A page that sends `count` events with the client and reports what happened in `window.result`. */
const PAGE = `<!doctype html><meta charset="utf-8"><title>client</title>
<script type="module">
  import { EventAlertingClient } from '/client/index.js';
  const params = new URLSearchParams(location.search);
  const drops = [];
  const client = new EventAlertingClient({ baseUrl: params.get('service'), apiKey: params.get('key'), maxRetries: 0, onDrop: (d) => drops.push(d.reason) });
  for (let n = 0; n < 3; n++) client.track({ event: 'browser.event', data: { n, agent: 'chromium' } });
  await client.flush();
  window.result = { dropped: client.dropped, drops };
</script>`;

/** Serves the page and the built client on 127.0.0.1, on an origin of its own. */
async function pageServer(clientDir: string): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    } else if (/^\/client\/[a-z-]+\.js$/.test(url.pathname)) {
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(path.join(clientDir, path.basename(url.pathname))));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('the client library in a browser (Debian Chromium, embedded mode)', () => {
  const clientDir = mkdtempSync(path.join(tmpdir(), 'client-browser-'));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'client-browser-data-'));
  const secret = `svc_cs_${randomBytes(32).toString('base64url')}`;
  let allowed: Awaited<ReturnType<typeof pageServer>>;
  let other: Awaited<ReturnType<typeof pageServer>>;
  let service: ServiceProcess;
  let browser: Browser;

  beforeAll(async () => {
    await promisify(execFile)(path.join(ROOT, 'node_modules/.bin/tsc'), ['-p', path.join(ROOT, 'clients/js/tsconfig.json'), '--outDir', clientDir]);
    allowed = await pageServer(clientDir);
    other = await pageServer(clientDir);
    service = await startService({ DATA_DIR: dataDir, BOOTSTRAP_CLIENT_SECRET: secret, CORS_ALLOWED_ORIGINS: allowed.origin });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await service?.stop();
    await allowed?.close();
    await other?.close();
    rmSync(clientDir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function runPage(origin: string, apiKey: string): Promise<{ dropped: number; drops: string[] }> {
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}/?${new URLSearchParams({ service: service.url, key: apiKey }).toString()}`);
      await page.waitForFunction(() => (globalThis as { result?: unknown }).result !== undefined, undefined, { timeout: 30_000 });
      return await page.evaluate(() => (globalThis as unknown as { result: { dropped: number; drops: string[] } }).result);
    } finally {
      await page.close();
    }
  }

  it('sends events from a page of an allowed origin, and none from another', async () => {
    const auth = { authorization: `Bearer ${secret}` };
    const app = await requestJson(service.url, 'POST', '/v1/apps', auth, { name: 'Browser' });
    expect(app.status).toBe(201);
    const apiKey = app.body.apiKey as string;

    expect(await runPage(allowed.origin, apiKey)).toEqual({ dropped: 0, drops: [] });
    let items: Array<{ event: string; data: { n: number; agent: string } }> = [];
    await waitFor(
      async () => {
        items = (await requestJson(service.url, 'GET', `/v1/apps/${app.body.app.id}/events`, auth)).body.items;
        return items.length >= 3;
      },
      30_000,
      'three events readable',
    );
    expect(items.map((e) => e.data.n).sort()).toEqual([0, 1, 2]);
    expect(items.every((e) => e.event === 'browser.event' && e.data.agent === 'chromium')).toBe(true);

    // The browser refuses to send them for a page the service does not allow; the client reports it.
    expect(await runPage(other.origin, apiKey)).toEqual({ dropped: 3, drops: ['retries_exhausted'] });
    expect((await requestJson(service.url, 'GET', `/v1/apps/${app.body.app.id}/events`, auth)).body.items).toHaveLength(3);
  });
});
