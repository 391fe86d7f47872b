import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Debian's Chromium (package `chromium`); test/run-all.sh installs it when it is missing. */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Headless, no sandbox (CI runs as root, where Chromium's sandbox refuses to start), and nothing that
 * phones home: no QUIC, background networking, component updates or sync, so the only traffic is the test's.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
] as const;

/** How long one web-first wait (an element showing up, a text appearing) may take before the test fails. */
export const UI_TIMEOUT_MS = 15_000;

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: [...CHROMIUM_ARGS], timeout: 60_000 });
}

/**
 * Where one suite's screenshots and failure logs go. Steps are numbered across the whole suite
 * (`01-sign-in.png`, `02-…`), so a directory listing reads in the order things happened.
 */
export class Artifacts {
  private count = 0;

  constructor(readonly dir: string) {}

  /** `test-artifacts/<name>/`, emptied: a run's artifacts never mix with an earlier run's. */
  static fresh(name: string): Artifacts {
    const dir = path.join(ROOT, 'test-artifacts', name);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    return new Artifacts(dir);
  }

  /** The next numbered file name for `name`, e.g. `07-rule-created.png`. */
  nextFile(name: string, extension: string): string {
    this.count += 1;
    const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
    return path.join(this.dir, `${String(this.count).padStart(2, '0')}-${slug}.${extension}`);
  }

  write(fileName: string, text: string): string {
    const file = path.join(this.dir, fileName);
    writeFileSync(file, text);
    return file;
  }
}

export interface Tab {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Saves a full-page screenshot of the current state as the next numbered artifact. */
  step(name: string): Promise<string>;
  /** Console messages, page errors, failed requests and HTTP errors, in order. */
  consoleLog(): string;
  /** Screenshot plus console log, named after the failed test; never throws (it runs while reporting a failure). */
  saveFailure(testName: string): Promise<void>;
  close(): Promise<void>;
}

/** A fresh context (no cookies, no storage) and one page in it, recording what the page says. */
export async function openTab(
  browser: Browser,
  artifacts: Artifacts,
  options: { baseURL: string; viewport?: { width: number; height: number } },
): Promise<Tab> {
  const context = await browser.newContext({ baseURL: options.baseURL, viewport: options.viewport ?? { width: 1280, height: 900 } });
  context.setDefaultTimeout(UI_TIMEOUT_MS);
  const page = await context.newPage();
  const log: string[] = [];
  const at = (): string => new Date().toISOString();
  page.on('console', (message) => log.push(`${at()} [console.${message.type()}] ${message.text()}`));
  page.on('pageerror', (error) => log.push(`${at()} [pageerror] ${error.stack ?? error.message}`));
  page.on('requestfailed', (request) => log.push(`${at()} [requestfailed] ${request.method()} ${request.url()}: ${request.failure()?.errorText ?? ''}`));
  page.on('response', (response) => {
    if (response.status() >= 400) log.push(`${at()} [http ${response.status()}] ${response.request().method()} ${response.url()}`);
  });

  return {
    context,
    page,
    async step(name) {
      const file = artifacts.nextFile(name, 'png');
      // A modal's backdrop covers the viewport only: a full-page shot would show half a dimmed page.
      const modalOpen = (await page.locator('dialog[open]').count()) > 0;
      await page.screenshot({ path: file, fullPage: !modalOpen });
      return file;
    },
    consoleLog: () => log.join('\n'),
    async saveFailure(testName) {
      const base = `FAILED-${testName.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')}`;
      artifacts.write(`${base}.console.log`, `${page.url()}\n${log.join('\n')}\n`);
      try {
        await page.screenshot({ path: path.join(artifacts.dir, `${base}.png`), fullPage: true, timeout: 10_000 });
      } catch (error) {
        artifacts.write(`${base}.screenshot-error.txt`, String(error));
      }
    },
    async close() {
      await context.close();
    },
  };
}

/** Waits until the locator's first match is visible; the error names what was expected. */
export async function expectVisible(locator: Locator, timeout = UI_TIMEOUT_MS): Promise<Locator> {
  try {
    await locator.first().waitFor({ state: 'visible', timeout });
  } catch (error) {
    throw new Error(`expected ${String(locator)} to be visible within ${timeout} ms`, { cause: error });
  }
  return locator.first();
}

/** Waits until the locator has no visible match (removed or hidden). */
export async function expectGone(locator: Locator, timeout = UI_TIMEOUT_MS): Promise<void> {
  try {
    await locator.first().waitFor({ state: 'hidden', timeout });
  } catch (error) {
    throw new Error(`expected ${String(locator)} to disappear within ${timeout} ms`, { cause: error });
  }
}

const normalise = (text: string | null): string => (text ?? '').replace(/\s+/g, ' ').trim();

/**
 * The text of the locator's first match, whitespace collapsed, or '' while there is none (never waits
 * for it). textContent, not innerText: docs/dashboard.md names words, and innerText would return them
 * as CSS shows them (`text-transform: uppercase` turns `Status` into `STATUS`).
 */
export async function textOf(locator: Locator): Promise<string> {
  const first = locator.first();
  if ((await first.count()) === 0) return '';
  try {
    return normalise(await first.textContent({ timeout: 1_000 }));
  } catch {
    return ''; // detached between count() and textContent(): a re-render; the caller polls again.
  }
}

/**
 * Polls `observe` until `accept` holds and returns that observation; on timeout the error carries the
 * last one. For conditions that are not a single element's visibility (a number in a cell, a request
 * at a receiver). `act`, if given, runs before each look (for example clicking `Refresh`).
 */
export async function until<T>(
  what: string,
  observe: () => Promise<T> | T,
  accept: (value: T) => boolean,
  options: { timeout?: number; interval?: number; act?: () => Promise<void> } = {},
): Promise<T> {
  const timeout = options.timeout ?? UI_TIMEOUT_MS;
  const deadline = Date.now() + timeout;
  let last: T | undefined;
  let lastError: unknown;
  for (;;) {
    try {
      if (options.act) await options.act();
      last = await observe();
      lastError = undefined;
      if (accept(last)) return last;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) break;
    await new Promise((resolve) => setTimeout(resolve, options.interval ?? 250));
  }
  const seen = lastError === undefined ? `last saw ${JSON.stringify(last)}` : `last error: ${lastError instanceof Error ? lastError.message : JSON.stringify(lastError)}`;
  throw new Error(`timed out after ${timeout} ms waiting for ${what}; ${seen}`);
}

/** Waits until the locator's first match shows text matching `expected`; returns that text. */
export async function waitForText(locator: Locator, expected: string | RegExp, timeout = UI_TIMEOUT_MS): Promise<string> {
  const matches = (text: string): boolean => (typeof expected === 'string' ? text.includes(expected) : expected.test(text));
  return until(`${String(locator)} to show ${String(expected)}`, () => textOf(locator), matches, { timeout });
}

/**
 * The cell of `row` under the column headed `column` in the row's table, found by the header's
 * position: tables put `Triggers` and `Last triggered` where they like, the test reads them by name.
 */
export async function cellOf(table: Locator, row: Locator, column: string): Promise<Locator> {
  const headers = (await table.getByRole('columnheader').allTextContents()).map(normalise);
  const index = headers.findIndex((h) => h === column);
  if (index < 0) throw new Error(`no column "${column}" in table; columns are ${JSON.stringify(headers)}`);
  return row.locator(':scope > td, :scope > th').nth(index);
}

/**
 * Selects the option of a `<select>` whose visible text is `text`, ignoring case (docs/dashboard.md
 * names the choices, "Slack" or "greater than", not their capitalisation), or whose value is `text`.
 */
export async function chooseOption(select: Locator, text: string): Promise<void> {
  await select.waitFor({ state: 'visible' });
  const options = await select.locator('option').evaluateAll((nodes) =>
    nodes.map((node) => ({ label: String((node as { textContent: string | null }).textContent ?? '').trim(), value: String((node as { value: string }).value) })),
  );
  const wanted = text.toLowerCase();
  const match = options.find((o) => o.label.toLowerCase() === wanted) ?? options.find((o) => o.value === text);
  if (!match) throw new Error(`${String(select)} has no option "${text}"; options are ${JSON.stringify(options.map((o) => o.label))}`);
  await select.selectOption({ value: match.value });
}

/**
 * The dashboard's controls by their exact accessible names (docs/dashboard.md), within a page or a
 * part of it: an input by its label, a button, a link.
 */
export const label = (scope: Page | Locator, name: string): Locator => scope.getByLabel(name, { exact: true });
export const button = (scope: Page | Locator, name: string): Locator => scope.getByRole('button', { name, exact: true });
export const link = (scope: Page | Locator, name: string): Locator => scope.getByRole('link', { name, exact: true });
