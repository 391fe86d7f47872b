import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { cellOf, expectVisible, textOf, until, waitForText } from '../helpers/browser.js';
import { ingestAndWait } from './alerting-steps.js';
import type { WorkflowContext } from './dashboard-harness.js';

/**
 * The overview steps of the dashboard workflow (test/e2e/dashboard.test.ts): totals and top lists of
 * each range against the events ingested, a bar of the chart opening exactly its events, an event
 * opened by its URL, and the events list on a phone. Every expectation is computed from the events
 * the test ingested itself, never read back from the API the page uses.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

type Level = 'info' | 'warning' | 'error' | 'success';

interface Seed {
  readonly event: string;
  readonly level: Level;
  readonly customer_id?: string;
  readonly timestamp: string;
  readonly data: Record<string, unknown>;
}

/** The overview's ranges: the button's name, its length and its bucket. */
const RANGES = {
  '1 h': { ms: HOUR, bucket: MINUTE },
  '24 h': { ms: DAY, bucket: HOUR },
  '7 d': { ms: 7 * DAY, bucket: HOUR },
  '30 d': { ms: 30 * DAY, bucket: DAY },
} as const;
type RangeName = keyof typeof RANGES;

export interface OverviewSeeds {
  readonly seeds: readonly Seed[];
  readonly ids: readonly string[];
  /** The hour whose events are the only errors: [start, start + 1 h). */
  readonly errorHour: number;
}

/**
 * Ten events at ages far from every range's edges: three 10 minutes old, four in the middle of the
 * hour three hours back (the only errors, two of them), two 3 days old, one 20 days old. So each range
 * holds a known set whatever second the page asks, and the error segment of the 24 h chart is one bar.
 */
export async function seedOverviewEvents(ctx: WorkflowContext): Promise<OverviewSeeds> {
  const now = Date.now();
  const errorHour = Math.floor((now - 3 * HOUR) / HOUR) * HOUR;
  const at = (ms: number, seconds: number): string => new Date(ms + seconds * 1_000).toISOString();
  const recent = now - 10 * MINUTE;
  const midHour = errorHour + 30 * MINUTE;
  const seeds: Seed[] = [
    { event: 'order.paid', level: 'info', customer_id: 'cus_a', timestamp: at(recent, 0), data: { amount: 10 } },
    { event: 'order.paid', level: 'info', customer_id: 'cus_b', timestamp: at(recent, 1), data: { amount: 20 } },
    { event: 'order.slow', level: 'warning', customer_id: 'cus_b', timestamp: at(recent, 2), data: { ms: 3_200 } },
    { event: 'order.failed', level: 'error', customer_id: 'cus_c', timestamp: at(midHour, 0), data: { reason: 'card_declined', attempt: 1 } },
    { event: 'order.failed', level: 'error', customer_id: 'cus_a', timestamp: at(midHour, 1), data: { reason: 'timeout', attempt: 2 } },
    { event: 'order.paid', level: 'success', customer_id: 'cus_a', timestamp: at(midHour, 2), data: { amount: 30 } },
    { event: 'login.failed', level: 'warning', timestamp: at(midHour, 3), data: { ip: '10.0.0.9' } },
    { event: 'order.paid', level: 'info', customer_id: 'cus_d', timestamp: at(now - 3 * DAY, 0), data: { amount: 40 } },
    { event: 'order.refunded', level: 'warning', customer_id: 'cus_d', timestamp: at(now - 3 * DAY, 1), data: { amount: 40 } },
    { event: 'order.paid', level: 'info', customer_id: 'cus_e', timestamp: at(now - 20 * DAY, 0), data: { amount: 50 } },
  ];
  const ids = await ingestAndWait(ctx, seeds.map((seed) => ({ ...seed, metadata: { source: 'e2e-overview' } })));
  return { seeds, ids, errorHour };
}

/** The seeds a range shows: none lies within a bucket of a range's start, so "younger than the range less a bucket" is exact. */
function seedsIn(seeds: readonly Seed[], range: RangeName): Seed[] {
  const { ms, bucket } = RANGES[range];
  return seeds.filter((seed) => Date.now() - Date.parse(seed.timestamp) < ms - bucket);
}

/** `[key, count, lastSeen]` of the most frequent values, largest count first, then by key, as the top lists order them. */
function topOf(seeds: readonly Seed[], key: (seed: Seed) => string | undefined): Array<[string, number, string]> {
  const groups = new Map<string, { count: number; last: string }>();
  for (const seed of seeds) {
    const value = key(seed);
    if (value === undefined) continue;
    const group = groups.get(value) ?? { count: 0, last: seed.timestamp };
    groups.set(value, { count: group.count + 1, last: Date.parse(seed.timestamp) > Date.parse(group.last) ? seed.timestamp : group.last });
  }
  return [...groups]
    .map(([value, g]): [string, number, string] => [value, g.count, g.last])
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 10);
}

/** How the page writes an instant and a share: the reader's locale, asked of the browser itself. */
const localTime = (page: Page, iso: string): Promise<string> => page.evaluate<string>(`new Date(${JSON.stringify(iso)}).toLocaleString()`);
const percent = (page: Page, part: number, whole: number): Promise<string> =>
  whole === 0 ? Promise.resolve('—') : page.evaluate<string>(`(${part} / ${whole}).toLocaleString(undefined, { style: 'percent', maximumFractionDigits: 1 })`);

/** The value of `name` in a description list (the totals, an event's fields): the `dd` after its `dt`. */
export const definitionOf = (page: Page, name: string): Locator =>
  page.getByRole('term').filter({ hasText: new RegExp(`^${name}$`) }).locator('xpath=following-sibling::dd[1]');

/** Rows of a table that are the table's own rows (not the header, nor a closed details row). */
async function tableRows(page: Page, table: Locator, columns: readonly string[]): Promise<string[][]> {
  const rows = table.locator(':scope > tbody > tr:not([hidden])');
  return Promise.all(
    Array.from({ length: await rows.count() }, async (_, i) => Promise.all(columns.map(async (column) => textOf(await cellOf(table, rows.nth(i), column))))),
  );
}

/** Waits until the overview shows `range`'s totals and top lists, computed from the seeds. */
async function expectOverview(ctx: WorkflowContext, seeds: readonly Seed[], range: RangeName): Promise<void> {
  const { page } = ctx.ui;
  const shown = seedsIn(seeds, range);
  const customers = new Set(shown.flatMap((s) => (s.customer_id ? [s.customer_id] : [])));
  const errors = shown.filter((s) => s.level === 'error').length;
  await waitForText(definitionOf(page, 'Total events'), new RegExp(`^${shown.length}$`));
  await waitForText(definitionOf(page, 'Unique customers'), new RegExp(`^${customers.size}$`));
  expect(await textOf(definitionOf(page, 'Error share')), `${range}: the error share`).toBe(await percent(page, errors, shown.length));

  for (const [caption, column, key] of [
    ['Top events', 'Event', (s: Seed) => s.event],
    ['Top customers', 'Customer', (s: Seed) => s.customer_id],
  ] as const) {
    const expected = await Promise.all(topOf(shown, key).map(async ([value, count, last]) => [value, String(count), await localTime(page, last)]));
    const table = page.getByRole('table', { name: caption, exact: true });
    await until(`${range}: the ${caption} list`, () => tableRows(page, table, [column, 'Count', 'Last seen']), (rows) => JSON.stringify(rows) === JSON.stringify(expected));
  }
}

/** The range buttons: one group named `Range`, the chosen one pressed. */
async function chooseRange(page: Page, range: RangeName): Promise<void> {
  const button = page.getByRole('group', { name: 'Range', exact: true }).getByRole('button', { name: range, exact: true });
  await button.click();
  await until(`${range} to be the pressed range`, () => button.getAttribute('aria-pressed'), (pressed) => pressed === 'true');
}

/**
 * The totals and both top lists of every range, switching with the range buttons (the default is
 * 24 h), and the chart drawn without breaking the CSP.
 */
export async function overviewTotalsAndRanges(ctx: WorkflowContext, { seeds }: OverviewSeeds): Promise<void> {
  const { ui } = ctx;
  const { page } = ui;
  await expectVisible(page.getByRole('heading', { name: 'Overview', exact: true }));
  expect(new URL(page.url()).pathname, 'an app opens on its overview').toMatch(/\/overview$/);
  const pressed = page.getByRole('group', { name: 'Range', exact: true }).getByRole('button', { pressed: true });
  expect(await textOf(pressed), 'the default range').toBe('24 h');
  await expectOverview(ctx, seeds, '24 h');
  await errorSegment(page);
  await ui.step('overview');

  for (const range of ['7 d', '30 d', '1 h'] as const) {
    await chooseRange(page, range);
    expect(new URL(page.url()).searchParams.get('range'), 'the range is in the URL').toBe(range.replace(' ', ''));
    await expectOverview(ctx, seeds, range);
  }
  await ui.step('overview-last-hour');
  await chooseRange(page, '24 h');
  await expectOverview(ctx, seeds, '24 h');
}

/**
 * Where the chart drew the error segment: the one rectangle of pixels in the page's `--level-error`
 * colour (the legend is HTML, so the canvas holds no other). Waits until it is drawn.
 */
async function errorSegment(page: Page): Promise<{ x: number; y: number }> {
  const canvas = page.getByRole('img', { name: /^Stacked bar chart of events per/ });
  await expectVisible(canvas);
  // Not over the canvas: a tooltip's colour boxes would be more pixels of the colour.
  await page.mouse.move(0, 0);
  const found = await until(
    'the chart to draw one error segment',
    () =>
      canvas.evaluate((element: any) => {
        const g = globalThis as any;
        const hex = String(g.getComputedStyle(g.document.documentElement).getPropertyValue('--level-error')).trim();
        const [r, gr, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));
        const { width, height } = element as { width: number; height: number };
        const data = element.getContext('2d').getImageData(0, 0, width, height).data as Uint8ClampedArray;
        let [minX, minY, maxX, maxY, count] = [width, height, -1, -1, 0];
        for (let y = 0; y < height; y++) {
          for (let x = 0; x < width; x++) {
            const i = (y * width + x) * 4;
            if (data[i] === r && data[i + 1] === gr && data[i + 2] === b && data[i + 3] === 255) {
              [minX, minY, maxX, maxY, count] = [Math.min(minX, x), Math.min(minY, y), Math.max(maxX, x), Math.max(maxY, y), count + 1];
            }
          }
        }
        const scale = element.getBoundingClientRect().width / width;
        return { count, area: (maxX - minX + 1) * (maxY - minY + 1), x: ((minX + maxX) / 2) * scale, y: ((minY + maxY) / 2) * scale };
      }),
    (region) => region.count > 0,
  );
  expect(found.count, 'the error pixels form one solid rectangle: one segment of one bar').toBe(found.area);
  return { x: found.x, y: found.y };
}

/** The ids of the events list on screen, newest first: each row's time links to `…/events/<id>`. */
export async function listedIds(page: Page): Promise<string[]> {
  const links = page.getByRole('table', { name: 'Events, newest first', exact: true }).getByRole('link');
  return (await links.evaluateAll((nodes) => nodes.map((node) => String((node as { href: string }).href)))).map((href) => href.split('/').pop() ?? '');
}

/** Waits until the events list shows exactly `ids`, in this order. */
export async function expectListed(page: Page, what: string, ids: readonly string[]): Promise<void> {
  await until(what, () => listedIds(page), (listed) => JSON.stringify(listed) === JSON.stringify(ids));
}

/** Newest first, as the list orders them. */
function newestFirst(seeds: readonly Seed[], ids: readonly string[], keep: (seed: Seed) => boolean): string[] {
  return seeds
    .map((seed, i) => ({ seed, id: ids[i]! }))
    .filter(({ seed }) => keep(seed))
    .sort((a, b) => Date.parse(b.seed.timestamp) - Date.parse(a.seed.timestamp))
    .map(({ id }) => id);
}

/**
 * A click on the error segment opens the Events tab on that hour and level (from, to, level in the
 * URL; the filter form shows them); the table under the chart opens the whole hour. Both lists hold
 * exactly the events of the bucket.
 */
export async function barToEvents(ctx: WorkflowContext, { seeds, ids, errorHour }: OverviewSeeds): Promise<void> {
  const { ui } = ctx;
  const { page } = ui;
  const inHour = (seed: Seed): boolean => Date.parse(seed.timestamp) >= errorHour && Date.parse(seed.timestamp) < errorHour + HOUR;

  await page.getByRole('img', { name: /^Stacked bar chart of events per/ }).click({ position: await errorSegment(page) });
  await page.waitForURL(/\/events\?/);
  const query = new URL(page.url()).searchParams;
  expect(Object.fromEntries(query)).toEqual({ from: new Date(errorHour).toISOString(), to: new Date(errorHour + HOUR).toISOString(), level: 'error' });
  await expectListed(page, 'the error events of the hour', newestFirst(seeds, ids, (s) => inHour(s) && s.level === 'error'));
  expect(await page.getByLabel('Level', { exact: true }).inputValue(), 'the filter form shows the URL').toBe('error');
  await ui.step('events-of-a-bar');

  // The same link, shared: a fresh load of the URL shows the same list.
  await page.reload();
  await expectListed(page, 'the error events of the hour, reloaded', newestFirst(seeds, ids, (s) => inHour(s) && s.level === 'error'));

  // Keyboard and screen-reader way: the chart's numbers as a table of links.
  await page.goBack();
  await page.getByText('Event volume as a table', { exact: true }).click();
  await errorSegment(page);
  await ui.step('overview-table');
  const hourEvents = newestFirst(seeds, ids, inHour);
  await page.getByRole('link', { name: new RegExp(`^${hourEvents.length} events in the hour from `) }).click();
  await page.waitForURL(/\/events\?/);
  expect(new URL(page.url()).searchParams.get('level'), 'a bucket total is every level').toBeNull();
  await expectListed(page, 'every event of the hour', hourEvents);
}

/** An event by its URL (`/apps/:appId/events/:eventId`), from the list's link and typed in; an unknown id says so. */
export async function eventByUrl(ctx: WorkflowContext, { seeds, ids }: OverviewSeeds): Promise<void> {
  const { ui } = ctx;
  const { page } = ui;
  const index = seeds.findIndex((s) => s.data.reason === 'card_declined');
  const [seed, id] = [seeds[index]!, ids[index]!];

  // From the list: the row's time is the link.
  const row = page.getByRole('table', { name: 'Events, newest first', exact: true }).getByRole('row').filter({ hasText: seed.customer_id! });
  await row.getByRole('link').click();
  await page.waitForURL(`**/events/${id}`);
  await expectVisible(page.getByRole('heading', { name: `Event ${seed.event}`, exact: true }));

  // Typed in (or shared): a fresh load of the address.
  await page.goto(`/apps/${ctx.appId}/events/${id}`);
  await expectVisible(page.getByRole('heading', { name: `Event ${seed.event}`, exact: true }));
  const field = (name: string) => definitionOf(page, name);
  expect(await textOf(field('Id'))).toBe(id);
  expect(await textOf(field('Event'))).toBe(seed.event);
  expect(await textOf(field('Level'))).toBe(seed.level);
  expect(await textOf(field('Customer ID'))).toBe(seed.customer_id);
  expect(await textOf(field('Timestamp'))).toContain(seed.timestamp);
  expect(await textOf(field('Ingested at'))).toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/);
  await expectVisible(page.getByText('"reason": "card_declined"'));
  await expectVisible(page.getByText('"source": "e2e-overview"'));
  await ui.step('event-page');

  await page.goto(`/apps/${ctx.appId}/events/00000000-0000-7000-8000-000000000000`);
  await expectVisible(page.getByRole('heading', { name: 'No event with that id', exact: true }));
  await ui.step('event-not-found');
  await page.getByRole('link', { name: 'Back to events', exact: true }).click();
  await expectVisible(page.getByRole('table', { name: 'Events, newest first', exact: true }));
}

/**
 * The events list at phone width: every row's time, event name and level lie inside the screen and
 * nothing scrolls sideways, with a long event name and customer id among them.
 */
export async function phoneEventsList(ctx: WorkflowContext): Promise<void> {
  const { ui } = ctx;
  const { page } = ui;
  const viewport = page.viewportSize()!;
  await ingestAndWait(ctx, [
    { event: 'checkout.payment_provider.timeout.retry_budget_exhausted', level: 'error', customer_id: 'cus_with_a_rather_long_identifier_0123456789' },
    { event: 'order.paid', level: 'success', customer_id: 'cus_phone' },
    { event: 'signup', level: 'info' },
  ]);
  await page.getByRole('link', { name: 'Events', exact: true }).click();
  const table = page.getByRole('table', { name: 'Events, newest first', exact: true });
  await until('three events listed', () => table.getByRole('link').count(), (n) => n === 3);

  const rows = table.getByRole('row').filter({ has: page.getByRole('link') });
  for (let i = 0; i < 3; i++) {
    for (const column of ['Time', 'Event', 'Level']) {
      const cell = await cellOf(table, rows.nth(i), column);
      const box = await cell.boundingBox();
      expect(box, `row ${i + 1}'s ${column} is shown`).not.toBeNull();
      expect(box!.x, `row ${i + 1}'s ${column} starts on screen`).toBeGreaterThanOrEqual(0);
      expect(box!.x + box!.width, `row ${i + 1}'s ${column} ends on screen`).toBeLessThanOrEqual(viewport.width);
      expect(await cell.evaluate((el: any) => el.scrollWidth <= el.clientWidth), `row ${i + 1}'s ${column} is not cut off inside its cell`).toBe(true);
    }
  }
  const [pageWidth, screenWidth] = await page.evaluate<[number, number]>('[document.documentElement.scrollWidth, window.innerWidth]');
  expect(pageWidth, 'the events list scrolls sideways on a phone').toBeLessThanOrEqual(screenWidth);
  const region = page.getByRole('region', { name: 'Events, newest first', exact: true });
  expect(await region.evaluate((el: any) => el.scrollWidth <= el.clientWidth), 'the events table scrolls sideways on a phone').toBe(true);
  await ui.step('phone-events-list');

  // The details are one tap away.
  await rows.first().getByRole('link').click();
  await expectVisible(page.getByRole('heading', { name: /^Event / }));
  const [eventWidth, eventScreen] = await page.evaluate<[number, number]>('[document.documentElement.scrollWidth, window.innerWidth]');
  expect(eventWidth, 'the event page scrolls sideways on a phone').toBeLessThanOrEqual(eventScreen);
  await ui.step('phone-event');
}

/**
 * Every Content-Security-Policy violation of the page from now on, as the browser reports it
 * (`securitypolicyviolation`), across navigations and reloads: the chart must draw under the strict CSP.
 */
export async function watchCspViolations(page: Page): Promise<readonly string[]> {
  const violations: string[] = [];
  await page.exposeFunction('e2eCspViolation', (text: string) => violations.push(text));
  await page.addInitScript(
    `document.addEventListener('securitypolicyviolation', (e) => window.e2eCspViolation([e.violatedDirective, e.blockedURI, e.sample].join(' ')))`,
  );
  return violations;
}
