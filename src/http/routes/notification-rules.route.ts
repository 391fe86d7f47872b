import { z } from 'zod';
import { zonedDateTime } from './date-time.js';
import { EVENT_NAME_PATTERN } from '../../domain/event-schema.js';
import { MATCH_MODES, OPERATORS, conditionInputSchema, matchSchema } from '../../domain/rule-conditions.js';
import { isUuid } from '../../domain/uuid.js';
import { defineRoute, idOnlyView, paginationQuery, type AnyRoute } from '../route.js';
import { appIdParam, appParams } from './app-params.js';
import { displayNameSchema } from './display-name.js';
import type { ApiDeps } from './api-deps.js';
import { CHANNELS } from '../../domain/alerting.js';
import { alertTemplateSchema } from '../../domain/alert-template.js';
import { ruleTriggerSchema } from '../../domain/rule-trigger.js';
import { ingestEventSchema } from './ingest-body.js';

/** Bounds that keep one rule's evaluation and one rule's alert fan-out small. */
const MAX_CONDITIONS = 50;
const MAX_ACTIONS = 20;
/** A day: longer silences are better expressed by disabling the rule. */
const MAX_COOLDOWN_SECONDS = 86_400;

const uuidString = (message: string) => z.string({ error: message }).refine(isUuid, message);

const actionInputSchema = z
  .strictObject({
    id: uuidString('must be an action id').optional().describe('Sent back from a read to keep the action id; the server assigns ids'),
    destinationId: uuidString('must be the id of a destination of this app'),
    channel: z
      .enum(CHANNELS, { error: `must be one of: ${CHANNELS.join(', ')}` })
      .optional()
      .describe("The destination's type; filled in when omitted, 400 when different"),
    enabled: z.boolean({ error: 'must be a boolean' }).default(true),
    // Like `id`: a rule read from the API can be sent back as it is; the target comes from the destination.
    target: z.string().nullable().optional().describe('Ignored; responses show the destination\'s target'),
    template: alertTemplateSchema.optional().describe('The message this action sends instead of the default; placeholders such as `{{data.amount}}` are filled from the alert'),
  })
  .meta({ id: 'RuleActionInput' });

const ruleFields = {
  name: displayNameSchema.describe('Rule display name, 1–200 characters'),
  eventName: z.string({ error: 'must be a non-empty string' }).regex(EVENT_NAME_PATTERN, 'must be 1–200 characters of letters, digits, . _ : -').describe('Event name watched'),
  enabled: z.boolean({ error: 'must be a boolean' }),
  match: matchSchema,
  conditions: z
    .array(conditionInputSchema, { error: 'must be an array of conditions' })
    .max(MAX_CONDITIONS, `must contain at most ${MAX_CONDITIONS} conditions`)
    .describe('Empty: the rule triggers on every event of the name'),
  actions: z.array(actionInputSchema, { error: 'must be an array of actions' }).max(MAX_ACTIONS, `must contain at most ${MAX_ACTIONS} actions`),
  cooldownSeconds: z
    .number({ error: `must be a whole number from 0 to ${MAX_COOLDOWN_SECONDS}` })
    .int(`must be a whole number from 0 to ${MAX_COOLDOWN_SECONDS}`)
    .min(0, `must be a whole number from 0 to ${MAX_COOLDOWN_SECONDS}`)
    .max(MAX_COOLDOWN_SECONDS, `must be a whole number from 0 to ${MAX_COOLDOWN_SECONDS}`)
    .describe('After a trigger, matches within this many seconds neither deliver nor count (per group for a grouped threshold)'),
  trigger: ruleTriggerSchema.describe('What makes matching events trigger the rule; default `{ "type": "every" }`'),
};

const createBody = z.strictObject({
  name: ruleFields.name,
  eventName: ruleFields.eventName,
  enabled: ruleFields.enabled.default(true),
  match: ruleFields.match.default('all'),
  conditions: ruleFields.conditions.default([]),
  actions: ruleFields.actions.default([]),
  cooldownSeconds: ruleFields.cooldownSeconds.default(0),
  trigger: ruleFields.trigger.default({ type: 'every' }),
});

const updateBody = z.strictObject({
  name: ruleFields.name.optional(),
  eventName: ruleFields.eventName.optional(),
  enabled: ruleFields.enabled.optional(),
  match: ruleFields.match.optional(),
  conditions: ruleFields.conditions.optional().describe('Replaces the conditions entirely'),
  actions: ruleFields.actions.optional().describe('Replaces the actions entirely'),
  cooldownSeconds: ruleFields.cooldownSeconds.optional(),
  trigger: ruleFields.trigger.optional(),
});

const conditionSchema = z
  .object({
    id: z.string(),
    field: z.string(),
    operator: z.enum(OPERATORS),
    value: z.union([z.number(), z.string(), z.boolean()]).optional().describe('Absent for `exists`'),
  })
  .meta({ id: 'Condition' });

const actionSchema = z
  .object({
    id: z.uuid(),
    destinationId: z.uuid(),
    channel: z.enum(CHANNELS),
    target: z.string().nullable().describe("The destination's masked url or its e-mail address"),
    enabled: z.boolean(),
    template: z.object({ title: z.string().optional(), body: z.string().optional() }).optional().describe('Absent: the default message'),
  })
  .meta({ id: 'RuleAction' });

export const notificationRuleSchema = z
  .object({
    id: z.uuid(),
    appId: z.uuid(),
    name: z.string(),
    eventName: z.string(),
    conditions: z.array(conditionSchema),
    actions: z.array(actionSchema),
    enabled: z.boolean(),
    match: z.enum(MATCH_MODES),
    cooldownSeconds: z.number().int(),
    trigger: ruleTriggerSchema,
    snoozedUntil: z.iso.datetime().nullable().describe('While in the future, triggers are counted but send nothing'),
    lastTriggeredAt: z.iso.datetime().nullable().describe('Null until the rule first triggers'),
    triggerCount: z.number().int().describe('Times the rule triggered (matches within a cooldown do not count; recoveries after an absence neither)'),
    suppressedCount: z.number().int().describe('Of those, the triggers made while the rule was snoozed'),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'NotificationRule' });

const ruleParams = z.object({ appId: appIdParam, ruleId: z.string().describe('The rule id') });

/** A snooze runs at most 30 days: a longer silence is better said by disabling the rule. */
const MAX_SNOOZE_MINUTES = 43_200;

const snoozeBody = z
  .strictObject({
    minutes: z
      .number({ error: `must be a whole number from 1 to ${MAX_SNOOZE_MINUTES}` })
      .int(`must be a whole number from 1 to ${MAX_SNOOZE_MINUTES}`)
      .min(1, `must be a whole number from 1 to ${MAX_SNOOZE_MINUTES}`)
      .max(MAX_SNOOZE_MINUTES, `must be a whole number from 1 to ${MAX_SNOOZE_MINUTES}`)
      .optional()
      .describe('Snooze for this many minutes from now'),
    until: zonedDateTime('must be an ISO 8601 date-time with a time zone')
      .refine((v) => Date.parse(v) > Date.now(), 'must be in the future')
      .refine((v) => Date.parse(v) <= Date.now() + MAX_SNOOZE_MINUTES * 60_000, `must be at most ${MAX_SNOOZE_MINUTES / 1440} days ahead`)
      .optional()
      .describe('Snooze until this time'),
  })
  .refine((body) => (body.minutes === undefined) !== (body.until === undefined), 'must hold exactly one of minutes and until')
  .describe('Exactly one of `minutes` and `until`')
  .meta({ id: 'SnoozeInput' });

const previewBody = z
  .strictObject({
    rule: createBody.describe('A rule body as for create; nothing is saved'),
    eventId: z.string().refine(isUuid, 'must be the id of a stored event of this app').optional().describe('A stored event to render the messages for'),
    event: ingestEventSchema.optional().describe('An event as for ingest, to render the messages for'),
  })
  .refine((body) => body.eventId === undefined || body.event === undefined, { message: 'give eventId or event, not both', path: ['event'] })
  .meta({ id: 'RulePreviewInput' });

const previewSchema = z
  .object({
    matched: z.boolean().describe("Whether the event has the rule's event name and meets its conditions"),
    eventId: z.string().nullable().describe('The stored event rendered; null for a given event or when the app has none of that name'),
    messages: z.array(
      z.object({
        destinationId: z.uuid(),
        type: z.enum(CHANNELS),
        title: z.string(),
        body: z.string(),
      }),
    ),
  })
  .meta({ id: 'RulePreview' });

const dryRunBody = z
  .strictObject({
    rule: createBody.describe('A rule body as for create; nothing is saved'),
    from: zonedDateTime('must be an ISO 8601 date-time with a time zone').optional().describe('Inclusive; default 24 hours before `to`'),
    to: zonedDateTime('must be an ISO 8601 date-time with a time zone').optional().describe('Exclusive; default now'),
  })
  .meta({ id: 'RuleDryRunInput' });

const dryRunSchema = z
  .object({
    evaluatedEvents: z.number().int().describe("Stored events of the rule's event name in the range"),
    matchedEvents: z.number().int().describe('Of those, the ones meeting the conditions (and, for a grouped threshold, having the group field)'),
    triggers: z.number().int().describe('Times the rule would have triggered (recoveries after an absence not counted)'),
    firstTriggers: z
      .array(
        z.object({
          eventId: z.string().nullable().describe('The triggering event; null for an absence'),
          timestamp: z.iso.datetime().describe("The triggering event's timestamp, or the absence deadline"),
          group: z.string().nullable().describe('The threshold group; null otherwise'),
        }),
      )
      .describe('The first 100 triggers, oldest first'),
  })
  .meta({ id: 'RuleDryRun' });

/** Notification rules of an app: create, list, read, update, delete, snooze; preview and dry-run. */
export function notificationRuleRoutes(deps: ApiDeps): AnyRoute[] {
  const base = '/v1/apps/{appId}/notification-rules';
  const one = `${base}/{ruleId}`;
  return [
    defineRoute({
      method: 'post',
      path: base,
      operationId: 'createNotificationRule',
      summary: 'Create a notification rule',
      description: "Every action's destination must belong to the app; its `channel` is the destination's type.",
      tags: ['notification-rules'],
      auth: 'client',
      params: appParams,
      body: createBody,
      responses: { 201: { description: 'The created rule', schema: notificationRuleSchema } },
      writeOnlyView: idOnlyView,
      handler: async ({ params, body, principal }) => ({ status: 201, body: await deps.services.rules.create(principal.accountId, params.appId, body) }),
    }),
    defineRoute({
      method: 'get',
      path: base,
      operationId: 'listNotificationRules',
      summary: "List the app's notification rules, oldest first",
      description: 'The app\'s notification rules, in pages of `limit` from `offset`, oldest first, each with its trigger count and snooze.',
      tags: ['notification-rules'],
      auth: 'client',
      params: appParams,
      query: paginationQuery,
      responses: { 200: { description: 'A page of rules', schema: z.array(notificationRuleSchema) } },
      handler: async ({ params, query, principal }) => ({ status: 200, body: await deps.services.rules.list(principal.accountId, params.appId, query) }),
    }),
    defineRoute({
      method: 'get',
      path: one,
      operationId: 'getNotificationRule',
      summary: 'Read one notification rule',
      description: 'One rule of the app: its event name, conditions, kind (every match, threshold or absence), actions, cooldown, snooze and trigger counts.',
      tags: ['notification-rules'],
      auth: 'client',
      params: ruleParams,
      responses: { 200: { description: 'The rule', schema: notificationRuleSchema } },
      handler: async ({ params, principal }) => ({ status: 200, body: await deps.services.rules.get(principal.accountId, params.appId, params.ruleId) }),
    }),
    defineRoute({
      method: 'patch',
      path: one,
      operationId: 'updateNotificationRule',
      summary: 'Update a notification rule; lists given replace the old ones',
      description: 'Changes the fields given and leaves the others as they are. `conditions` and `actions`, when given, replace the rule\'s lists entirely.',
      tags: ['notification-rules'],
      auth: 'client',
      params: ruleParams,
      body: updateBody,
      responses: { 200: { description: 'The updated rule', schema: notificationRuleSchema } },
      writeOnlyView: idOnlyView,
      handler: async ({ params, body, principal }) => ({
        status: 200,
        body: await deps.services.rules.update(principal.accountId, params.appId, params.ruleId, body),
      }),
    }),
    defineRoute({
      method: 'delete',
      path: one,
      operationId: 'deleteNotificationRule',
      summary: 'Delete a notification rule',
      description: 'Its deliveries stay listed.',
      tags: ['notification-rules'],
      auth: 'client',
      params: ruleParams,
      responses: { 204: { description: 'Deleted' } },
      handler: async ({ params, principal }) => {
        await deps.services.rules.delete(principal.accountId, params.appId, params.ruleId);
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: `${one}/snooze`,
      operationId: 'snoozeNotificationRule',
      writeOnlyView: idOnlyView,
      summary: 'Snooze a notification rule',
      description: 'Until the time given (or for the minutes given, at most 30 days), the rule keeps its state and counts its triggers (`suppressedCount` too) but sends nothing. Snoozing again replaces the time.',
      tags: ['notification-rules'],
      auth: 'client',
      params: ruleParams,
      body: snoozeBody,
      responses: { 200: { description: 'The rule, with `snoozedUntil`', schema: notificationRuleSchema } },
      handler: async ({ params, body, principal }) => {
        const until = body.minutes === undefined ? new Date(body.until!) : new Date(Date.now() + body.minutes * 60_000);
        return { status: 200, body: await deps.services.rules.snooze(principal.accountId, params.appId, params.ruleId, until) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: `${one}/snooze`,
      operationId: 'unsnoozeNotificationRule',
      writeOnlyView: idOnlyView,
      summary: 'End a snooze',
      description: 'The rule sends again from now on; triggers made while it was snoozed stay counted in `suppressedCount`. Ending a snooze that is not running changes nothing.',
      tags: ['notification-rules'],
      auth: 'client',
      params: ruleParams,
      responses: { 200: { description: 'The rule, with `snoozedUntil: null`', schema: notificationRuleSchema } },
      handler: async ({ params, principal }) => ({ status: 200, body: await deps.services.rules.snooze(principal.accountId, params.appId, params.ruleId, null) }),
    }),
    defineRoute({
      method: 'post',
      path: `${base}/preview`,
      operationId: 'previewNotificationRule',
      scope: 'read',
      summary: 'Render what each action of a rule would send for an event',
      description:
        'For a stored event (`eventId`), a given one (`event`, as for ingest), or else the newest stored event of the rule\'s event name. Sends nothing and stores nothing.',
      tags: ['notification-rules'],
      auth: 'client',
      params: appParams,
      body: previewBody,
      responses: { 200: { description: 'The messages', schema: previewSchema } },
      handler: async ({ params, body, principal }) => ({ status: 200, body: await deps.services.ruleTrials.preview(principal.accountId, params.appId, body) }),
    }),
    defineRoute({
      method: 'post',
      path: `${base}/dry-run`,
      operationId: 'dryRunNotificationRule',
      scope: 'read',
      summary: 'Replay stored events through a rule',
      description:
        "The stored events of the range (default the last 24 hours, at most 31 days), in timestamp order, through the rule's conditions, trigger and cooldown, with the decision code the workers use. Changes no state and sends nothing.",
      tags: ['notification-rules'],
      auth: 'client',
      params: appParams,
      body: dryRunBody,
      responses: { 200: { description: 'What the rule would have done', schema: dryRunSchema } },
      handler: async ({ params, body, principal }) => ({ status: 200, body: await deps.services.ruleTrials.dryRun(principal.accountId, params.appId, body) }),
    }),
  ];
}
