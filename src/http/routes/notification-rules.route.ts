import { z } from 'zod';
import { EVENT_NAME_PATTERN } from '../../domain/event-schema.js';
import { MATCH_MODES, OPERATORS, conditionInputSchema, matchSchema } from '../../domain/rule-conditions.js';
import { isUuid } from '../../domain/uuid.js';
import { defineRoute, idOnlyView, paginationQuery, type AnyRoute } from '../route.js';
import { appIdParam, appParams } from './app-params.js';
import { displayNameSchema } from './display-name.js';
import type { ApiDeps } from './api-deps.js';
import { CHANNELS } from '../../domain/alerting.js';

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
    .describe('After a trigger, matches within this many seconds neither deliver nor count'),
};

const createBody = z.strictObject({
  name: ruleFields.name,
  eventName: ruleFields.eventName,
  enabled: ruleFields.enabled.default(true),
  match: ruleFields.match.default('all'),
  conditions: ruleFields.conditions.default([]),
  actions: ruleFields.actions.default([]),
  cooldownSeconds: ruleFields.cooldownSeconds.default(0),
});

const updateBody = z.strictObject({
  name: ruleFields.name.optional(),
  eventName: ruleFields.eventName.optional(),
  enabled: ruleFields.enabled.optional(),
  match: ruleFields.match.optional(),
  conditions: ruleFields.conditions.optional().describe('Replaces the conditions entirely'),
  actions: ruleFields.actions.optional().describe('Replaces the actions entirely'),
  cooldownSeconds: ruleFields.cooldownSeconds.optional(),
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
    lastTriggeredAt: z.iso.datetime().nullable().describe('Null until the rule first triggers'),
    triggerCount: z.number().int().describe('Times the rule triggered (matches within a cooldown do not count)'),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'NotificationRule' });

const ruleParams = z.object({ appId: appIdParam, ruleId: z.string().describe('The rule id') });

/** Notification rules of an app: create, list, read, update, delete. */
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
  ];
}
