import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { button, chooseOption, expectGone, expectVisible, label, link, until, waitForText } from '../helpers/browser.js';
import { startHttpReceiver, type ReceivedRequest } from '../helpers/receivers.js';
import { ingestAndWait, localInputValue } from './alerting-steps.js';
import { confirm, confirmationDialog, PIPELINE_TIMEOUT_MS, type WorkflowContext } from './dashboard-harness.js';
import { expectListed, listedIds } from './overview-steps.js';

/**
 * The steps of test/e2e/dashboard-controls.test.ts that take more than a screenful, and what its tests
 * build on: a receiver standing in for Slack, Discord and webhook endpoints, and reads of the API that
 * the screens are checked against.
 */

/**
 * One loopback HTTP server for every chat and webhook destination of the suite: a path under
 * `/refuse/` answers 400 (a failure not retried), every other path 200. Each test sends to paths of
 * its own (`/ok/<app id>/<name>`), so it reads only its own requests.
 */
export async function startHookReceiver(): Promise<HookReceiver> {
  const sink = await startHttpReceiver((request) => (request.path.startsWith('/refuse/') ? { status: 400, body: 'invalid_payload' } : { status: 200, body: 'ok' }));
  return { ...sink, at: (path) => sink.requests.filter((r) => r.path === path) };
}

export interface HookReceiver {
  readonly baseUrl: string;
  readonly requests: readonly ReceivedRequest[];
  /** The requests received at exactly `path`, in order. */
  at(path: string): ReceivedRequest[];
  close(): Promise<void>;
}

/** The rule called `name`, as the API lists it. */
export async function ruleNamed(ctx: WorkflowContext, name: string): Promise<any> {
  const rules = await ctx.api('GET', `/v1/apps/${ctx.appId}/notification-rules`);
  expect(rules.status).toBe(200);
  return (rules.body as any[]).find((rule) => rule.name === name);
}

/** Waits until the API counts `count` triggers of the rule `name` (and returns the rule). */
export async function untilTriggered(ctx: WorkflowContext, name: string, count: number): Promise<any> {
  return until(`rule "${name}" to have triggered ${count} time(s)`, () => ruleNamed(ctx, name), (rule) => rule?.triggerCount === count, {
    timeout: PIPELINE_TIMEOUT_MS,
    interval: 250,
  });
}

/** A destination made through the API, for tests about what uses destinations rather than their form. */
export async function slackDestination(ctx: WorkflowContext, hooks: HookReceiver, destinationLabel: string, path: string): Promise<string> {
  const created = await ctx.api('POST', `/v1/apps/${ctx.appId}/destinations`, { type: 'slack', label: destinationLabel, url: `${hooks.baseUrl}${path}` });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as string;
}

/** A rule made through the API. */
export async function ruleViaApi(ctx: WorkflowContext, body: object): Promise<string> {
  const created = await ctx.api('POST', `/v1/apps/${ctx.appId}/notification-rules`, body);
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id as string;
}

/** The rows of the deliveries log that are deliveries (not the attempts opened under one). */
export function deliveryRows(page: Page): Locator {
  return page
    .getByRole('table', { name: 'Deliveries, newest first', exact: true })
    .getByRole('row')
    .filter({ has: page.getByRole('button', { name: /^Attempts of the delivery to / }) });
}

/** The pager's `Page N`. */
export function pageNumber(page: Page): Locator {
  return page.getByRole('navigation', { name: 'Pages', exact: true }).getByText(/^Page \d+$/);
}

/**
 * The conditions of the rule editor's test: one of each operator the API knows, in the words the
 * editor shows them, with the value as typed and as the API should store it (numbers for the
 * comparisons, none for `exists`).
 */
const EVERY_OPERATOR = [
  { field: 'plan', operator: 'equals', typed: 'pro', stored: { operator: 'equals', value: 'pro' } },
  { field: 'plan', operator: 'does not equal', typed: 'free', stored: { operator: 'not_equals', value: 'free' } },
  { field: 'note', operator: 'contains', typed: 'rush', stored: { operator: 'contains', value: 'rush' } },
  { field: 'note', operator: 'does not contain', typed: 'test', stored: { operator: 'not_contains', value: 'test' } },
  { field: 'amount', operator: 'greater than', typed: '100', stored: { operator: 'greater_than', value: 100 } },
  { field: 'amount', operator: 'greater than or equal', typed: '100.5', stored: { operator: 'greater_than_or_equal', value: 100.5 } },
  { field: 'amount', operator: 'less than', typed: '1000', stored: { operator: 'less_than', value: 1000 } },
  { field: 'amount', operator: 'less than or equal', typed: '999', stored: { operator: 'less_than_or_equal', value: 999 } },
  { field: 'coupon', operator: 'exists', typed: undefined, stored: { operator: 'exists' } },
] as const;

/**
 * Fills condition `n` of the open rule editor (adding the row first); a condition without a value
 * (`exists`) must hide its value box, which comes back for any other operator.
 */
async function fillCondition(page: Page, n: number, condition: { readonly field: string; readonly operator: string; readonly typed: string | undefined }): Promise<void> {
  await button(page, 'Add condition').click();
  await label(page, `Condition ${n} field`).fill(condition.field);
  await chooseOption(label(page, `Condition ${n} operator`), condition.operator);
  if (condition.typed === undefined) {
    await expectGone(label(page, `Condition ${n} value`));
    // Not a one-way door: another operator shows the box again, and exists hides it again.
    await chooseOption(label(page, `Condition ${n} operator`), 'equals');
    await expectVisible(label(page, `Condition ${n} value`));
    await chooseOption(label(page, `Condition ${n} operator`), condition.operator);
    await expectGone(label(page, `Condition ${n} value`));
  } else {
    await label(page, `Condition ${n} value`).fill(condition.typed);
  }
}

/** The events of the filter test, each differing from `match` in exactly one filter. */
interface FilterSeeds {
  /** Minute-aligned: the filters' `From` and `To` are whole minutes. */
  readonly base: number;
  /** Ids by name: match, otherName, otherLevel, otherCustomer, beforeFrom, atTo, signup. */
  readonly ids: Readonly<Record<string, string>>;
  /** Every id, newest first, as the unfiltered list shows them. */
  readonly newestFirst: readonly string[];
}

const MINUTE = 60_000;

/**
 * Seven events two hours back: `match` is order.failed, error, cus_1 at base + 3 min; each other one
 * misses the filters `level=error, type=order.failed, customer_id=cus_1, from=base+3min,
 * to=base+10min` in one way only (`atTo` lies on the exclusive end). `signup` has data and metadata to
 * show under `Details`.
 */
async function seedFilterEvents(ctx: WorkflowContext): Promise<FilterSeeds> {
  const base = Math.floor((Date.now() - 2 * 60 * MINUTE) / MINUTE) * MINUTE;
  const at = (minutes: number): string => new Date(base + minutes * MINUTE).toISOString();
  const seeds = {
    beforeFrom: { event: 'order.failed', level: 'error', customer_id: 'cus_1', timestamp: at(2) },
    match: { event: 'order.failed', level: 'error', customer_id: 'cus_1', timestamp: at(3) },
    otherName: { event: 'order.paid', level: 'error', customer_id: 'cus_1', timestamp: at(4) },
    otherLevel: { event: 'order.failed', level: 'warning', customer_id: 'cus_1', timestamp: at(5) },
    otherCustomer: { event: 'order.failed', level: 'error', customer_id: 'cus_2', timestamp: at(6) },
    signup: { event: 'signup', level: 'info', timestamp: at(7), data: { source: 'landing' }, metadata: { campaign: 'spring' } },
    atTo: { event: 'order.failed', level: 'error', customer_id: 'cus_1', timestamp: at(10) },
  };
  const names = Object.keys(seeds);
  const idList = await ingestAndWait(ctx, Object.values(seeds));
  const ids = Object.fromEntries(names.map((name, i) => [name, idList[i]!]));
  // The seeds are listed oldest first.
  return { base, ids, newestFirst: [...idList].reverse() };
}

/**
 * The schema editor with every field type, enum values, metadata fields and removed rows; then `Edit`
 * and `Delete` of the list. Checked through the API and through ingest, which the schema guards.
 */
export async function schemaControls(ctx: WorkflowContext): Promise<void> {
  const { page } = ctx.ui;
  const bySchemaName = `/v1/apps/${ctx.appId}/schemas/by-event-name/invoice.sent`;
  await button(page, 'New schema').click();
  await label(page, 'Event name').fill('invoice.sent');
  await label(page, 'Description').fill('An invoice went out');
  // The editor opens with one empty field; three more, the second of which goes again.
  await label(page, 'Field 1 name').fill('total');
  await chooseOption(label(page, 'Field 1 type'), 'number');
  await label(page, 'Field 1 required').check();
  await button(page, 'Add field').click();
  await label(page, 'Field 2 name').fill('scratch');
  await chooseOption(label(page, 'Field 2 type'), 'string');
  await button(page, 'Add field').click();
  await label(page, 'Field 3 name').fill('paid');
  await chooseOption(label(page, 'Field 3 type'), 'boolean');
  await button(page, 'Add field').click();
  await label(page, 'Field 4 name').fill('channel');
  await expectGone(label(page, 'Field 4 enum values'));
  await chooseOption(label(page, 'Field 4 type'), 'enum');
  await label(page, 'Field 4 enum values').fill('email, post');
  for (const n of [1, 2, 3]) await expect(label(page, `Field ${n} enum values`).count(), 'enum values belong to enum fields only').resolves.toBe(0);
  await button(page, 'Remove field 2').click();
  // The rows after it move up a number.
  await expect(label(page, 'Field 2 name').inputValue()).resolves.toBe('paid');
  await expect(label(page, 'Field 3 enum values').inputValue()).resolves.toBe('email, post');
  await expectGone(label(page, 'Field 4 name'));

  await button(page, 'Add metadata field').click();
  await label(page, 'Metadata field 1 name').fill('region');
  await chooseOption(label(page, 'Metadata field 1 type'), 'enum');
  await label(page, 'Metadata field 1 enum values').fill('eu, us');
  await label(page, 'Metadata field 1 required').check();
  await button(page, 'Add metadata field').click();
  await label(page, 'Metadata field 2 name').fill('tmp');
  await button(page, 'Remove metadata field 2').click();
  await expectGone(label(page, 'Metadata field 2 name'));
  await ctx.ui.step('schema-editor-every-type');
  await button(page, 'Save schema').click();
  await expectGone(button(page, 'Save schema'));
  const item = page.getByRole('listitem').filter({ hasText: 'invoice.sent' });
  await waitForText(item, '3 fields, 1 metadata field · An invoice went out');

  const saved = await ctx.api('GET', bySchemaName);
  expect(saved.status).toBe(200);
  expect(saved.body).toMatchObject({
    description: 'An invoice went out',
    fields: [
      { name: 'total', type: 'number', required: true },
      { name: 'paid', type: 'boolean', required: false },
      { name: 'channel', type: 'enum', required: false, enumValues: ['email', 'post'] },
    ],
    metadataFields: [{ name: 'region', type: 'enum', required: true, enumValues: ['eu', 'us'] }],
  });
  expect(saved.body.fields).toHaveLength(3);
  expect(saved.body.metadataFields).toHaveLength(1);
  // The schema holds at ingest: the required total and region, the enum's values.
  const valid = { event: 'invoice.sent', data: { total: 12, channel: 'post' }, metadata: { region: 'eu' } };
  expect((await ctx.ingest(valid)).status).toBe(202);
  expect((await ctx.ingest({ ...valid, data: { channel: 'fax', total: 12 } })).status).toBe(400);
  expect((await ctx.ingest({ ...valid, metadata: {} })).status).toBe(400);

  // Edit: the name stays, the rest changes.
  await button(item, 'Edit').click();
  await expectVisible(page.getByRole('heading', { name: 'Edit schema invoice.sent', exact: true }));
  expect(await label(page, 'Event name').isEditable(), 'an event name cannot be changed').toBe(false);
  await expect(label(page, 'Field 1 name').inputValue()).resolves.toBe('total');
  await label(page, 'Description').fill('Invoices');
  await label(page, 'Field 2 required').check();
  await button(page, 'Remove field 3').click();
  await ctx.ui.step('schema-edit');
  await button(page, 'Save schema').click();
  await waitForText(item, '2 fields, 1 metadata field · Invoices');
  const edited = (await ctx.api('GET', bySchemaName)).body;
  expect(edited.fields.map((f: any) => [f.name, f.type, f.required])).toEqual([
    ['total', 'number', true],
    ['paid', 'boolean', true],
  ]);
  expect(edited.metadataFields.map((f: any) => f.name)).toEqual(['region']);

  // Delete: Cancel keeps it; the confirm button deletes it.
  await button(item, 'Delete').click();
  await ctx.ui.step('schema-delete-confirm');
  await button(confirmationDialog(page, 'Delete schema'), 'Cancel').click();
  await expectGone(page.getByRole('dialog'));
  expect((await ctx.api('GET', bySchemaName)).status, 'Cancel deletes nothing').toBe(200);
  await button(item, 'Delete').click();
  await confirm(page, 'Delete schema');
  await expectVisible(page.getByText('No schemas yet.', { exact: true }));
  expect((await ctx.api('GET', bySchemaName)).status).toBe(404);
  // Unchecked again: an invoice without a total is accepted.
  expect((await ctx.ingest({ event: 'invoice.sent', data: {} })).status).toBe(202);
}

/**
 * The rule editor's controls that the workflow leaves alone: `Match` any, a condition of every operator,
 * `Remove condition N`, `Cooldown (seconds)`, a second action switched off with `Action N enabled`, and
 * `Remove action N`; the saved rule is checked through the API and by what it does with events.
 */
export async function ruleEditorControls(ctx: WorkflowContext, hooks: HookReceiver): Promise<void> {
  const { page } = ctx.ui;
  const primaryPath = `/ok/${ctx.appId}/primary`;
  const secondaryPath = `/ok/${ctx.appId}/secondary`;
  const primary = await slackDestination(ctx, hooks, 'Primary', primaryPath);
  const secondary = await slackDestination(ctx, hooks, 'Secondary', secondaryPath);
  // A rule of its own event name that the test's last event fires: once it counts, every event
  // before it has been evaluated.
  await ruleViaApi(ctx, { name: 'Sentinel', eventName: 'sentinel.ping', actions: [] });
  // The destinations were made after the tab opened: read them again for the action selects.
  await page.reload();
  await button(page, 'New rule').click();
  await label(page, 'Rule name').fill('Every operator');
  await label(page, 'Event name').fill('order.paid');
  await chooseOption(label(page, 'Match'), 'any');
  // A first condition that goes again, so that the others move up a number.
  await fillCondition(page, 1, { field: 'scratch', operator: 'equals', typed: 'x' });
  for (const [i, condition] of EVERY_OPERATOR.entries()) await fillCondition(page, i + 2, condition);
  await button(page, 'Remove condition 1').click();
  await expect(label(page, 'Condition 1 field').inputValue()).resolves.toBe('plan');
  await expectGone(label(page, `Condition ${EVERY_OPERATOR.length + 1} field`));
  await label(page, 'Cooldown (seconds)').fill('120');

  await button(page, 'Add action').click();
  await chooseOption(label(page, 'Action 1 destination'), 'Primary');
  await label(page, 'Action 1 message title').fill('Coupon {{data.coupon}}');
  await label(page, 'Action 1 message body').fill('From {{customer_id}}');
  await button(page, 'Add action').click();
  await chooseOption(label(page, 'Action 2 destination'), 'Secondary');
  const secondEnabled = page.getByRole('switch', { name: 'Action 2 enabled', exact: true });
  expect(await secondEnabled.isChecked(), 'a new action starts enabled').toBe(true);
  await secondEnabled.uncheck();
  expect(await secondEnabled.isChecked()).toBe(false);
  await button(page, 'Add action').click();
  await button(page, 'Remove action 3').click();
  await expectGone(label(page, 'Action 3 destination'));
  await ctx.ui.step('rule-editor-every-control');
  await button(page, 'Save rule').click();
  await expectGone(button(page, 'Save rule'));
  await expectVisible(page.getByRole('row').filter({ hasText: 'Every operator' }));

  const saved = await ruleNamed(ctx, 'Every operator');
  expect(saved).toMatchObject({ eventName: 'order.paid', match: 'any', cooldownSeconds: 120, enabled: true, trigger: { type: 'every' } });
  expect(saved.conditions.map(({ id: _id, ...condition }: any) => condition)).toEqual(EVERY_OPERATOR.map((c) => ({ field: c.field, ...c.stored })));
  expect(saved.actions).toEqual([
    expect.objectContaining({ destinationId: primary, enabled: true, template: { title: 'Coupon {{data.coupon}}', body: 'From {{customer_id}}' } }),
    expect.objectContaining({ destinationId: secondary, enabled: false }),
  ]);

  // What the rule does: with `any`, an event that only has a coupon matches (exists); one that
  // holds none of the conditions (no amount: every number is above 100 or below 1000) does not; a
  // second match within the cooldown neither sends nor counts; the disabled action sends nothing.
  const none = { event: 'order.paid', customer_id: 'cus_none', data: { plan: 'free', note: 'a test' } };
  const match = { event: 'order.paid', customer_id: 'cus_match', data: { plan: 'free', note: 'a test', coupon: 'SPRING' } };
  expect((await ctx.ingest([none, match, { ...match, customer_id: 'cus_cooled' }, { event: 'sentinel.ping' }])).status).toBe(202);
  await untilTriggered(ctx, 'Sentinel', 1);
  expect((await ruleNamed(ctx, 'Every operator')).triggerCount).toBe(1);
  await until('the alert at the primary destination', () => hooks.at(primaryPath).length, (n) => n === 1, { timeout: PIPELINE_TIMEOUT_MS });
  const alert = hooks.at(primaryPath)[0]!.body;
  expect(alert).toContain('Coupon SPRING');
  expect(alert).toContain('From cus_match');
  expect(hooks.at(secondaryPath), 'a disabled action sends nothing').toEqual([]);
}

/**
 * The rules list: `Enable <name>` off (a match is evaluated and fires nothing) and on again, `Edit <name>`,
 * the snooze dialog's `Cancel` and `Snooze for 1 day`, and `Delete <name>` with its confirmation.
 */
export async function ruleListControls(ctx: WorkflowContext, hooks: HookReceiver): Promise<void> {
  const { page } = ctx.ui;
  const path = `/ok/${ctx.appId}/toggle`;
  const destinationId = await slackDestination(ctx, hooks, 'Toggle Slack', path);
  const ruleId = await ruleViaApi(ctx, { name: 'Toggle me', eventName: 'ping', actions: [{ destinationId }] });
  await ruleViaApi(ctx, { name: 'Sentinel', eventName: 'sentinel.ping', actions: [] });
  const rules = page.getByRole('table', { name: 'Rules', exact: true });
  const row = rules.getByRole('row').filter({ hasText: 'Toggle me' });
  // The rules were made after the tab opened: read them again.
  await page.reload();
  const enable = row.getByRole('switch', { name: 'Enable Toggle me', exact: true });
  await expectVisible(enable);
  expect(await enable.isChecked()).toBe(true);

  await enable.uncheck();
  await until('the API to read the rule as disabled', () => ruleNamed(ctx, 'Toggle me'), (rule) => rule.enabled === false);
  await page.reload();
  await expectVisible(enable);
  expect(await enable.isChecked(), 'the switch shows the stored state').toBe(false);
  await ctx.ui.step('rule-disabled');
  // Off: the match is evaluated (the sentinel after it counts) and fires nothing.
  const [offEvent] = (await ctx.ingest([{ event: 'ping' }, { event: 'sentinel.ping' }])).body.events as Array<{ id: string }>;
  await untilTriggered(ctx, 'Sentinel', 1);
  expect((await ruleNamed(ctx, 'Toggle me')).triggerCount).toBe(0);

  await enable.check();
  await until('the API to read the rule as enabled', () => ruleNamed(ctx, 'Toggle me'), (rule) => rule.enabled === true);
  const onEvent = (await ctx.ingest({ event: 'ping' })).body.events[0].id as string;
  await untilTriggered(ctx, 'Toggle me', 1);
  await until('the alert of the match while on', () => hooks.at(path).length, (n) => n === 1, { timeout: PIPELINE_TIMEOUT_MS });
  const delivered = (await ctx.api('GET', `/v1/apps/${ctx.appId}/deliveries`)).body.items.map((d: any) => d.eventId);
  expect(delivered).toEqual([onEvent]);
  expect(delivered).not.toContain(offEvent!.id);

  // Edit: the editor opens with the rule; what it saves is what the API keeps, the switch untouched.
  await button(page, 'Edit Toggle me').click();
  await expectVisible(page.getByRole('heading', { name: 'Edit rule Toggle me', exact: true }));
  await expect(label(page, 'Rule name').inputValue()).resolves.toBe('Toggle me');
  await expect(label(page, 'Action 1 destination').inputValue()).resolves.toBe(destinationId);
  await label(page, 'Rule name').fill('Toggled');
  await label(page, 'Cooldown (seconds)').fill('30');
  await button(page, 'Save rule').click();
  await expectGone(button(page, 'Save rule'));
  const toggledRow = rules.getByRole('row').filter({ hasText: 'Toggled' });
  await expectVisible(toggledRow);
  expect(await ruleNamed(ctx, 'Toggled')).toMatchObject({ id: ruleId, cooldownSeconds: 30, enabled: true, triggerCount: 1 });

  // Snooze: Cancel changes nothing; Snooze for 1 day snoozes for a day.
  const snoozeDialog = page.getByRole('dialog', { name: 'Snooze Toggled', exact: true });
  await button(page, 'Snooze Toggled').click();
  await button(snoozeDialog, 'Cancel').click();
  await expectGone(snoozeDialog);
  expect((await ruleNamed(ctx, 'Toggled')).snoozedUntil).toBeNull();
  await button(page, 'Snooze Toggled').click();
  const pressed = Date.now();
  await button(snoozeDialog, 'Snooze for 1 day').click();
  await expectGone(snoozeDialog);
  await waitForText(toggledRow, 'Snoozed until');
  const end = Date.parse((await ruleNamed(ctx, 'Toggled')).snoozedUntil);
  expect(end).toBeGreaterThanOrEqual(pressed + 86_400_000 - 5_000);
  expect(end).toBeLessThanOrEqual(Date.now() + 86_400_000 + 5_000);
  await ctx.ui.step('rule-snoozed-for-a-day');

  // Delete: Cancel keeps it; the confirm button deletes it.
  await button(page, 'Delete Toggled').click();
  await button(confirmationDialog(page, 'Delete rule'), 'Cancel').click();
  await expectGone(page.getByRole('dialog'));
  expect((await ctx.api('GET', `/v1/apps/${ctx.appId}/notification-rules/${ruleId}`)).status).toBe(200);
  await button(page, 'Delete Toggled').click();
  await confirm(page, 'Delete rule');
  await expectGone(toggledRow);
  expect((await ctx.api('GET', `/v1/apps/${ctx.appId}/notification-rules/${ruleId}`)).status).toBe(404);
}

/**
 * The Events filters (`Level` with `Any level`, `Event name`, `From`, `To`, `Customer ID`, `Apply filters`):
 * the URL holds them and the list holds exactly the matching seeds; Back returns to the previous ones;
 * `Refresh` shows an event sent meanwhile; `Details` opens and closes; an event's `Back to events`
 * returns to the filtered list.
 */
export async function eventFilterControls(ctx: WorkflowContext): Promise<void> {
  const { page } = ctx.ui;
  const { base, ids, newestFirst } = await seedFilterEvents(ctx);
  const query = () => Object.fromEntries(new URL(page.url()).searchParams);
  await until('every seeded event listed', () => listedIds(page), (listed) => JSON.stringify(listed) === JSON.stringify(newestFirst), {
    act: () => button(page, 'Refresh').click(),
  });

  await chooseOption(label(page, 'Level'), 'error');
  await button(page, 'Apply filters').click();
  await until('the level in the URL', query, (q) => JSON.stringify(q) === JSON.stringify({ level: 'error' }));
  const errors = [ids.atTo, ids.otherCustomer, ids.otherName, ids.match, ids.beforeFrom].map(String);
  await expectListed(page, 'the error events', errors);

  await label(page, 'Event name').fill('order.failed');
  await label(page, 'Customer ID').fill('cus_1');
  await label(page, 'From').fill(localInputValue(new Date(base + 3 * 60_000)));
  await label(page, 'To').fill(localInputValue(new Date(base + 10 * 60_000)));
  await ctx.ui.step('events-every-filter');
  await button(page, 'Apply filters').click();
  const every = {
    level: 'error',
    type: 'order.failed',
    from: new Date(base + 3 * 60_000).toISOString(),
    to: new Date(base + 10 * 60_000).toISOString(),
    customer_id: 'cus_1',
  };
  await until('every filter in the URL', query, (q) => JSON.stringify(q) === JSON.stringify(every));
  // From is inclusive and To exclusive: of the seven only `match` is left.
  await expectListed(page, 'the one event every filter lets through', [ids.match!]);

  // Back: the previous filters, in the URL, the form and the list.
  await page.goBack();
  await until('the previous filters in the URL', query, (q) => JSON.stringify(q) === JSON.stringify({ level: 'error' }));
  await expectListed(page, 'the error events again', errors);
  await until('the form to show the previous filters', () => label(page, 'Event name').inputValue(), (v) => v === '');
  expect(await label(page, 'Level').inputValue()).toBe('error');
  expect(await label(page, 'From').inputValue()).toBe('');

  // Any level takes the level filter away.
  await chooseOption(label(page, 'Level'), 'Any level');
  await label(page, 'Event name').fill('signup');
  await button(page, 'Apply filters').click();
  await until('only the event name in the URL', query, (q) => JSON.stringify(q) === JSON.stringify({ type: 'signup' }));
  await expectListed(page, 'the signup event', [ids.signup!]);

  // The list does not poll: a new event shows after Refresh.
  const [late] = await ingestAndWait(ctx, [{ event: 'signup', data: { source: 'ads' } }]);
  await until('Refresh to list the new event', () => listedIds(page), (listed) => JSON.stringify(listed) === JSON.stringify([late, ids.signup]), {
    act: () => button(page, 'Refresh').click(),
  });

  // Details: the data and metadata under the row, and away again.
  const table = page.getByRole('table', { name: 'Events, newest first', exact: true });
  const signupRow = table.getByRole('row').filter({ has: page.locator(`a[href$="/${ids.signup}"]`) });
  const details = button(signupRow, 'Details');
  await details.click();
  await until('Details to be expanded', () => details.getAttribute('aria-expanded'), (v) => v === 'true');
  await expectVisible(table.getByText('"source": "landing"'));
  await expectVisible(table.getByText('"campaign": "spring"'));
  await ctx.ui.step('event-details');
  await details.click();
  await until('Details to be collapsed', () => details.getAttribute('aria-expanded'), (v) => v === 'false');
  await expectGone(table.getByText('"campaign": "spring"'));

  // The event's page leads back to the list it came from, filters and all.
  await signupRow.getByRole('link').click();
  await expectVisible(page.getByRole('heading', { name: 'Event signup', exact: true }));
  await link(page, 'Back to events').click();
  await until('the list of the event, with its filters', query, (q) => JSON.stringify(q) === JSON.stringify({ type: 'signup' }));
  await expectListed(page, 'the signup events again', [late!, ids.signup!]);
}
