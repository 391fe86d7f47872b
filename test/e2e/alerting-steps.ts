import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import { button, cellOf, chooseOption, expectGone, expectVisible, label, textOf, until, waitForText } from '../helpers/browser.js';
import type { ReceivedRequest } from '../helpers/receivers.js';
import { openAppTab, PIPELINE_TIMEOUT_MS, type WorkflowContext } from './dashboard-harness.js';

/**
 * The alerting steps of the dashboard workflow (test/e2e/dashboard.test.ts): rule triggers with their
 * live checks, snoozing, and a failed delivery sent again. Each step drives the page by the accessible
 * names of docs/dashboard.md and checks what the screen claims against the API.
 */

/** The editor's dry-run line, once it answers for the draft on screen (not for an earlier one). */
function dryRunLine(page: Page): Locator {
  return page.getByRole('status').filter({ hasText: /^Would have fired/ }).and(page.locator(':not([aria-busy="true"])'));
}

/**
 * Ingests events with the API key and waits until every one of them is readable in the app's list
 * (of `eventName` only, when given: the list shows 100 at most).
 */
export async function ingestAndWait(ctx: WorkflowContext, events: readonly object[], eventName?: string): Promise<string[]> {
  const ingested = await ctx.ingest(events);
  expect(ingested.status).toBe(202);
  const ids = (ingested.body.events as Array<{ id: string }>).map((e) => e.id);
  const filter = eventName === undefined ? '' : `&type=${encodeURIComponent(eventName)}`;
  await until(
    `${events.length} ${eventName ?? ''} events readable`,
    async () => new Set(((await ctx.api('GET', `/v1/apps/${ctx.appId}/events?limit=100${filter}`)).body.items as Array<{ id: string }>).map((e) => e.id)),
    (readable) => ids.every((id) => readable.has(id)),
    { timeout: PIPELINE_TIMEOUT_MS, interval: 250 },
  );
  return ids;
}

/**
 * A threshold rule (count, window, group field) whose template is previewed from the newest stored
 * event and whose dry-run count is predictable from the events sent; then an absence rule.
 */
export async function thresholdAndAbsenceRules(ctx: WorkflowContext, destination: string): Promise<void> {
  const { ui } = ctx;
  const { page } = ui;
  // Seven failed logins in the last half hour, oldest first: three of cus_a, two each of cus_b and
  // cus_c. Three in an hour trigger: ungrouped that happens twice (events 3 and 6), grouped by
  // customer only once (cus_a's third). The newest, which the preview renders, is cus_c's second.
  const start = Date.now() - 30 * 60_000;
  const customers = ['cus_a', 'cus_a', 'cus_a', 'cus_b', 'cus_b', 'cus_c', 'cus_c'];
  await ingestAndWait(
    ctx,
    customers.map((customer, i) => ({
      event: 'login.failed',
      customer_id: customer,
      level: 'warning',
      timestamp: new Date(start + i * 10_000).toISOString(),
      // Markup in event data is text in the preview, never an element.
      data: { ip: `10.0.0.${i + 1}`, agent: '<b>curl</b>' },
    })),
    'login.failed',
  );

  await openAppTab(page, 'Rules');
  await button(page, 'New rule').click();
  await label(page, 'Rule name').fill('Login storm');
  await label(page, 'Event name').fill('login.failed');
  await chooseOption(label(page, 'Trigger'), 'Threshold');
  await expect(label(page, 'Silence (seconds)').count(), 'the silence belongs to absence rules only').resolves.toBe(0);
  // A count the API refuses: its reason, in words, next to the checks.
  await label(page, 'Count').fill('1');
  await label(page, 'Window (seconds)').fill('3600');
  await expectVisible(page.getByRole('alert').filter({ hasText: 'must be a whole number from 2 to 1,000,000' }));
  await ui.step('threshold-rule-invalid-count');
  await label(page, 'Count').fill('3');
  await expectGone(page.getByRole('alert').filter({ hasText: 'must be a whole number from 2' }));
  await waitForText(dryRunLine(page), 'Would have fired 2 times in the last 24 h', PIPELINE_TIMEOUT_MS);
  await label(page, 'Group by').fill('$customer_id');
  await waitForText(dryRunLine(page), 'Would have fired 1 time in the last 24 h (7 of 7 login.failed events matched)', PIPELINE_TIMEOUT_MS);

  if ((await label(page, 'Action 1 destination').count()) === 0) await button(page, 'Add action').click();
  await chooseOption(label(page, 'Action 1 destination'), destination);
  await label(page, 'Action 1 message title').fill('Failed logins for {{customer_id}}');
  await label(page, 'Action 1 message body').fill('{{count}} in {{windowSeconds}} s, last from {{data.ip}} with {{data.agent}}');
  const preview = page.getByRole('region', { name: 'Message preview', exact: true });
  await waitForText(preview, 'Failed logins for cus_c');
  await waitForText(preview, '3 in 3600 s, last from 10.0.0.7 with');
  expect(await textOf(preview)).toContain('curl');
  expect(await preview.locator('b').count(), 'event data is shown as text, never as markup').toBe(0);
  await ui.step('threshold-rule-preview-and-dry-run');
  await button(page, 'Save rule').click();
  await expectGone(button(page, 'Save rule'));

  const rules = page.getByRole('table');
  const stormRow = rules.getByRole('row').filter({ hasText: 'Login storm' });
  await expectVisible(stormRow);
  expect(await textOf(await cellOf(rules, stormRow, 'Trigger'))).toBe('3 matches in 1 h per $customer_id');
  const saved = (await ctx.api('GET', `/v1/apps/${ctx.appId}/notification-rules`)).body as any[];
  expect(saved.find((r) => r.name === 'Login storm')).toMatchObject({
    trigger: { type: 'threshold', count: 3, windowSeconds: 3600, groupBy: '$customer_id' },
    actions: [{ template: { title: 'Failed logins for {{customer_id}}', body: '{{count}} in {{windowSeconds}} s, last from {{data.ip}} with {{data.agent}}' } }],
  });

  // Absence: no heartbeat is stored, so the replay of the last 24 h finds one silence from its start.
  await button(page, 'New rule').click();
  await label(page, 'Rule name').fill('Heartbeat gone');
  await label(page, 'Event name').fill('heartbeat');
  await chooseOption(label(page, 'Trigger'), 'Absence');
  await expect(label(page, 'Count').count(), 'the count belongs to threshold rules only').resolves.toBe(0);
  await label(page, 'Silence (seconds)').fill('600');
  await waitForText(dryRunLine(page), 'Would have fired 1 time in the last 24 h (0 of 0 heartbeat events matched)', PIPELINE_TIMEOUT_MS);
  await ui.step('absence-rule-editor');
  await button(page, 'Save rule').click();
  await expectGone(button(page, 'Save rule'));
  const heartbeatRow = rules.getByRole('row').filter({ hasText: 'Heartbeat gone' });
  await expectVisible(heartbeatRow);
  expect(await textOf(await cellOf(rules, heartbeatRow, 'Trigger'))).toBe('No match for 10 min');
  const absence = ((await ctx.api('GET', `/v1/apps/${ctx.appId}/notification-rules`)).body as any[]).find((r) => r.name === 'Heartbeat gone');
  expect(absence.trigger).toEqual({ type: 'absence', windowSeconds: 600 });
  await ui.step('trigger-rules-listed');
}

/** A `datetime-local` value for an instant, in this machine's time zone (Chromium runs in the same one). */
export function localInputValue(date: Date): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/**
 * Snoozes `rule` for an hour (a match then counts as suppressed and sends nothing), unsnoozes it,
 * then snoozes it until a chosen date, where it stays.
 */
export async function snoozeAndUnsnooze(ctx: WorkflowContext, rule: string, matchingEvent: object, alerts: readonly ReceivedRequest[]): Promise<void> {
  const { ui } = ctx;
  const { page } = ui;
  await openAppTab(page, 'Rules');
  const rules = page.getByRole('table');
  const row = rules.getByRole('row').filter({ hasText: rule });
  await expectVisible(row);
  const readRule = async (): Promise<any> => ((await ctx.api('GET', `/v1/apps/${ctx.appId}/notification-rules`)).body as any[]).find((r) => r.name === rule);
  const before = await readRule();
  expect(before.snoozedUntil).toBeNull();

  const snoozeDialog = page.getByRole('dialog', { name: `Snooze ${rule}`, exact: true });
  await button(page, `Snooze ${rule}`).click();
  await expectVisible(snoozeDialog);
  await ui.step('snooze-dialog');
  const pressed = Date.now();
  await snoozeDialog.getByRole('button', { name: 'Snooze for 1 hour', exact: true }).click();
  await expectGone(snoozeDialog);
  await waitForText(row, 'Snoozed until');
  const snoozed = await readRule();
  const end = Date.parse(snoozed.snoozedUntil);
  expect(end).toBeGreaterThanOrEqual(pressed + 3_600_000 - 5_000);
  expect(end).toBeLessThanOrEqual(Date.now() + 3_600_000 + 5_000);
  await ui.step('rule-snoozed');

  // Snoozed: the match counts, as suppressed, and no alert goes out.
  const alertsBefore = alerts.length;
  const ingested = await ctx.ingest(matchingEvent);
  expect(ingested.status).toBe(202);
  const eventId = ingested.body.events[0].id as string;
  const triggers = await cellOf(rules, row, 'Triggers');
  await waitForText(triggers, `${before.triggerCount + 1} (1 while snoozed)`, PIPELINE_TIMEOUT_MS);
  expect(await readRule()).toMatchObject({ triggerCount: before.triggerCount + 1, suppressedCount: 1 });
  const deliveries = (await ctx.api('GET', `/v1/apps/${ctx.appId}/deliveries?limit=100`)).body.items as any[];
  expect(deliveries.map((d) => d.eventId)).not.toContain(eventId);
  expect(alerts.length).toBe(alertsBefore);
  await ui.step('snoozed-trigger-suppressed');

  await button(page, `Unsnooze ${rule}`).click();
  await expectGone(row.getByText('Snoozed until'));
  await expectGone(button(page, `Unsnooze ${rule}`));
  expect((await readRule()).snoozedUntil).toBeNull();
  await ui.step('rule-unsnoozed');

  // Until a date: two days ahead at 09:30 local time, as the date-time input takes it.
  const until = new Date(Date.now() + 2 * 86_400_000);
  until.setHours(9, 30, 0, 0);
  await button(page, `Snooze ${rule}`).click();
  await expectVisible(snoozeDialog);
  await snoozeDialog.getByLabel('Snooze until', { exact: true }).fill(localInputValue(until));
  await ui.step('snooze-until-date');
  await snoozeDialog.getByRole('button', { name: 'Snooze until that time', exact: true }).click();
  await expectGone(snoozeDialog);
  await waitForText(row, 'Snoozed until');
  expect(Date.parse((await readRule()).snoozedUntil)).toBe(until.getTime());
  await expectVisible(button(page, `Unsnooze ${rule}`));
  await ui.step('rule-snoozed-until-date');
}

/**
 * A delivery to a receiver that answers 400 fails at once; its attempts show why. With the receiver
 * fixed, Retry sends it again, and the log and the attempts show the second, successful attempt.
 */
export async function retryFailedDelivery(
  ctx: WorkflowContext,
  flaky: { readonly baseUrl: string; readonly requests: readonly ReceivedRequest[]; answer(status: number): void },
): Promise<void> {
  const { ui } = ctx;
  const { page } = ui;
  flaky.answer(400);
  const destination = await ctx.api('POST', `/v1/apps/${ctx.appId}/destinations`, {
    type: 'slack',
    label: 'Flaky Slack',
    url: `${flaky.baseUrl}/services/T0FLAKY/B0FLAKY/flaky-webhook-token`,
  });
  expect(destination.status).toBe(201);
  const rule = await ctx.api('POST', `/v1/apps/${ctx.appId}/notification-rules`, {
    name: 'Refunds',
    eventName: 'order.refunded',
    actions: [{ destinationId: destination.body.id }],
  });
  expect(rule.status).toBe(201);
  const ingested = await ctx.ingest({ event: 'order.refunded', customer_id: 'cus_refund', data: { amount: 40 } });
  expect(ingested.status).toBe(202);

  await openAppTab(page, 'Deliveries');
  const log = page.getByRole('table', { name: 'Deliveries, newest first', exact: true });
  const attemptsButton = page.getByRole('button', { name: /^Attempts of the delivery to Flaky Slack at / });
  // The delivery's own row: the one with its buttons (the row of attempts under it names it too).
  const row = log.getByRole('row').filter({ has: attemptsButton });
  await expectVisible(row, PIPELINE_TIMEOUT_MS);
  await waitForText(await cellOf(log, row, 'Status'), /^failed$/, PIPELINE_TIMEOUT_MS);
  // The rule is newer than the rules list the page may hold: the log reads the list again for it.
  await waitForText(await cellOf(log, row, 'Rule'), /^Refunds$/);
  expect(await textOf(await cellOf(log, row, 'Last error'))).toContain('receiver answered HTTP 400');
  expect(flaky.requests).toHaveLength(1);

  await attemptsButton.click();
  const attempts = page.getByRole('table', { name: /^Attempts of the delivery to Flaky Slack at / });
  await expectVisible(attempts);
  // Attempts are listed oldest first, one row each.
  const attemptRow = (n: number) => attempts.locator('tbody > tr').nth(n - 1);
  await expectVisible(attemptRow(1));
  expect(await textOf(await cellOf(attempts, attemptRow(1), 'Outcome'))).toBe('failed');
  expect(await textOf(await cellOf(attempts, attemptRow(1), 'HTTP status'))).toBe('400');
  expect(await textOf(await cellOf(attempts, attemptRow(1), 'Error'))).toContain('receiver answered HTTP 400');
  expect(await textOf(await cellOf(attempts, attemptRow(1), 'Duration'))).toMatch(/^\d+ ms$/);
  await ui.step('delivery-failed-attempts');

  flaky.answer(200);
  await row.getByRole('button', { name: /^Retry the delivery to Flaky Slack at / }).click();
  await waitForText(await cellOf(log, row, 'Status'), /^succeeded$/, PIPELINE_TIMEOUT_MS);
  await expectVisible(attemptRow(2), PIPELINE_TIMEOUT_MS);
  await waitForText(await cellOf(attempts, attemptRow(2), 'Outcome'), /^succeeded$/);
  expect(await textOf(await cellOf(attempts, attemptRow(2), 'HTTP status'))).toBe('200');
  expect(await textOf(await cellOf(attempts, attemptRow(2), 'Error'))).toBe('—');
  await expectGone(row.getByRole('button', { name: /^Retry/ }));
  await ui.step('delivery-retried');

  expect(flaky.requests).toHaveLength(2);
  expect(flaky.requests.map((r) => r.path)).toEqual(['/services/T0FLAKY/B0FLAKY/flaky-webhook-token', '/services/T0FLAKY/B0FLAKY/flaky-webhook-token']);
  const deliveryId = (await ctx.api('GET', `/v1/apps/${ctx.appId}/deliveries?limit=100`)).body.items.find((d: any) => d.destinationId === destination.body.id).id as string;
  const detail = await ctx.api('GET', `/v1/apps/${ctx.appId}/deliveries/${deliveryId}`);
  expect(detail.body).toMatchObject({
    status: 'succeeded',
    attempts: [
      { number: 1, outcome: 'failed', httpStatus: 400 },
      { number: 2, outcome: 'succeeded', httpStatus: 200 },
    ],
  });
}
