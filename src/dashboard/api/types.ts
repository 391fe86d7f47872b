/**
 * What the `/v1` API sends and takes, as the dashboard uses it. Written out here rather than imported
 * from the server's types or zod schemas: the dashboard is a client of the public /v1 API like any
 * other (an ESLint rule keeps server code out of its bundle), so these types mirror the API's JSON as
 * documented in GET /v1/openapi.json, not the server's internals. Their likeness to server types is
 * deliberate; when the API changes, the OpenAPI document and these change together.
 */

export interface App {
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  readonly slug: string;
  readonly apiKeyPrefix: string;
  readonly apiKeyHint: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface AppWithApiKey {
  readonly app: App;
  readonly apiKey: string;
}

export const FIELD_TYPES = ['string', 'number', 'boolean', 'enum'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export interface SchemaField {
  readonly id?: string;
  readonly name: string;
  readonly type: FieldType;
  readonly required?: boolean;
  readonly enumValues?: readonly string[];
}

export interface EventSchema {
  readonly id: string;
  readonly appId: string;
  readonly eventName: string;
  readonly description: string;
  readonly fields: readonly SchemaField[];
  readonly metadataFields: readonly SchemaField[];
  readonly createdAt: string;
  readonly updatedAt: string;
}

export const CHANNELS = ['slack', 'discord', 'email', 'webhook'] as const;
export type Channel = (typeof CHANNELS)[number];

export interface Destination {
  readonly id: string;
  readonly appId: string;
  readonly type: Channel;
  readonly label: string;
  /** Masked by the server: the secret part of a webhook path never comes back. */
  readonly url: string | null;
  readonly email: string | null;
  readonly verified: boolean;
  readonly verifiedAt: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** Only in the create response of a webhook destination. */
export interface CreatedDestination extends Destination {
  readonly signingSecret?: string;
}

/** The contract's operators (contract section 3), in the order the dashboard offers them. */
export const OPERATORS = [
  'equals',
  'not_equals',
  'contains',
  'not_contains',
  'greater_than',
  'greater_than_or_equal',
  'less_than',
  'less_than_or_equal',
  'exists',
] as const;
export type Operator = (typeof OPERATORS)[number];

export type ConditionValue = string | number | boolean;

export interface Condition {
  readonly id?: string;
  readonly field: string;
  readonly operator: Operator;
  readonly value?: ConditionValue;
}

export interface RuleAction {
  readonly id?: string;
  readonly destinationId: string;
  readonly channel?: Channel;
  readonly target?: string | null;
  readonly enabled: boolean;
}

export type MatchMode = 'all' | 'any';

export interface NotificationRule {
  readonly id: string;
  readonly appId: string;
  readonly name: string;
  readonly eventName: string;
  readonly conditions: readonly Condition[];
  readonly actions: readonly RuleAction[];
  readonly enabled: boolean;
  readonly match: MatchMode;
  readonly cooldownSeconds: number;
  readonly lastTriggeredAt: string | null;
  readonly triggerCount: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface RuleInput {
  readonly name: string;
  readonly eventName: string;
  readonly enabled: boolean;
  readonly match: MatchMode;
  readonly conditions: readonly Condition[];
  readonly actions: readonly RuleAction[];
  readonly cooldownSeconds: number;
}

export const EVENT_LEVELS = ['info', 'warning', 'error', 'success'] as const;
export type EventLevel = (typeof EVENT_LEVELS)[number];

export type MetadataValue = string | number | boolean;

export interface StoredEvent {
  readonly id: string;
  readonly appId: string;
  readonly event: string;
  readonly customer_id?: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly level: EventLevel;
  readonly metadata: Readonly<Record<string, MetadataValue>>;
  readonly timestamp: string;
  readonly ingestedAt: string;
}

/** The cursor-paged lists: events and deliveries. */
export interface Page<T> {
  readonly items: readonly T[];
  readonly nextCursor: string | null;
}

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface Delivery {
  readonly id: string;
  readonly ruleId: string;
  readonly actionId: string;
  readonly destinationId: string;
  readonly eventId: string;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly lastError: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface IngestResponse {
  readonly accepted: number;
  readonly events: readonly { readonly id: string }[];
}

export const SCOPES = ['read', 'write'] as const;
export type Scope = (typeof SCOPES)[number];

export interface ClientSecret {
  readonly id: string;
  readonly label: string;
  readonly scopes: readonly Scope[];
  readonly hint: string;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
}

export interface CreatedClientSecret {
  readonly clientSecret: string;
  readonly secret: ClientSecret;
}

export type DefaultMetadata = Readonly<Record<string, MetadataValue>>;
