import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { Artifacts, button, expectGone, expectVisible, label, launchChromium, link, openTab, type Tab } from '../helpers/browser.js';
import { requestJson } from '../helpers/http-json.js';
import { startService, type ServiceProcess } from '../helpers/service-process.js';

/**
 * What the dashboard suites share: a real service process in embedded mode serving the built
 * dashboard, one Chromium, a fresh tab per test (its screenshot and console log saved when the test
 * fails), plain HTTP calls that check what the screen claims, and the dashboard's conventions of
 * docs/dashboard.md (confirmation dialogs, values shown once, the app's tabs).
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DASHBOARD_INDEX = path.join(ROOT, 'dist', 'dashboard', 'index.html');

/** Events and deliveries go through the pipeline; the lists refresh on their own timers. */
export const PIPELINE_TIMEOUT_MS = 30_000;

/** The sentence of every dialog that shows a value once. */
export const SHOWN_ONCE = 'You will not see this again.';

export const urlSafe = (length: number): string => randomBytes(length).toString('base64url').slice(0, length);

export type HttpReply = { status: number; body: any };

/** One app of a test, seen from outside the browser. */
export interface WorkflowContext {
  readonly ui: Tab;
  readonly appId: string;
  /** A plain HTTP call with the client secret: the ground truth the UI is checked against. */
  readonly api: (method: string, urlPath: string, body?: unknown) => Promise<HttpReply>;
  /** Ingest with the app's API key: events come from "the application", not through the page. */
  readonly ingest: (body: unknown) => Promise<HttpReply>;
}

export interface DashboardSuite {
  /** The secret the service was started with (BOOTSTRAP_CLIENT_SECRET); it holds every scope. */
  readonly bootstrapSecret: string;
  /** A plain HTTP call to the service, outside the browser. */
  readonly http: (method: string, urlPath: string, headers: Record<string, string>, body?: unknown) => Promise<HttpReply>;
  readonly bearer: (secret: string) => Record<string, string>;
  /** A fresh browser context and page for this test; closed after it. */
  readonly open: (viewport?: { width: number; height: number }) => Promise<Tab>;
  /** The plain HTTP calls of one app: the API with the bootstrap secret, ingest with the app's key. */
  readonly appContext: (ui: Tab, appId: string, apiKey: string) => WorkflowContext;
  /** A new app made through the API (each test owns its data), with the HTTP calls of it. */
  readonly newApp: (ui: Tab, name: string) => Promise<WorkflowContext & { readonly apiKey: string }>;
  /** Undone after the suite, in reverse order of registration. */
  readonly onCleanup: (cleanup: () => Promise<unknown> | void) => void;
  /** The service's log, for a failure message. */
  readonly serviceLog: () => string;
}

/**
 * Sets up a dashboard suite inside the calling `describe`: the service starts in embedded mode with
 * loopback destinations allowed, plus whatever `beforeStart` returns (it may start receivers first and
 * register their cleanup). Screenshots go to test-artifacts/<name>/.
 */
export function dashboardSuite(
  name: string,
  options: { readonly beforeStart?: (suite: DashboardSuite) => Promise<Record<string, string>> } = {},
): DashboardSuite {
  const bootstrapSecret = `svc_cs_${urlSafe(40)}`;
  let service: ServiceProcess | undefined;
  let browser: Browser | undefined;
  let artifacts: Artifacts | undefined;
  let tab: Tab | undefined;
  /** Undone in reverse order, each one even when an earlier one fails: no service process outlives the suite. */
  const cleanups: Array<() => Promise<unknown> | void> = [];

  const http = (method: string, urlPath: string, headers: Record<string, string>, body?: unknown): Promise<HttpReply> => {
    if (!service) throw new Error('the service is not running');
    return requestJson(service.url, method, urlPath, headers, body);
  };
  const bearer = (secret: string): Record<string, string> => ({ authorization: `Bearer ${secret}` });
  const appContext = (ui: Tab, appId: string, apiKey: string): WorkflowContext => ({
    ui,
    appId,
    api: (method, urlPath, body) => http(method, urlPath, bearer(bootstrapSecret), body),
    ingest: (body) => http('POST', '/v1/ingest', { 'x-api-key': apiKey }, body),
  });

  const suite: DashboardSuite = {
    bootstrapSecret,
    http,
    bearer,
    open: async (viewport) => {
      if (!browser || !service || !artifacts) throw new Error('the suite has not started');
      tab = await openTab(browser, artifacts, { baseURL: service.url, ...(viewport ? { viewport } : {}) });
      return tab;
    },
    appContext,
    newApp: async (ui, appName) => {
      const created = await http('POST', '/v1/apps', bearer(bootstrapSecret), { name: appName });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const apiKey = created.body.apiKey as string;
      return { ...appContext(ui, created.body.app.id as string, apiKey), apiKey };
    },
    onCleanup: (cleanup) => cleanups.push(cleanup),
    serviceLog: () => service?.output() ?? '',
  };

  beforeAll(async () => {
    // Not a skip: a missing build means the dashboard is not shipped, which is a failure.
    if (!existsSync(DASHBOARD_INDEX)) {
      throw new Error(`${path.relative(ROOT, DASHBOARD_INDEX)} is missing: build the dashboard first (npx vite build --config src/dashboard/vite.config.ts)`);
    }
    artifacts = Artifacts.fresh(name);
    const dir = mkdtempSync(path.join(tmpdir(), 'eas-e2e-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const extraEnv = options.beforeStart ? await options.beforeStart(suite) : {};
    const started = await startService({
      DATA_DIR: dir,
      BOOTSTRAP_CLIENT_SECRET: bootstrapSecret,
      OUTBOUND_ALLOW_PRIVATE: 'true',
      // Not quieter: startService waits for the info-level "started" line. The log is saved on failure.
      LOG_LEVEL: 'info',
      ...extraEnv,
    });
    service = started;
    cleanups.push(async () => expect(await started.stop(), 'the service exits cleanly on SIGTERM').toBe(0));
    const chromium = await launchChromium();
    browser = chromium;
    cleanups.push(() => chromium.close());
  });

  afterEach(async ({ task }) => {
    if (!tab) return;
    if (task.result?.state === 'fail') {
      await tab.saveFailure(task.name);
      if (service) artifacts?.write(`FAILED-service.log`, service.output());
    }
    await tab.close();
    tab = undefined;
  });

  afterAll(async () => {
    const errors: unknown[] = [];
    for (const cleanup of cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) throw errors[0];
  });

  return suite;
}

/** Signs in with `secret` and waits for the apps. */
export async function signIn(page: Page, secret: string): Promise<void> {
  await page.goto('/sign-in');
  await label(page, 'Client secret').fill(secret);
  await button(page, 'Sign in').click();
  await expectVisible(page.getByRole('heading', { name: 'Apps', exact: true }));
}

export type AppTab = 'Overview' | 'Schemas' | 'Destinations' | 'Rules' | 'Events' | 'Deliveries' | 'Settings';

/** Opens one of the app's tabs by its link; how a tab shows in the URL is the dashboard's business. */
export async function openAppTab(page: Page, name: AppTab): Promise<void> {
  await link(page, name).click();
}

/** Signs in, opens the app from the apps list and then its tab `name`, as a user would. */
export async function openApp(ctx: WorkflowContext, secret: string, appName: string, name: AppTab): Promise<void> {
  const { page } = ctx.ui;
  await signIn(page, secret);
  await page.getByRole('list').getByRole('link', { name: appName, exact: true }).click();
  await expectVisible(page.getByRole('heading', { name: appName, exact: true }));
  await openAppTab(page, name);
}

/**
 * Reads the value out of a shown-once dialog (`API key`, `Client secret`, `Signing secret`): its text
 * box, the warning and `Copy` are there; `Done` closes it.
 */
export async function readShownOnce(ui: Tab, title: string, stepName: string): Promise<string> {
  const dialog = await expectVisible(ui.page.getByRole('dialog', { name: title, exact: true }));
  const value = await dialog.getByRole('textbox', { name: title, exact: true }).inputValue();
  await expectVisible(dialog.getByText(SHOWN_ONCE, { exact: false }));
  await expectVisible(button(dialog, 'Copy'));
  await ui.step(stepName);
  await button(dialog, 'Done').click();
  await expectGone(ui.page.getByRole('dialog', { name: title, exact: true }));
  return value;
}

/** The modal confirmation dialog that holds the button `confirmName` (and `Cancel`). */
export function confirmationDialog(page: Page, confirmName: string) {
  return page.getByRole('dialog').filter({ has: button(page, confirmName) });
}

/** Confirms the modal confirmation dialog that the last click opened. */
export async function confirm(page: Page, confirmName: string): Promise<void> {
  const dialog = await expectVisible(confirmationDialog(page, confirmName));
  await expectVisible(button(dialog, 'Cancel'));
  await button(dialog, confirmName).click();
}
