import type { Locator, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { button, cellOf, chooseOption, expectGone, expectVisible, label, link, textOf, until, waitForText } from '../helpers/browser.js';
import { startSmtpReceiver } from '../helpers/receivers.js';
import { ingestAndWait } from './alerting-steps.js';
import {
  deliveryRows,
  eventFilterControls,
  pageNumber,
  ruleEditorControls,
  ruleListControls,
  ruleViaApi,
  schemaControls,
  slackDestination,
  startHookReceiver,
  type HookReceiver,
} from './controls-steps.js';
import { confirm, confirmationDialog, dashboardSuite, openApp, PIPELINE_TIMEOUT_MS, readShownOnce, signIn, urlSafe } from './dashboard-harness.js';
import { definitionOf, expectListed, listedIds } from './overview-steps.js';

/**
 * Every control of docs/dashboard.md that the workflow of dashboard.test.ts does not go through, one
 * screen at a time, each checked for what it does rather than for being there: through the public
 * API (a deleted schema answers 404, a rule switched off stays silent), and through real receivers (a
 * Discord message, an e-mail, a signed webhook). Each test makes its own app through the API and
 * signs in afresh, so any one of them runs alone. Screenshots go to test-artifacts/dashboard-controls/.
 */

const MAIL_FROM = 'alerts@example.com';

describe('dashboard controls, screen by screen (embedded mode, Debian Chromium)', () => {
  let hooks: HookReceiver;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;

  const suite = dashboardSuite('dashboard-controls', {
    async beforeStart({ onCleanup }) {
      hooks = await startHookReceiver();
      onCleanup(() => hooks.close());
      smtp = await startSmtpReceiver();
      onCleanup(() => smtp.close());
      return { SMTP_URL: smtp.url, SMTP_FROM: MAIL_FROM };
    },
  });
  const secret = suite.bootstrapSecret;

  /** A fresh tab, a fresh app named `name` (with a suffix: names are unique in the suite), opened at its tab. */
  async function appAt(name: string, tab: Parameters<typeof openApp>[3]) {
    const ui = await suite.open();
    const appName = `${name} ${urlSafe(6)}`;
    const ctx = await suite.newApp(ui, appName);
    await openApp(ctx, secret, appName, tab);
    return { ...ctx, appName, page: ui.page };
  }

  describe('Apps', () => {
    it('creates an app; Copy puts its API key on the clipboard, and that key ingests', async () => {
      const ui = await suite.open();
      const { page } = ui;
      await ui.context.grantPermissions(['clipboard-read', 'clipboard-write']);
      await signIn(page, secret);
      const appName = `Copy shop ${urlSafe(6)}`;
      await label(page, 'App name').fill(appName);
      await button(page, 'Create app').click();
      const dialog = await expectVisible(page.getByRole('dialog', { name: 'API key', exact: true }));
      const shown = await dialog.getByRole('textbox', { name: 'API key', exact: true }).inputValue();
      await button(dialog, 'Copy').click();
      await waitForText(dialog.getByRole('status'), 'Copied to the clipboard.');
      const copied = await page.evaluate<string>('navigator.clipboard.readText()');
      expect(copied).toBe(shown);
      expect(await readShownOnce(ui, 'API key', 'api-key-copied')).toBe(shown);

      const listed = page.getByRole('listitem').filter({ has: link(page, appName) });
      await waitForText(listed, `${copied.slice(0, 12)}…`);
      const ingested = await suite.http('POST', '/v1/ingest', { 'x-api-key': copied }, { event: 'copied.key' });
      expect(ingested.status).toBe(202);
    });
  });

  describe('Overview', () => {
    it('Refresh reads the totals again; a top event or customer opens exactly its events', async () => {
      const ctx = await appAt('Overview refresh', 'Overview');
      const { page } = ctx;
      const now = Date.now();
      const paid = await ingestAndWait(ctx, [
        { event: 'order.paid', customer_id: 'cus_top', timestamp: new Date(now - 120_000).toISOString() },
        { event: 'order.paid', customer_id: 'cus_top', timestamp: new Date(now - 60_000).toISOString() },
      ]);
      const total = definitionOf(page, 'Total events');
      // The page may have read the totals before or after the events were stored.
      await until('the totals to count two events', () => textOf(total), (t) => t === '2', { act: () => button(page, 'Refresh').click() });

      // The overview does not poll: Refresh is what reads the totals again.
      const [signup] = await ingestAndWait(ctx, [{ event: 'signup', customer_id: 'cus_new', timestamp: new Date(now - 30_000).toISOString() }]);
      await until('Refresh to count the new event', () => textOf(total), (t) => t === '3', { act: () => button(page, 'Refresh').click() });
      expect(await textOf(definitionOf(page, 'Unique customers'))).toBe('2');
      await ctx.ui.step('overview-refreshed');

      await page.getByRole('table', { name: 'Top events', exact: true }).getByRole('link', { name: 'order.paid', exact: true }).click();
      await page.waitForURL(/\/events\?/);
      const query = new URL(page.url()).searchParams;
      expect(query.get('type')).toBe('order.paid');
      expect(Date.parse(query.get('from') ?? '')).toBeLessThan(now - 120_000);
      expect(Date.parse(query.get('to') ?? '')).toBeGreaterThan(now - 30_000);
      await expectListed(page, 'the order.paid events of the range', [...paid].reverse());
      expect(await label(page, 'Event name').inputValue(), 'the filter form shows the URL').toBe('order.paid');

      await page.goBack();
      await page.getByRole('table', { name: 'Top customers', exact: true }).getByRole('link', { name: 'cus_new', exact: true }).click();
      await page.waitForURL(/customer_id=cus_new/);
      await expectListed(page, 'the events of cus_new', [signup!]);
    });
  });

  describe('Schemas', () => {
    it('builds a schema of every field type, enum values and metadata fields; Edit changes it; Delete asks, then deletes', async () => {
      const ctx = await appAt('Schema shop', 'Schemas');
      await schemaControls(ctx);
    });
  });

  describe('Destinations', () => {
    const destinations = (page: Page): Locator => page.getByRole('table', { name: 'Destinations', exact: true });

    /** Add destination, its Type, Label and target (URL, or Email address for e-mail), Save destination. */
    async function addDestination(page: Page, type: string, destinationLabel: string, target: { url?: string; email?: string }): Promise<void> {
      await button(page, 'Add destination').click();
      await chooseOption(label(page, 'Type'), type);
      await label(page, 'Label').fill(destinationLabel);
      if (target.email !== undefined) {
        await expectGone(label(page, 'URL'));
        await label(page, 'Email address').fill(target.email);
      } else {
        await expectGone(label(page, 'Email address'));
        await label(page, 'URL').fill(target.url ?? '');
      }
      await button(page, 'Save destination').click();
      await expectGone(button(page, 'Save destination'));
    }

    it('Discord: saved with its URL; Send test reaches the receiver and makes it Verified', async () => {
      const ctx = await appAt('Discord shop', 'Destinations');
      const { page } = ctx;
      const path = `/ok/${ctx.appId}/discord/token`;
      await addDestination(page, 'Discord', 'Team Discord', { url: `${hooks.baseUrl}${path}` });
      const row = destinations(page).getByRole('row').filter({ hasText: 'Team Discord' });
      await expectVisible(row);
      expect(await textOf(await cellOf(destinations(page), row, 'Type'))).toBe('Discord');
      expect(await textOf(await cellOf(destinations(page), row, 'Status'))).toBe('Not verified');
      await button(page, 'Send test to Team Discord').click();
      await waitForText(await cellOf(destinations(page), row, 'Status'), /^Verified$/);
      await ctx.ui.step('discord-verified');

      const [message, ...more] = hooks.at(path);
      expect(more).toEqual([]);
      const body = JSON.parse(message!.body) as { embeds: Array<{ title: string }> };
      expect(body.embeds).toHaveLength(1);
      expect(body.embeds[0]!.title).toContain('Test alert');
      expect(body.embeds[0]!.title).toContain('Team Discord');
      const listed = (await ctx.api('GET', `/v1/apps/${ctx.appId}/destinations`)).body as any[];
      expect(listed).toEqual([expect.objectContaining({ type: 'discord', label: 'Team Discord', verified: true })]);
    });

    it('Email: the form asks for an Email address; Send test mails it; a new address is unverified until tested', async () => {
      const ctx = await appAt('Mail shop', 'Destinations');
      const { page } = ctx;
      const address = `oncall-${ctx.appId}@example.com`;
      await addDestination(page, 'Email', 'On-call mail', { email: address });
      const table = destinations(page);
      const row = table.getByRole('row').filter({ hasText: 'On-call mail' });
      await expectVisible(row);
      expect(await textOf(await cellOf(table, row, 'Type'))).toBe('Email');
      expect(await textOf(await cellOf(table, row, 'Target'))).toBe(address);
      const mailTo = (to: string) => smtp.received.filter((mail) => JSON.stringify(mail.to ?? '').includes(to));
      await button(page, 'Send test to On-call mail').click();
      await waitForText(await cellOf(table, row, 'Status'), /^Verified$/);
      const [mail] = mailTo(address);
      expect(mail?.subject).toContain('Test alert');
      expect(mail?.subject).toContain('On-call mail');
      expect(JSON.stringify(mail?.from)).toContain(MAIL_FROM);
      await ctx.ui.step('email-verified');

      const moved = `ops-${ctx.appId}@example.com`;
      await button(page, 'Edit On-call mail').click();
      await expectVisible(page.getByRole('heading', { name: 'Edit On-call mail', exact: true }));
      expect(await label(page, 'Email address').inputValue(), 'an address is no secret: the form shows it').toBe(address);
      await label(page, 'Email address').fill(moved);
      await button(page, 'Save destination').click();
      await waitForText(await cellOf(table, row, 'Target'), moved);
      await waitForText(await cellOf(table, row, 'Status'), /^Not verified$/);
      await button(page, 'Send test to On-call mail').click();
      await waitForText(await cellOf(table, row, 'Status'), /^Verified$/);
      expect(mailTo(moved)).toHaveLength(1);
      expect(mailTo(address)).toHaveLength(1);
    });

    it('Webhook: the Signing secret dialog shows the secret once; it verifies the signed test request', async () => {
      const ctx = await appAt('Hook shop', 'Destinations');
      const { page } = ctx;
      const path = `/ok/${ctx.appId}/hook`;
      await button(page, 'Add destination').click();
      await chooseOption(label(page, 'Type'), 'Webhook');
      await label(page, 'Label').fill('Signed hook');
      await label(page, 'URL').fill(`${hooks.baseUrl}${path}`);
      await button(page, 'Save destination').click();
      const signingSecret = await readShownOnce(ctx.ui, 'Signing secret', 'webhook-signing-secret');
      expect(signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      const table = destinations(page);
      const row = table.getByRole('row').filter({ hasText: 'Signed hook' });
      await expectVisible(row);
      // Shown once: neither the page after a reload nor the API has it again.
      await page.reload();
      await expectVisible(row);
      await expect(page.getByRole('dialog', { name: 'Signing secret' }).count()).resolves.toBe(0);
      expect(JSON.stringify((await ctx.api('GET', `/v1/apps/${ctx.appId}/destinations`)).body)).not.toContain(signingSecret);

      await button(page, 'Send test to Signed hook').click();
      await waitForText(await cellOf(table, row, 'Status'), /^Verified$/);
      const [request, ...more] = hooks.at(path);
      expect(more).toEqual([]);
      const headers = Object.fromEntries(Object.entries(request!.headers).map(([k, v]) => [k, String(v)]));
      const payload = new Webhook(signingSecret.slice('whsec_'.length)).verify(request!.body, headers) as { type: string };
      expect(payload.type).toBe('alert.test');
      expect(() => new Webhook(Buffer.from('another secret, not this one').toString('base64')).verify(request!.body, headers)).toThrow();
    });

    it('a failed test shows its reason in the row; Delete asks first, refuses while a rule uses it, then deletes', async () => {
      const ctx = await appAt('Refusing shop', 'Destinations');
      const { page } = ctx;
      await addDestination(page, 'Slack', 'Refusing Slack', { url: `${hooks.baseUrl}/refuse/${ctx.appId}/slack` });
      const table = destinations(page);
      const row = table.getByRole('row').filter({ hasText: 'Refusing Slack' });
      await button(page, 'Send test to Refusing Slack').click();
      await waitForText(row.getByRole('alert'), /400/);
      expect(await textOf(await cellOf(table, row, 'Status'))).toBe('Not verified');
      await ctx.ui.step('destination-test-failed');
      const [destination] = (await ctx.api('GET', `/v1/apps/${ctx.appId}/destinations`)).body as any[];
      expect(destination).toMatchObject({ label: 'Refusing Slack', verified: false });
      const one = `/v1/apps/${ctx.appId}/destinations/${destination.id}`;

      const ruleId = await ruleViaApi(ctx, { name: 'Uses it', eventName: 'order.paid', actions: [{ destinationId: destination.id }] });
      await button(page, 'Delete Refusing Slack').click();
      await confirm(page, 'Delete destination');
      const dialog = confirmationDialog(page, 'Delete destination');
      await waitForText(dialog.getByRole('alert'), 'Uses it');
      await ctx.ui.step('destination-delete-refused');
      await button(dialog, 'Cancel').click();
      await expectGone(page.getByRole('dialog'));
      expect((await ctx.api('GET', one)).status).toBe(200);

      expect((await ctx.api('DELETE', `/v1/apps/${ctx.appId}/notification-rules/${ruleId}`)).status).toBe(204);
      await button(page, 'Delete Refusing Slack').click();
      await confirm(page, 'Delete destination');
      await expectGone(page.getByRole('dialog'));
      await expectVisible(page.getByText(/^No destinations yet/));
      expect((await ctx.api('GET', one)).status).toBe(404);
    });
  });

  describe('Rules', () => {
    it('the editor: Match any, every operator (exists hides the value), Remove condition, Cooldown, Action N enabled, Remove action', async () => {
      const ctx = await appAt('Rule editor shop', 'Rules');
      await ruleEditorControls(ctx, hooks);
    });

    it('the list: Enable <name> switches a rule off (a match then fires nothing) and on; Edit <name>; Snooze for 1 day and Cancel; Delete <name>', async () => {
      const ctx = await appAt('Rule list shop', 'Rules');
      await ruleListControls(ctx, hooks);
    });
  });

  describe('Events', () => {
    it('filters by level, event name, time and customer: the URL holds them, Back returns to the previous ones, Refresh, Details, Back to events', async () => {
      const ctx = await appAt('Filter shop', 'Events');
      await eventFilterControls(ctx);
    });

    it('pages: Next page shows the next 25 events, Previous page the ones before, First page the newest again', async () => {
      const ctx = await appAt('Paging shop', 'Events');
      const { page } = ctx;
      const start = Date.now() - 3_600_000;
      const ticks = Array.from({ length: 55 }, (_, i) => ({ event: 'tick', timestamp: new Date(start + i * 1_000).toISOString(), data: { n: i } }));
      const newestFirst = (await ingestAndWait(ctx, ticks)).reverse();
      const [first, second, third] = [newestFirst.slice(0, 25), newestFirst.slice(25, 50), newestFirst.slice(50)];
      await until('the first page', () => listedIds(page), (listed) => JSON.stringify(listed) === JSON.stringify(first), { act: () => button(page, 'Refresh').click() });
      await expectGone(button(page, 'First page'));
      expect(await textOf(pageNumber(page))).toBe('Page 1');

      await button(page, 'Next page').click();
      await expectListed(page, 'the second page', second);
      expect(await textOf(pageNumber(page))).toBe('Page 2');
      await button(page, 'Next page').click();
      await expectListed(page, 'the third page', third);
      await expectGone(button(page, 'Next page'));
      await ctx.ui.step('events-last-page');
      await button(page, 'Previous page').click();
      await expectListed(page, 'the second page again', second);
      await button(page, 'Next page').click();
      await expectListed(page, 'the third page again', third);
      await button(page, 'First page').click();
      await expectListed(page, 'the first page again', first);
      expect(await textOf(pageNumber(page))).toBe('Page 1');
    });

    it('Send a test event: its level, customer and data arrive as chosen', async () => {
      const ctx = await appAt('Test event shop', 'Events');
      const { page } = ctx;
      await label(page, 'Test event name').fill('cart.abandoned');
      await chooseOption(label(page, 'Test event level'), 'warning');
      await label(page, 'Test customer ID').fill('cus_cart');
      await label(page, 'Test event data (JSON)').fill('{"items": 3}');
      await button(page, 'Send test event').click();
      const accepted = await waitForText(page.getByRole('status').filter({ hasText: 'Test event accepted' }), /[0-9a-f-]{36}/);
      const id = /[0-9a-f-]{36}/.exec(accepted)![0];
      const stored = await until('the test event readable', () => ctx.api('GET', `/v1/apps/${ctx.appId}/events/${id}`), (r) => r.status === 200, {
        timeout: PIPELINE_TIMEOUT_MS,
      });
      expect(stored.body).toMatchObject({ event: 'cart.abandoned', level: 'warning', customer_id: 'cus_cart', data: { items: 3 } });
      await expectListed(page, 'the test event in the list', [id]);
    });
  });

  describe('Deliveries', () => {
    it('the Status filter lists one status only; Next page shows the deliveries after the first 25, First page the first again', async () => {
      const ctx = await appAt('Delivery log shop', 'Deliveries');
      const { page } = ctx;
      const ok = await slackDestination(ctx, hooks, 'Good Slack', `/ok/${ctx.appId}/good`);
      const refusing = await slackDestination(ctx, hooks, 'Bad Slack', `/refuse/${ctx.appId}/bad`);
      await ruleViaApi(ctx, { name: 'Fan out', eventName: 'order.paid', actions: [{ destinationId: ok }, { destinationId: refusing }] });
      // 14 matches, two actions each: 14 deliveries succeed, 14 fail at once (a 400 is not retried).
      expect((await ctx.ingest(Array.from({ length: 14 }, (_, i) => ({ event: 'order.paid', data: { n: i } })))).status).toBe(202);
      await until(
        '28 settled deliveries',
        async () => (await ctx.api('GET', `/v1/apps/${ctx.appId}/deliveries?limit=100`)).body.items as any[],
        (items) => items.length === 28 && items.every((d) => d.status !== 'pending'),
        { timeout: PIPELINE_TIMEOUT_MS, interval: 500 },
      );
      const rows = deliveryRows(page);
      const table = page.getByRole('table', { name: 'Deliveries, newest first', exact: true });
      const statuses = async (): Promise<string[]> =>
        Promise.all(Array.from({ length: await rows.count() }, async (_, i) => textOf(await cellOf(table, rows.nth(i), 'Status'))));

      await until('a full first page of settled deliveries', statuses, (s) => s.length === 25 && !s.includes('pending'), { timeout: PIPELINE_TIMEOUT_MS });
      await button(page, 'Next page').click();
      await until('the three on the second page', statuses, (s) => s.length === 3);
      expect(await textOf(pageNumber(page))).toBe('Page 2');
      await ctx.ui.step('deliveries-second-page');
      await button(page, 'First page').click();
      await until('the first page again', statuses, (s) => s.length === 25);
      expect(await textOf(pageNumber(page))).toBe('Page 1');

      // A status chosen on the second page lists from the first; one page holds each status's 14.
      await button(page, 'Next page').click();
      await until('the second page again', statuses, (s) => s.length === 3);
      for (const status of ['failed', 'succeeded'] as const) {
        await chooseOption(label(page, 'Status'), status);
        await until(`only ${status} deliveries`, statuses, (s) => s.length === 14 && s.every((one) => one === status));
        await expectGone(pageNumber(page));
      }
      const failedRow = rows.first();
      await chooseOption(label(page, 'Status'), 'failed');
      await waitForText(await cellOf(table, failedRow, 'Destination'), /^Bad Slack$/);
      await ctx.ui.step('deliveries-failed-only');
      await chooseOption(label(page, 'Status'), 'pending');
      await expectVisible(page.getByText(/^No pending deliveries\./));
      await chooseOption(label(page, 'Status'), 'Any status');
      await until('every status again', statuses, (s) => s.length === 25 && s.includes('failed') && s.includes('succeeded'));
    });
  });

  describe('Settings', () => {
    it('Save app renames the app and changes its slug; the API answers to the new slug only', async () => {
      const ctx = await appAt('Rename shop', 'Settings');
      const { page } = ctx;
      const before = (await ctx.api('GET', `/v1/apps/${ctx.appId}`)).body;
      const slug = `renamed-${Math.random().toString(36).slice(2, 8)}`;
      await expect(label(page, 'Slug').inputValue()).resolves.toBe(before.slug);
      await label(page, 'App name').fill('Renamed shop');
      await label(page, 'Slug').fill(slug);
      await button(page, 'Save app').click();
      await waitForText(page.getByRole('status').filter({ hasText: 'Saved.' }), 'Saved.');
      await expectVisible(page.getByRole('heading', { name: 'Renamed shop', exact: true, level: 1 }));
      await ctx.ui.step('app-renamed');
      expect((await ctx.api('GET', `/v1/apps/${ctx.appId}`)).body).toMatchObject({ name: 'Renamed shop', slug });
      expect((await ctx.api('GET', `/v1/apps/${slug}`)).body.id).toBe(ctx.appId);
      expect((await ctx.api('GET', `/v1/apps/${before.slug}`)).status).toBe(404);
      await link(page, 'Apps').click();
      await expectVisible(page.getByRole('list').getByRole('link', { name: 'Renamed shop', exact: true }));
    });

    it('default metadata: rows added, typed and removed, then saved; ingested events carry it, their own keys win', async () => {
      const ctx = await appAt('Metadata shop', 'Settings');
      const { page } = ctx;
      await expectVisible(page.getByText('No default metadata.', { exact: true }));
      await button(page, 'Add metadata').click();
      await label(page, 'Metadata 1 key').fill('region');
      await label(page, 'Metadata 1 value').fill('eu');
      await button(page, 'Add metadata').click();
      await label(page, 'Metadata 2 key').fill('tier');
      await chooseOption(label(page, 'Metadata 2 type'), 'number');
      await label(page, 'Metadata 2 value').fill('3');
      await button(page, 'Add metadata').click();
      await label(page, 'Metadata 3 key').fill('scratch');
      await label(page, 'Metadata 3 value').fill('x');
      await button(page, 'Add metadata').click();
      await label(page, 'Metadata 4 key').fill('beta');
      await chooseOption(label(page, 'Metadata 4 type'), 'true or false');
      await chooseOption(label(page, 'Metadata 4 value'), 'true');
      await button(page, 'Remove metadata 3').click();
      await expect(label(page, 'Metadata 3 key').inputValue()).resolves.toBe('beta');
      // A row left without a key is no value: it is not saved.
      await button(page, 'Add metadata').click();
      await label(page, 'Metadata 4 value').fill('orphan');
      await ctx.ui.step('default-metadata-form');
      await button(page, 'Save default metadata').click();
      await waitForText(page.getByRole('status').filter({ hasText: 'Default metadata saved.' }), 'saved');
      expect((await ctx.api('GET', `/v1/apps/${ctx.appId}/default-metadata`)).body).toEqual({ region: 'eu', tier: 3, beta: true });
      // The form now shows what was stored.
      await expectGone(label(page, 'Metadata 4 key'));

      const [plain, own] = await ingestAndWait(ctx, [{ event: 'checkout' }, { event: 'checkout', metadata: { region: 'us' } }]);
      const metadataOf = async (id: string) => (await ctx.api('GET', `/v1/apps/${ctx.appId}/events/${id}`)).body.metadata;
      expect(await metadataOf(plain!)).toEqual({ region: 'eu', tier: 3, beta: true });
      expect(await metadataOf(own!)).toEqual({ region: 'us', tier: 3, beta: true });

      // A saved row removed and saved again is gone for the next events.
      await page.reload();
      await expect(label(page, 'Metadata 1 key').inputValue()).resolves.toBe('region');
      await button(page, 'Remove metadata 1').click();
      await button(page, 'Save default metadata').click();
      await until('region to be gone', async () => (await ctx.api('GET', `/v1/apps/${ctx.appId}/default-metadata`)).body, (m) => JSON.stringify(m) === JSON.stringify({ tier: 3, beta: true }));
      const [after] = await ingestAndWait(ctx, [{ event: 'checkout' }]);
      expect(await metadataOf(after!)).toEqual({ tier: 3, beta: true });
    });

    it('Delete app asks first; confirmed, the app, its API key and its page are gone', async () => {
      const ctx = await appAt('Doomed shop', 'Settings');
      const { page } = ctx;
      await button(page, 'Delete app').click();
      await ctx.ui.step('delete-app-confirm');
      await button(confirmationDialog(page, 'Delete app'), 'Cancel').click();
      await expectGone(page.getByRole('dialog'));
      expect((await ctx.api('GET', `/v1/apps/${ctx.appId}`)).status).toBe(200);

      await button(page, 'Delete app').click();
      await confirm(page, 'Delete app');
      await page.waitForURL((url) => url.pathname === '/');
      await expectVisible(page.getByRole('heading', { name: 'Apps', exact: true }));
      await expectGone(page.getByRole('link', { name: ctx.appName, exact: true }));
      expect((await ctx.api('GET', `/v1/apps/${ctx.appId}`)).status).toBe(404);
      expect((await ctx.ingest({ event: 'after.delete' })).status).toBe(401);
    });
  });

  describe('Client secrets', () => {
    it('a secret created with only read can read but not write; Revoke asks first, then ends it', async () => {
      const ui = await suite.open();
      const { page } = ui;
      await signIn(page, secret);
      await link(page, 'Client secrets').click();
      await expectVisible(page.getByRole('heading', { name: 'Client secrets', exact: true }));
      const secretLabel = `reader ${urlSafe(6)}`;
      await label(page, 'Label').fill(secretLabel);
      const write = page.getByRole('checkbox', { name: 'write', exact: true });
      expect(await write.isChecked(), 'a new secret starts with both scopes').toBe(true);
      await write.uncheck();
      await button(page, 'Create secret').click();
      const reader = await readShownOnce(ui, 'Client secret', 'read-only-secret');
      const table = page.getByRole('table', { name: 'Active client secrets', exact: true });
      const row = table.getByRole('row').filter({ hasText: secretLabel });
      await expectVisible(row);
      expect(await textOf(await cellOf(table, row, 'Scopes'))).toBe('read');
      expect((await suite.http('GET', '/v1/apps', suite.bearer(reader))).status).toBe(200);
      expect((await suite.http('POST', '/v1/apps', suite.bearer(reader), { name: 'Not allowed' })).status).toBe(403);

      await button(page, `Revoke ${secretLabel}`).click();
      await button(confirmationDialog(page, 'Revoke secret'), 'Cancel').click();
      await expectGone(page.getByRole('dialog'));
      expect((await suite.http('GET', '/v1/apps', suite.bearer(reader))).status, 'Cancel revokes nothing').toBe(200);
      await button(page, `Revoke ${secretLabel}`).click();
      await confirm(page, 'Revoke secret');
      await expectGone(row);
      expect((await suite.http('GET', '/v1/apps', suite.bearer(reader))).status).toBe(401);

      await link(page, 'Apps').click();
      await expectVisible(page.getByRole('heading', { name: 'Apps', exact: true }));
    });
  });
});
