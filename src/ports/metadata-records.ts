/**
 * The rows of the metadata database as the rest of the service sees them: plain, readonly values with
 * ids where the database has foreign keys (an app carries `accountId`, not an account object). The
 * repositories of ./metadata.ts take the input types and return these.
 */
import type { AlertTemplate, Channel, DeliveryAttemptOutcome, DeliveryStatus } from '../domain/alerting.js';
import type { DestinationTarget } from './alert-sender.js';
import type { MetadataValue } from '../domain/default-metadata.js';
import type { FieldType } from '../domain/event-schema.js';
import type { Condition, MatchMode } from '../domain/rule-conditions.js';
import type { RuleTrigger } from '../domain/rule-trigger.js';

/** An offset page of a list in creation order. */
export interface Page {
  readonly limit: number;
  readonly offset: number;
}

/** When a row was created and last changed. A new row's two are the same instant. */
export interface Timestamps {
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** A row that belongs to one app, and goes when the app is deleted. */
export interface AppOwned {
  readonly id: string;
  readonly appId: string;
}

/**
 * The tenant. Every app and client secret belongs to exactly one account; a client secret only ever
 * sees its own account's apps.
 */
export interface AccountRecord {
  readonly id: string;
  readonly name: string;
  readonly createdAt: Date;
}

/**
 * An app: one event namespace and exactly one active ingestion key, of which only the SHA-256 digest
 * and the first characters are stored. The slug is unique within the account, not globally.
 */
export interface AppRecord extends Timestamps {
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  readonly slug: string;
  readonly apiKeyDigest: string;
  readonly apiKeyPrefix: string;
  readonly defaultMetadata: Readonly<Record<string, MetadataValue>>;
}

export interface NewApp {
  readonly accountId: string;
  readonly name: string;
  readonly slug: string;
  /** SHA-256 hex of the full API key; the caller hashes, the store never sees the key. */
  readonly apiKeyDigest: string;
  readonly apiKeyPrefix: string;
  readonly defaultMetadata?: Readonly<Record<string, MetadataValue>>;
}

export type AppChanges = Partial<Pick<AppRecord, 'name' | 'slug' | 'apiKeyDigest' | 'apiKeyPrefix' | 'defaultMetadata'>>;

export type ClientSecretScope = 'read' | 'write';

/**
 * A management credential. Only the SHA-256 digest of the value is stored; `hint` is the masked form
 * shown in listings. A revoked secret keeps its row, with `revokedAt`.
 */
export interface ClientSecretRecord {
  readonly id: string;
  readonly accountId: string;
  readonly label: string;
  readonly scopes: readonly ClientSecretScope[];
  /** Lower-case hex SHA-256 of the full secret; unique across accounts. */
  readonly digest: string;
  readonly hint: string;
  readonly createdAt: Date;
  readonly lastUsedAt: Date | null;
  readonly revokedAt: Date | null;
}

export interface NewClientSecret {
  readonly accountId: string;
  readonly label: string;
  readonly scopes: readonly ClientSecretScope[];
  /** SHA-256 hex of the full secret; the caller hashes, the store never sees the value. */
  readonly digest: string;
  readonly hint: string;
}

/** One field of a schema as stored: the services complete ids and flags before it gets here. */
export interface StoredSchemaField {
  readonly id: string;
  readonly name: string;
  readonly type: FieldType;
  readonly required?: boolean;
  readonly enumValues?: readonly string[];
}

/** The schema of one event name within one app; the name is unique (case-sensitively) within the app. */
export interface EventSchemaRecord extends AppOwned, Timestamps {
  readonly eventName: string;
  readonly description: string;
  readonly fields: readonly StoredSchemaField[];
  readonly metadataFields: readonly StoredSchemaField[];
}

export interface NewEventSchema {
  readonly appId: string;
  readonly eventName: string;
  readonly description?: string;
  readonly fields: readonly StoredSchemaField[];
  readonly metadataFields?: readonly StoredSchemaField[];
}

export type EventSchemaChanges = Partial<Pick<EventSchemaRecord, 'description' | 'fields' | 'metadataFields'>>;

/** One delivery action of a rule as stored; it names its destination by id only. */
export interface StoredRuleAction {
  readonly id: string;
  readonly destinationId: string;
  readonly channel: Channel;
  readonly enabled: boolean;
  /** The action's own wording, when it has one. */
  readonly template?: AlertTemplate;
}

/**
 * A notification rule. Its actions refer to destinations by id inside the stored JSON, so the database
 * cannot refuse the deletion of a destination in use: the destinations service checks that.
 */
export interface NotificationRuleRecord extends AppOwned, Timestamps {
  readonly name: string;
  readonly eventName: string;
  readonly enabled: boolean;
  readonly match: MatchMode;
  readonly conditions: readonly Condition[];
  readonly actions: readonly StoredRuleAction[];
  readonly cooldownSeconds: number;
  readonly trigger: RuleTrigger;
  /** While in the future, triggers create no delivery. */
  readonly snoozedUntil: Date | null;
}

export type NewNotificationRule = Pick<
  NotificationRuleRecord,
  'appId' | 'name' | 'eventName' | 'enabled' | 'match' | 'conditions' | 'actions' | 'cooldownSeconds' | 'trigger'
>;

export type NotificationRuleChanges = Partial<Pick<NotificationRuleRecord, 'name' | 'eventName' | 'enabled' | 'match' | 'conditions' | 'actions' | 'cooldownSeconds' | 'trigger' | 'snoozedUntil'>>;

/**
 * Where alerts go: what a sender needs, with its verification. Exactly one of `url` and `email` is
 * set, by type. `url` is whole (a chat webhook's path is its secret) and `signingSecret` is in clear
 * (the worker signs with it): neither is for display.
 */
export interface DestinationRecord extends DestinationTarget, Timestamps {
  /** Set by a successful test delivery; reset whenever `url` or `email` changes. */
  readonly verified: boolean;
  readonly verifiedAt: Date | null;
}

export type NewDestination = Pick<DestinationRecord, 'appId' | 'type' | 'label' | 'url' | 'email' | 'signingSecret'>;

export type DestinationChanges = Partial<Pick<DestinationRecord, 'label' | 'url' | 'email' | 'verified' | 'verifiedAt'>>;

/**
 * One alert of one rule action for one event, with its attempts; (ruleId, actionId, eventId) is
 * unique. The alert content it sends is not part of it: only a claimed attempt carries it.
 */
export interface DeliveryRecord extends AppOwned, Timestamps {
  readonly ruleId: string;
  readonly actionId: string;
  readonly destinationId: string;
  readonly eventId: string;
  readonly status: DeliveryStatus;
  /** Attempts made, those before a retry by hand included (the retry schedule counts only its own). */
  readonly attempts: number;
  readonly lastError: string | null;
  /** When a pending delivery is due (again); null once it succeeded or failed for good. */
  readonly nextAttemptAt: Date | null;
}

export interface NewDelivery {
  readonly appId: string;
  readonly ruleId: string;
  readonly actionId: string;
  readonly destinationId: string;
  readonly eventId: string;
  /** The alert content as JSON: what every attempt sends, fixed when the rule triggered. */
  readonly payload: string;
}

/** A delivery a worker now owns for one attempt; `attempts` already counts that attempt. */
export interface ClaimedDelivery {
  readonly id: string;
  readonly appId: string;
  readonly ruleId: string;
  readonly actionId: string;
  readonly destinationId: string;
  readonly eventId: string;
  readonly attempts: number;
  readonly payload: string;
}

export interface DeliveryOutcome {
  readonly status: DeliveryStatus;
  readonly lastError: string | null;
  /** When a pending delivery is due again; null once it succeeded or failed for good. */
  readonly nextAttemptAt: Date | null;
}

export interface DeliveryListQuery {
  readonly ruleId?: string | undefined;
  readonly status?: DeliveryStatus | undefined;
  readonly limit: number;
  /** Keyset position: only deliveries with a smaller id (created earlier) than this one. */
  readonly after?: string | undefined;
}

/** An attempt a worker wants to make: of this delivery, after `attemptsMade` earlier ones. */
export interface AttemptToClaim {
  readonly id: string;
  readonly attemptsMade: number;
}

/** The outcome of a claimed attempt, to record. */
export interface FinishedAttempt {
  readonly id: string;
  /** The delivery's attempt count as the claim left it. */
  readonly attempts: number;
  /** What becomes of the delivery. The attempt itself failed unless this is `succeeded`; its error is `lastError`. */
  readonly outcome: DeliveryOutcome;
  /**
   * What the worker measured of the attempt. Without it (an outcome recorded by a caller that sent
   * nothing itself) the attempt keeps the start its claim recorded, with no duration or HTTP status.
   */
  readonly measured?: AttemptMeasurement;
}

export interface AttemptMeasurement {
  readonly startedAt: Date;
  /** Whole milliseconds, from a monotonic clock: never negative. */
  readonly durationMs: number;
  /** The receiver's HTTP status; null when none came (network error, timeout, e-mail, nothing sent). */
  readonly httpStatus: number | null;
}


/** One attempt of a delivery. Numbers run from 1 across the delivery's life, retries by hand included. */
export interface DeliveryAttemptRecord {
  readonly number: number;
  readonly startedAt: Date;
  /** Null while in progress, and for an abandoned attempt. */
  readonly durationMs: number | null;
  readonly outcome: DeliveryAttemptOutcome;
  readonly httpStatus: number | null;
  readonly error: string | null;
}

/** A delivery with its attempts, oldest first. */
export interface DeliveryWithAttempts {
  readonly delivery: DeliveryRecord;
  readonly attempts: readonly DeliveryAttemptRecord[];
}

/**
 * What asking to retry a delivery did: `retried` (it was failed, and is now pending and due), or
 * nothing, because no delivery of the app has this id or because it is not failed (its current record).
 */
export type DeliveryRetryResult =
  | { readonly outcome: 'retried'; readonly delivery: DeliveryRecord }
  | { readonly outcome: 'not_found' }
  | { readonly outcome: 'not_failed'; readonly delivery: DeliveryRecord };
