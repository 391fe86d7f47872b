import type { components, operations } from './openapi.gen.js';

/**
 * What the `/v1` API sends and takes, as the dashboard uses it: names for the types that
 * openapi.gen.ts generates from GET /v1/openapi.json (`npm run dashboard:types`). The dashboard is a
 * client of the public API like any other (an ESLint rule keeps server code out of its bundle), so its
 * types come from the API's own document and change with it; a unit test fails when the generated file
 * is behind the route declarations.
 */

type Schemas = components['schemas'];
type JsonBody<R> = R extends { readonly content: { readonly 'application/json': infer B } } ? B : never;

export type App = Schemas['App'];
export type AppWithApiKey = Schemas['AppWithApiKey'];

export type SchemaField = Schemas['SchemaFieldInput'];
export type FieldType = SchemaField['type'];
export type EventSchema = Schemas['EventSchema'];

export type Channel = Schemas['Destination']['type'];
export type Destination = Schemas['Destination'];
/** The create response: a webhook destination's signing secret is in it, once. */
export type CreatedDestination = Schemas['CreatedDestination'];

export type Operator = Schemas['ConditionInput']['operator'];
export type ConditionValue = NonNullable<Schemas['ConditionInput']['value']>;
/** A condition as the editor holds it: the id of a saved one is sent back to keep it. */
export type Condition = Schemas['ConditionInput'];
export type RuleAction = Schemas['RuleActionInput'];
export type MatchMode = Schemas['NotificationRule']['match'];
export type NotificationRule = Schemas['NotificationRule'];
/** Every field of a rule as the editor sends it, whether creating or updating. */
export type RuleInput = Required<JsonBody<operations['createNotificationRule']['requestBody']>>;
export type RuleTrigger = Schemas['RuleTrigger'];
export type TriggerType = RuleTrigger['type'];
export type AlertTemplate = Schemas['AlertTemplate'];
export type SnoozeInput = Schemas['SnoozeInput'];
/** What each action would send for an event (POST …/notification-rules/preview). */
export type RulePreview = Schemas['RulePreview'];
/** What a rule would have done over stored events (POST …/notification-rules/dry-run). */
export type RuleDryRun = Schemas['RuleDryRun'];

export type EventLevel = Schemas['Event']['level'];
export type StoredEvent = Schemas['Event'];
export type MetadataValue = Schemas['Event']['metadata'][string];
export type DefaultMetadata = Schemas['DefaultMetadata'];
export type IngestResponse = Schemas['IngestResponse'];

/**
 * GET /v1/apps/{appId}/stats/events: counts per bucket, one series per group value (key null when
 * not grouped); every bucket of the range is present, empty ones with count 0.
 */
export type EventStats = Schemas['EventCounts'];
/** Bucket lengths of the counts. */
export type StatsInterval = EventStats['interval'];
/** GET /v1/apps/{appId}/stats/top: the values of a field with the most events, largest count first. */
export type EventTop = Schemas['EventTop'];

/** The cursor-paged lists: events and deliveries. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly nextCursor: string | null;
}

export type DeliveryStatus = Schemas['Delivery']['status'];
export type Delivery = Schemas['Delivery'];
/** One delivery as GET …/deliveries/{id} gives it: `attempts` is the list of attempts, not their number. */
export type DeliveryWithAttempts = Schemas['DeliveryWithAttempts'];
export type DeliveryAttempt = Schemas['DeliveryAttempt'];
export type AttemptOutcome = DeliveryAttempt['outcome'];

export type Scope = Schemas['ClientSecret']['scopes'][number];
export type ClientSecret = Schemas['ClientSecret'];
export type CreatedClientSecret = JsonBody<operations['createClientSecret']['responses'][201]>;

/**
 * Every member of a union of strings, once, in the order the dashboard offers them. The compiler holds
 * the list to the generated union both ways: a value the API does not take is an error, and so is a
 * value of the API that the list leaves out (the error names it: `{ missing: "exists" }`).
 */
function everyOf<T extends string>() {
  return <const L extends readonly T[]>(...values: L & ([T] extends [L[number]] ? unknown : { readonly missing: Exclude<T, L[number]> })): L => values;
}

export const FIELD_TYPES = everyOf<FieldType>()('string', 'number', 'boolean', 'enum');
export const CHANNELS = everyOf<Channel>()('slack', 'discord', 'email', 'webhook');
/** The API's rule condition operators, in the order the dashboard offers them. */
export const OPERATORS = everyOf<Operator>()(
  'equals',
  'not_equals',
  'contains',
  'not_contains',
  'greater_than',
  'greater_than_or_equal',
  'less_than',
  'less_than_or_equal',
  'exists',
);
export const TRIGGER_TYPES = everyOf<TriggerType>()('every', 'threshold', 'absence');
export const EVENT_LEVELS = everyOf<EventLevel>()('info', 'warning', 'error', 'success');
export const DELIVERY_STATUSES = everyOf<DeliveryStatus>()('pending', 'succeeded', 'failed');
export const SCOPES = everyOf<Scope>()('read', 'write');
