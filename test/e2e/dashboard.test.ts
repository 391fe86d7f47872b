import { describe, expect, it } from 'vitest';
import { button, cellOf, chooseOption, expectGone, expectVisible, label, link, textOf, until, waitForText } from '../helpers/browser.js';
import { startHttpReceiver, type ReceivedRequest } from '../helpers/receivers.js';
import { retryFailedDelivery, snoozeAndUnsnooze, thresholdAndAbsenceRules } from './alerting-steps.js';
import { confirm, dashboardSuite, openAppTab, PIPELINE_TIMEOUT_MS, readShownOnce, signIn, urlSafe } from './dashboard-harness.js';
import { barToEvents, eventByUrl, overviewTotalsAndRanges, phoneEventsList, seedOverviewEvents, watchCspViolations } from './overview-steps.js';

/**
 * The whole dashboard workflow (create an app, define schemas, add destinations, create rules, send a
 * test event, threshold and absence rules with their live checks, snooze, retry a failed delivery,
 * manage keys and secrets) in a real browser (Debian's Chromium) against a real service process in
 * embedded mode, with loopback HTTP servers standing in for Slack (one of them refusing at first). Every control is found
 * by the accessible name docs/dashboard.md gives it; every step leaves a screenshot in
 * test-artifacts/dashboard/. What the UI claims (Verified, a trigger count, a delivery) is checked
 * against what really happened: the receiver's requests, and plain HTTP calls with the keys shown.
 * test/e2e/dashboard-controls.test.ts goes through the remaining controls one screen at a time.
 */

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
const APP_NAME = 'Acme Shop';
const EVENT_NAME = 'order.paid';
const DESTINATION = 'Ops Slack';
/** The destination's first label and Slack channel, before it is edited into DESTINATION. */
const DRAFT_DESTINATION = 'Slack draft';
/** The part of the Slack URL that is a credential: the dashboard must never show it. */
const SLACK_PATH_SECRET = 'B0E2E/e2e-webhook-token';
const RULE = 'Big orders';
const SECRET_LABEL = 'ci robot';

interface SlackBody {
  text: string;
  blocks: unknown[];
}

function slackBody(request: ReceivedRequest): SlackBody {
  expect(request.method).toBe('POST');
  expect(String(request.headers['content-type'])).toContain('application/json');
  const body = JSON.parse(request.body) as SlackBody;
  expect(typeof body.text).toBe('string');
  expect(Array.isArray(body.blocks)).toBe(true);
  return body;
}

describe('dashboard, end to end (embedded mode, Debian Chromium)', () => {
  let receiver: Awaited<ReturnType<typeof startHttpReceiver>> | undefined;
  /** A second Slack stand-in whose answer the test changes: 400 (a failure not retried), then 200. */
  let flaky: (Awaited<ReturnType<typeof startHttpReceiver>> & { answer(status: number): void }) | undefined;

  const suite = dashboardSuite('dashboard', {
    async beforeStart({ onCleanup }) {
      const sink = await startHttpReceiver();
      receiver = sink;
      onCleanup(() => sink.close());
      let flakyStatus = 400;
      const flakySink = await startHttpReceiver(() => ({ status: flakyStatus, body: flakyStatus === 200 ? 'ok' : 'invalid_payload' }));
      flaky = { ...flakySink, answer: (status) => (flakyStatus = status) };
      onCleanup(() => flakySink.close());
      return {};
    },
  });
  const { bootstrapSecret, http, bearer, appContext, open } = suite;

  it('runs the whole workflow: app, schema, destination, rule, event, trigger, delivery, rule triggers and checks, snooze, retry, key rotation, client secrets', async () => {
    const ui = await open();
    const { page } = ui;

    // --- Sign in -------------------------------------------------------------------------------
    await page.goto('/');
    await page.waitForURL('**/sign-in');
    const secretField = await expectVisible(label(page, 'Client secret'));
    expect(await secretField.getAttribute('type')).toBe('password');
    await ui.step('sign-in');
    await secretField.fill(bootstrapSecret);
    await button(page, 'Sign in').click();
    await expectVisible(page.getByRole('heading', { name: 'Apps', exact: true }));
    await expectVisible(link(page, 'Apps'));
    await expectVisible(link(page, 'Client secrets'));
    await expectVisible(button(page, 'Sign out'));
    // The secret lives in sessionStorage only: never localStorage, never a cookie.
    expect(await page.evaluate<string>('JSON.stringify(sessionStorage)')).toContain(bootstrapSecret);
    expect(await page.evaluate<string>('JSON.stringify(localStorage)')).not.toContain(bootstrapSecret);
    expect(JSON.stringify(await ui.context.cookies())).not.toContain(bootstrapSecret);
    await ui.step('signed-in');

    // --- Create an app: its API key is shown once ----------------------------------------------
    await label(page, 'App name').fill(APP_NAME);
    await button(page, 'Create app').click();
    const firstKey = await readShownOnce(ui, 'API key', 'app-created-api-key');
    expect(firstKey).toMatch(/^svc_live_[A-Za-z0-9_-]{32,}$/);
    const appLink = await expectVisible(page.getByRole('list').getByRole('link', { name: APP_NAME }));
    await expectVisible(page.getByRole('listitem').filter({ hasText: APP_NAME }).getByText(`${firstKey.slice(0, 12)}…`));
    await ui.step('app-listed');
    await appLink.click();
    await expectVisible(page.getByRole('heading', { name: APP_NAME, exact: true }));
    const appId = /\/apps\/([^/?#]+)/.exec(new URL(page.url()).pathname)?.[1] ?? '';
    expect(appId).not.toBe('');
    for (const name of ['Overview', 'Schemas', 'Destinations', 'Rules', 'Events', 'Deliveries', 'Settings']) await expectVisible(link(page, name));

    // --- Schemas: order.paid with a required number and an enum ----------------------------------
    await openAppTab(page, 'Schemas');
    await button(page, 'New schema').click();
    await label(page, 'Event name').fill(EVENT_NAME);
    await label(page, 'Description').fill('A paid order');
    // The editor may open with an empty first row or none: add one only when it is not there.
    if ((await label(page, 'Field 1 name').count()) === 0) await button(page, 'Add field').click();
    await label(page, 'Field 1 name').fill('amount');
    await chooseOption(label(page, 'Field 1 type'), 'number');
    await label(page, 'Field 1 required').check();
    await button(page, 'Add field').click();
    await label(page, 'Field 2 name').fill('plan');
    await chooseOption(label(page, 'Field 2 type'), 'enum');
    await label(page, 'Field 2 enum values').fill('free, pro, enterprise');
    await expect(label(page, 'Field 1 enum values').count(), 'enum values are shown for enum fields only').resolves.toBe(0);
    await ui.step('schema-editor');
    await button(page, 'Save schema').click();
    await expectGone(button(page, 'Save schema'));
    await expectVisible(page.getByText(EVENT_NAME, { exact: true }));
    await expectVisible(page.getByRole('button', { name: 'Edit' }));
    await ui.step('schema-listed');
    const schemas = await http('GET', `/v1/apps/${appId}/schemas`, bearer(bootstrapSecret));
    expect(schemas.status).toBe(200);
    expect(schemas.body).toEqual([
      expect.objectContaining({
        eventName: EVENT_NAME,
        fields: [
          expect.objectContaining({ name: 'amount', type: 'number', required: true }),
          expect.objectContaining({ name: 'plan', type: 'enum', enumValues: ['free', 'pro', 'enterprise'] }),
        ],
      }),
    ]);

    // --- Destinations: the local receiver as Slack; Send test makes it Verified ------------------
    await openAppTab(page, 'Destinations');
    await button(page, 'Add destination').click();
    await chooseOption(label(page, 'Type'), 'Slack');
    await label(page, 'Label').fill(DRAFT_DESTINATION);
    await label(page, 'URL').fill(`${receiver!.baseUrl}/services/T0DRAFT/${SLACK_PATH_SECRET}`);
    await ui.step('destination-form');
    await button(page, 'Save destination').click();
    const destinations = page.getByRole('table');
    const draftRow = destinations.getByRole('row').filter({ hasText: DRAFT_DESTINATION });
    await expectVisible(draftRow);
    await waitForText(await cellOf(destinations, draftRow, 'Status'), /^Not verified/);
    expect(await textOf(await cellOf(destinations, draftRow, 'Type'))).toMatch(/^slack$/i);
    expect(await page.locator('body').textContent(), 'the webhook URL is a secret: only its masked form is shown').not.toContain(SLACK_PATH_SECRET);
    await ui.step('destination-added');
    expect(receiver!.requests).toHaveLength(0);
    await button(page, `Send test to ${DRAFT_DESTINATION}`).click();
    await waitForText(await cellOf(destinations, draftRow, 'Status'), /^Verified/);
    await ui.step('destination-verified');
    expect(receiver!.requests).toHaveLength(1);
    expect(slackBody(receiver!.requests[0]!).text).toContain('Test alert');
    expect(receiver!.requests[0]!.path).toBe(`/services/T0DRAFT/${SLACK_PATH_SECRET}`);

    // --- Editing it: a new label and a new channel; the new URL is unverified until tested -------
    await button(page, `Edit ${DRAFT_DESTINATION}`).click();
    await expectVisible(page.getByRole('heading', { name: `Edit ${DRAFT_DESTINATION}`, exact: true }));
    expect(await label(page, 'Type').isDisabled(), 'a destination keeps its type').toBe(true);
    expect(await label(page, 'URL').inputValue(), 'the secret URL is never put back into the page').toBe('');
    expect(await page.locator('body').textContent()).not.toContain(SLACK_PATH_SECRET);
    await label(page, 'Label').fill(DESTINATION);
    await label(page, 'URL').fill(`${receiver!.baseUrl}/services/T0E2E/${SLACK_PATH_SECRET}`);
    await ui.step('destination-edit');
    await button(page, 'Save destination').click();
    const destinationRow = destinations.getByRole('row').filter({ hasText: DESTINATION });
    await expectVisible(destinationRow);
    await expectGone(draftRow);
    await waitForText(await cellOf(destinations, destinationRow, 'Status'), /^Not verified/);
    await button(page, `Send test to ${DESTINATION}`).click();
    await waitForText(await cellOf(destinations, destinationRow, 'Status'), /^Verified/);
    await ui.step('destination-edited');
    expect(receiver!.requests).toHaveLength(2);
    expect(slackBody(receiver!.requests[1]!).text).toContain('Test alert');
    expect(receiver!.requests[1]!.path).toBe(`/services/T0E2E/${SLACK_PATH_SECRET}`);
    const destinationsNow = await http('GET', `/v1/apps/${appId}/destinations`, bearer(bootstrapSecret));
    expect(destinationsNow.body).toEqual([expect.objectContaining({ label: DESTINATION, type: 'slack', verified: true })]);

    // --- Rules: amount > 100 on order.paid, to the Slack destination ---------------------------
    await openAppTab(page, 'Rules');
    await button(page, 'New rule').click();
    await label(page, 'Rule name').fill(RULE);
    await label(page, 'Event name').fill(EVENT_NAME);
    await chooseOption(label(page, 'Match'), 'all');
    if ((await label(page, 'Condition 1 field').count()) === 0) await button(page, 'Add condition').click();
    await label(page, 'Condition 1 field').fill('amount');
    await chooseOption(label(page, 'Condition 1 operator'), 'greater than');
    await label(page, 'Condition 1 value').fill('100');
    if ((await label(page, 'Action 1 destination').count()) === 0) await button(page, 'Add action').click();
    await chooseOption(label(page, 'Action 1 destination'), DESTINATION);
    const actionEnabled = page.getByRole('switch', { name: 'Action 1 enabled', exact: true });
    await actionEnabled.check();
    expect(await actionEnabled.isChecked()).toBe(true);
    await expectVisible(label(page, 'Cooldown (seconds)'));
    await ui.step('rule-editor');
    await button(page, 'Save rule').click();
    await expectGone(button(page, 'Save rule'));
    const rules = page.getByRole('table');
    const ruleRow = rules.getByRole('row').filter({ hasText: RULE });
    await expectVisible(ruleRow);
    expect(await textOf(await cellOf(rules, ruleRow, 'Event'))).toBe(EVENT_NAME);
    expect(await textOf(await cellOf(rules, ruleRow, 'Triggers'))).toBe('0');
    expect(await textOf(await cellOf(rules, ruleRow, 'Last triggered'))).toBe('Never');
    expect(await page.getByRole('switch', { name: `Enable ${RULE}`, exact: true }).isChecked()).toBe(true);
    await ui.step('rule-listed');

    // --- Events: one matching and one non-matching test event ----------------------------------
    await openAppTab(page, 'Events');
    const accepted = page.getByRole('status').filter({ hasText: 'Test event accepted' });
    async function sendTestEvent(customer: string, data: string, previousId?: string): Promise<string> {
      await label(page, 'Test event name').fill(EVENT_NAME);
      await label(page, 'Test customer ID').fill(customer);
      await label(page, 'Test event data (JSON)').fill(data);
      await button(page, 'Send test event').click();
      const text = await until(
        `"Test event accepted" with a new event id`,
        () => textOf(accepted),
        (t) => UUID.test(t) && UUID.exec(t)![0] !== previousId,
      );
      return UUID.exec(text)![0];
    }
    await expect(label(page, 'Test event data (JSON)').inputValue(), 'the data box starts as an empty object').resolves.toBe('{}');
    const bigId = await sendTestEvent('cus_big', '{"amount": 250, "plan": "pro"}');
    await ui.step('test-event-accepted');
    const smallId = await sendTestEvent('cus_small', '{"amount": 5, "plan": "free"}', bigId);
    expect(smallId).not.toBe(bigId);

    const events = page.getByRole('table');
    const bigRow = events.getByRole('row').filter({ hasText: 'cus_big' });
    const smallRow = events.getByRole('row').filter({ hasText: 'cus_small' });
    await until('both test events in the explorer', async () => (await bigRow.count()) + (await smallRow.count()), (n) => n === 2, {
      timeout: PIPELINE_TIMEOUT_MS,
      interval: 500,
      // The explorer is not required to refresh itself: ask it, as a user would.
      act: () => button(page, 'Refresh').click(),
    });
    expect(await textOf(await cellOf(events, bigRow, 'Event'))).toBe(EVENT_NAME);
    await ui.step('events-in-explorer');
    await bigRow.getByRole('button', { name: 'Details' }).click();
    await expectVisible(page.getByText('"amount": 250'));
    await expectVisible(page.getByText('"plan": "pro"'));
    await ui.step('event-details');

    // --- Rules again: the trigger count rises to 1; then, with the tab left open, to 2 --------------
    await openAppTab(page, 'Rules');
    await expectVisible(ruleRow);
    const triggers = async (): Promise<string> => textOf(await cellOf(rules, ruleRow, 'Triggers'));
    await until('the rule to show 1 trigger', triggers, (t) => t === '1', { timeout: PIPELINE_TIMEOUT_MS });
    const lastTriggered = await textOf(await cellOf(rules, ruleRow, 'Last triggered'));
    expect(lastTriggered).not.toBe('Never');
    expect(lastTriggered).not.toBe('');
    await ui.step('rule-triggered');
    // Opening the tab fetched the count; this shows the list refreshing itself while it stays open.
    // The event comes from "the application", with the API key, while nobody touches the page.
    const ingested = await http('POST', '/v1/ingest', { 'x-api-key': firstKey }, { event: EVENT_NAME, customer_id: 'cus_api', data: { amount: 300, plan: 'enterprise' } });
    expect(ingested.status).toBe(202);
    const apiEventId = ingested.body.events[0].id as string;
    await until('the open rules list to show 2 triggers', triggers, (t) => t === '2', { timeout: PIPELINE_TIMEOUT_MS });
    await ui.step('rule-triggered-again');

    // --- Deliveries: both alerts went out and the log says so -----------------------------------
    await openAppTab(page, 'Deliveries');
    const deliveries = page.getByRole('table');
    const succeededRows = deliveries.getByRole('row').filter({ hasText: 'succeeded' });
    await until('two succeeded deliveries in the log', () => succeededRows.count(), (n) => n === 2, { timeout: PIPELINE_TIMEOUT_MS });
    for (const column of ['Status', 'Rule', 'Destination', 'Attempts']) {
      const cells = await Promise.all([0, 1].map(async (i) => textOf(await cellOf(deliveries, succeededRows.nth(i), column))));
      const expected = { Status: 'succeeded', Rule: RULE, Destination: DESTINATION, Attempts: '1' }[column];
      expect(cells, `the deliveries' ${column} column`).toEqual([expected, expected]);
    }
    await ui.step('deliveries-succeeded');
    await until('both alerts at the receiver', () => receiver!.requests.length, (n) => n >= 4);
    const alerts = receiver!.requests.slice(2).map(slackBody);
    for (const alert of alerts) {
      expect(alert.text).toContain(RULE);
      expect(alert.text).not.toContain('Test alert');
    }
    // One alert per matching event, whichever arrived first: the amounts are in their data lists.
    const amounts = alerts.map((a) => /\*amount\*: (\d+)/.exec(JSON.stringify(a.blocks))?.[1]);
    expect(amounts.sort()).toEqual(['250', '300']);
    // Only the matching events fired: the API agrees with the screen, and nothing else reached Slack.
    const rulesNow = await http('GET', `/v1/apps/${appId}/notification-rules`, bearer(bootstrapSecret));
    expect(rulesNow.body).toEqual([expect.objectContaining({ name: RULE, triggerCount: 2 })]);
    expect(receiver!.requests).toHaveLength(4);
    const deliveriesNow = await http('GET', `/v1/apps/${appId}/deliveries`, bearer(bootstrapSecret));
    expect(deliveriesNow.body.items.map((d: any) => [d.eventId, d.status]).sort()).toEqual(
      [
        [bigId, 'succeeded'],
        [apiEventId, 'succeeded'],
      ].sort(),
    );
    expect(deliveriesNow.body.items.map((d: any) => d.eventId)).not.toContain(smallId);

    // --- Triggers, templates and checks; snooze; a failed delivery sent again (./alerting-steps.ts) ---
    const alerting = appContext(ui, appId, firstKey);
    await thresholdAndAbsenceRules(alerting, DESTINATION);
    await snoozeAndUnsnooze(alerting, RULE, { event: EVENT_NAME, customer_id: 'cus_snoozed', data: { amount: 500, plan: 'pro' } }, receiver!.requests);
    await retryFailedDelivery(alerting, flaky!);
    // Nothing of this reached the first Slack stand-in: the threshold was never reached live, and
    // the one match of the snoozed rule was suppressed.
    expect(receiver!.requests).toHaveLength(4);

    // --- Settings: regenerate the API key; the old one stops working at once --------------------
    await openAppTab(page, 'Settings');
    await expectVisible(page.getByText(`${firstKey.slice(0, 12)}…`));
    // Every section has loaded (the default metadata comes with its own request) before the picture.
    await expectVisible(button(page, 'Save default metadata'));
    await ui.step('settings');
    await button(page, 'Regenerate API key').click();
    await ui.step('regenerate-confirm');
    await confirm(page, 'Regenerate');
    const secondKey = await readShownOnce(ui, 'API key', 'api-key-regenerated');
    expect(secondKey).toMatch(/^svc_live_[A-Za-z0-9_-]{32,}$/);
    expect(secondKey).not.toBe(firstKey);
    await expectVisible(page.getByText(`${secondKey.slice(0, 12)}…`));
    const ingestBody = { event: EVENT_NAME, data: { amount: 1, plan: 'free' } };
    expect((await http('POST', '/v1/ingest', { 'x-api-key': firstKey }, ingestBody)).status).toBe(401);
    expect((await http('POST', '/v1/ingest', { 'x-api-key': secondKey }, ingestBody)).status).toBe(202);

    // --- Client secrets: create one, use it, revoke it -------------------------------------------
    await link(page, 'Client secrets').click();
    await page.waitForURL('**/client-secrets');
    await label(page, 'Label').fill(SECRET_LABEL);
    await page.getByRole('checkbox', { name: 'read', exact: true }).check();
    await page.getByRole('checkbox', { name: 'write', exact: true }).check();
    await ui.step('client-secret-form');
    await button(page, 'Create secret').click();
    const newSecret = await readShownOnce(ui, 'Client secret', 'client-secret-created');
    expect(newSecret).toMatch(/^svc_cs_[A-Za-z0-9_-]{32,}$/);
    const secretsTable = page.getByRole('table');
    const secretRow = secretsTable.getByRole('row').filter({ hasText: SECRET_LABEL });
    await expectVisible(secretRow);
    expect(await textOf(await cellOf(secretsTable, secretRow, 'Hint'))).toBe(`${newSecret.slice(0, 12)}…`);
    await ui.step('client-secret-listed');
    const appsWithNewSecret = await http('GET', '/v1/apps', bearer(newSecret));
    expect(appsWithNewSecret.status).toBe(200);
    expect(appsWithNewSecret.body).toEqual(expect.arrayContaining([expect.objectContaining({ id: appId, name: APP_NAME })]));

    await button(page, `Revoke ${SECRET_LABEL}`).click();
    await ui.step('revoke-confirm');
    await confirm(page, 'Revoke secret');
    // Either the row goes, or it stays marked as revoked.
    await until(
      `the "${SECRET_LABEL}" row to disappear or read revoked`,
      async () => ((await secretRow.count()) === 0 ? 'gone' : textOf(secretRow)),
      (t) => t === 'gone' || /revoked/i.test(t),
    );
    await ui.step('client-secret-revoked');
    expect((await http('GET', '/v1/apps', bearer(newSecret))).status).toBe(401);

    // --- Sign out ---------------------------------------------------------------------------------
    await button(page, 'Sign out').click();
    await page.waitForURL('**/sign-in');
    await expectVisible(label(page, 'Client secret'));
    expect(await page.evaluate<string>('JSON.stringify(sessionStorage)')).not.toContain(bootstrapSecret);
    await ui.step('signed-out');
    // Signed out means signed out: the apps page sends you back.
    await page.goto('/');
    await page.waitForURL('**/sign-in');
  });

  it('refuses a wrong secret, signs in with Enter, and fits a phone screen', async () => {
    // This test's own data: an app to list (the first test's may not exist when this runs alone).
    const created = await http('POST', '/v1/apps', bearer(bootstrapSecret), { name: 'Phone check' });
    expect(created.status).toBe(201);

    const ui = await open({ width: 390, height: 844 });
    const { page } = ui;
    const overflow = async (): Promise<[number, number]> =>
      page.evaluate<[number, number]>('[document.documentElement.scrollWidth, window.innerWidth]');

    await page.goto('/sign-in');
    const secretField = await expectVisible(label(page, 'Client secret'));
    await secretField.fill(`svc_cs_${urlSafe(40)}`);
    await button(page, 'Sign in').click();
    await expectVisible(page.getByRole('alert').filter({ hasText: 'That client secret was not accepted.' }));
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    await ui.step('phone-sign-in-refused');
    const [signInWidth, signInViewport] = await overflow();
    expect(signInWidth, 'the sign-in page scrolls sideways on a phone').toBeLessThanOrEqual(signInViewport);

    // Keyboard only: Enter in the field submits the form.
    await secretField.fill(bootstrapSecret);
    await secretField.press('Enter');
    await expectVisible(page.getByRole('heading', { name: 'Apps', exact: true }));
    await expectVisible(page.getByRole('list').getByRole('link', { name: 'Phone check' }));
    await expectGone(page.getByRole('status').filter({ hasText: 'Loading' }));
    const [appsWidth, appsViewport] = await overflow();
    await ui.step('phone-apps');
    expect(appsWidth, 'the apps page scrolls sideways on a phone').toBeLessThanOrEqual(appsViewport);

    // The rule editor, with a threshold's fields, an action's template and the live checks, fits too.
    const phoneAppId = created.body.app.id as string;
    const phoneDestination = await http('POST', `/v1/apps/${phoneAppId}/destinations`, bearer(bootstrapSecret), {
      type: 'slack',
      label: 'Phone Slack',
      url: `${receiver!.baseUrl}/services/T0PHONE/B0PHONE/phone-webhook-token`,
    });
    expect(phoneDestination.status).toBe(201);
    await page.getByRole('list').getByRole('link', { name: 'Phone check' }).click();
    await link(page, 'Rules').click();
    await button(page, 'New rule').click();
    await label(page, 'Rule name').fill('Phone rule');
    await label(page, 'Event name').fill('phone.event');
    await chooseOption(label(page, 'Trigger'), 'Threshold');
    await label(page, 'Group by').fill('$customer_id');
    await button(page, 'Add action').click();
    await label(page, 'Action 1 message body').fill('{{count}} from {{customer_id}}, a long line that has to wrap on a narrow screen');
    await waitForText(page.getByRole('status').filter({ hasText: /^Would have fired/ }), 'Would have fired 0 times in the last 24 h');
    await waitForText(page.getByRole('region', { name: 'Message preview', exact: true }), 'a long line that has to wrap');
    const [editorWidth, editorViewport] = await overflow();
    await ui.step('phone-rule-editor');
    expect(editorWidth, 'the rule editor scrolls sideways on a phone').toBeLessThanOrEqual(editorViewport);

    // The events list: time, event and level of every row on screen; an event's page one tap away.
    await phoneEventsList(appContext(ui, phoneAppId, created.body.apiKey as string));
  });

  it('shows an app overview: totals and top lists per range, a bar that opens its events, an event by its URL', async () => {
    // This test's own app and events, of known ages (./overview-steps.ts).
    const created = await http('POST', '/v1/apps', bearer(bootstrapSecret), { name: 'Overview shop' });
    expect(created.status).toBe(201);
    const ui = await open();
    const { page } = ui;
    const ctx = appContext(ui, created.body.app.id as string, created.body.apiKey as string);
    const seeded = await seedOverviewEvents(ctx);
    const cspViolations = await watchCspViolations(page);

    await signIn(page, bootstrapSecret);
    await page.getByRole('list').getByRole('link', { name: 'Overview shop' }).click();
    await overviewTotalsAndRanges(ctx, seeded);
    await barToEvents(ctx, seeded);
    await eventByUrl(ctx, seeded);
    expect(cspViolations, 'the overview, its chart and the event pages keep to the CSP').toEqual([]);
    expect(ui.consoleLog(), 'the console reports no CSP violation').not.toMatch(/Content Security Policy/i);
  });
});
