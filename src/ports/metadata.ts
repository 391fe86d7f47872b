/**
 * The metadata port: accounts, client secrets, apps, event schemas, destinations, notification rules,
 * deliveries and service settings, as repositories of plain records (./metadata-records.ts).
 * Embedded mode keeps them in SQLite, distributed mode in PostgreSQL (src/adapters/metadata/); both
 * pass test/contract/metadata.contract.test.ts.
 *
 * Every method is one unit of work of its own, committed when it resolves, unless it is called on the
 * repositories `transaction()` hands out. Writes are explicit methods: a record is a copy, and
 * changing it changes nothing stored.
 */
import type {
  AccountRecord,
  AppChanges,
  AppRecord,
  AttemptToClaim,
  ClaimedDelivery,
  ClientSecretRecord,
  DeliveryListQuery,
  DeliveryRecord,
  DeliveryRetryResult,
  DeliveryWithAttempts,
  DestinationChanges,
  DestinationRecord,
  EventSchemaChanges,
  EventSchemaRecord,
  FinishedAttempt,
  NewApp,
  NewClientSecret,
  NewDelivery,
  NewDestination,
  NewEventSchema,
  NewNotificationRule,
  NotificationRuleChanges,
  NotificationRuleRecord,
  Page,
} from './metadata-records.js';

export type * from './metadata-records.js';

/**
 * A write broke a unique constraint: an app slug already used in the account, an event name the app
 * already has a schema for, an API key or client secret digest that exists. The database decides, not
 * a prior read, so two concurrent writes of the same value cannot both succeed. Inside a transaction,
 * the transaction is lost with it (PostgreSQL aborts it): it rolls back when the error leaves `work`.
 */
export class DuplicateRecordError extends Error {
  override readonly name = 'DuplicateRecordError';
}

/**
 * A row lock for the rest of the surrounding transaction (PostgreSQL; SQLite runs one writing
 * transaction at a time and needs none): `share` for readers that must not see the row deleted under
 * them, `update` for the writer that deletes or changes it. Asked for outside a transaction, it fails.
 */
export type RowLock = 'share' | 'update';

export interface AccountRepository {
  create(input: { readonly name: string }): Promise<AccountRecord>;
  findById(id: string): Promise<AccountRecord | null>;
  /** The oldest account of this name, or null. Names are not unique. */
  findOldestByName(name: string): Promise<AccountRecord | null>;
  /** A page of every account, oldest first: for the operator CLI, which acts across accounts. */
  list(page: Page): Promise<AccountRecord[]>;
  /**
   * Locks the account's row for update until the transaction ends, so that checks over all of an
   * account's rows (such as "some other client secret is still active") are serialised per account.
   */
  lock(id: string): Promise<AccountRecord | null>;
}

export interface AppRepository {
  /** Throws DuplicateRecordError when the slug is taken in the account (or the key digest exists). */
  create(input: NewApp): Promise<AppRecord>;
  /** Any account's app: for processes that act outside an account (worker, ingest, operator CLI). */
  findById(id: string): Promise<AppRecord | null>;
  /** The app with this id in this account; `id` must have the form of a UUID. */
  findInAccount(accountId: string, id: string): Promise<AppRecord | null>;
  findBySlug(accountId: string, slug: string): Promise<AppRecord | null>;
  /** The app an ingest request's key belongs to. After a rotation the old digest finds nothing. */
  findByApiKeyDigest(apiKeyDigest: string): Promise<AppRecord | null>;
  /** A page of the account's apps in creation order, so that a new app lands on the last page. */
  list(accountId: string, page: Page): Promise<AppRecord[]>;
  /** Which of `slugs` the account already uses. */
  takenSlugs(accountId: string, slugs: readonly string[]): Promise<string[]>;
  /**
   * Writes the changes and moves `updatedAt`; null when the app does not exist. Throws
   * DuplicateRecordError when a new slug is taken in the account.
   */
  update(id: string, changes: AppChanges): Promise<AppRecord | null>;
  /** Deletes the app and, by cascade in the database, everything of it. True when it existed. */
  delete(id: string): Promise<boolean>;
}

export interface ClientSecretRepository {
  /** Throws DuplicateRecordError when the digest exists (in any account). */
  create(input: NewClientSecret): Promise<ClientSecretRecord>;
  /** Any account's secret: for the operator CLI, which acts across accounts. */
  findById(id: string): Promise<ClientSecretRecord | null>;
  findInAccount(accountId: string, id: string): Promise<ClientSecretRecord | null>;
  /** The secret with this digest, revoked or not. */
  findByDigest(digest: string): Promise<ClientSecretRecord | null>;
  /**
   * The active secret with this digest, or null when it is unknown or revoked. An exact match on a
   * unique index, so no timing difference depends on how much of a guessed secret is right.
   */
  findActiveByDigest(digest: string): Promise<ClientSecretRecord | null>;
  /** A page of the account's secrets, revoked ones included, oldest first. */
  list(accountId: string, page: Page): Promise<ClientSecretRecord[]>;
  countActive(accountId: string): Promise<number>;
  /** The active secrets of each of these accounts, in one query: every id given is a key (0 for none). */
  countActiveByAccount(accountIds: readonly string[]): Promise<Map<string, number>>;
  /**
   * Marks the secret revoked if it is an active secret of the account; false when nothing changed.
   * One conditional statement: of two concurrent revocations of one secret, one changes it.
   */
  revokeActive(input: { readonly accountId: string; readonly id: string; readonly at: Date }): Promise<boolean>;
  /** Makes a revoked secret active again. */
  reactivate(id: string): Promise<void>;
  /** Records when the secret was last used; a hint for humans, so no check of any kind. */
  recordUse(id: string, at: Date): Promise<void>;
}

export interface EventSchemaRepository {
  /** Throws DuplicateRecordError when the app already has a schema for the event name. */
  create(input: NewEventSchema): Promise<EventSchemaRecord>;
  /** `id` must have the form of a UUID. */
  findById(appId: string, id: string): Promise<EventSchemaRecord | null>;
  findByName(appId: string, eventName: string): Promise<EventSchemaRecord | null>;
  /** A page of the app's schemas in creation order. */
  list(appId: string, page: Page): Promise<EventSchemaRecord[]>;
  /** Every schema of the app, in no particular order: what ingest checks events against. */
  listAll(appId: string): Promise<EventSchemaRecord[]>;
  /** Writes the changes and moves `updatedAt`; null when the schema does not exist. */
  update(id: string, changes: EventSchemaChanges): Promise<EventSchemaRecord | null>;
  delete(appId: string, id: string): Promise<boolean>;
}

export interface NotificationRuleRepository {
  create(input: NewNotificationRule): Promise<NotificationRuleRecord>;
  /** `id` must have the form of a UUID. */
  findById(appId: string, id: string): Promise<NotificationRuleRecord | null>;
  /** A page of the app's rules in creation order. */
  list(appId: string, page: Page): Promise<NotificationRuleRecord[]>;
  /** The app's enabled rules in creation order: what the worker evaluates events against. */
  listEnabled(appId: string): Promise<NotificationRuleRecord[]>;
  /** The app's rules, enabled or not, with an action on this destination, in creation order. */
  listUsingDestination(appId: string, destinationId: string): Promise<NotificationRuleRecord[]>;
  /** Writes the changes and moves `updatedAt`; null when the rule does not exist. */
  update(id: string, changes: NotificationRuleChanges): Promise<NotificationRuleRecord | null>;
  delete(appId: string, id: string): Promise<boolean>;
}

export interface DestinationRepository {
  create(input: NewDestination): Promise<DestinationRecord>;
  /** `id` must have the form of a UUID. */
  findById(appId: string, id: string, lock?: RowLock): Promise<DestinationRecord | null>;
  /** The app's destinations among `ids`; any of them may be missing or another app's. */
  findByIds(appId: string, ids: readonly string[], lock?: 'share'): Promise<DestinationRecord[]>;
  /** A page of the app's destinations in creation order. */
  list(appId: string, page: Page): Promise<DestinationRecord[]>;
  /** Every destination of the app, in no particular order (an app has a handful). */
  listAll(appId: string): Promise<DestinationRecord[]>;
  /** Writes the changes and moves `updatedAt`; null when the destination does not exist. */
  update(id: string, changes: DestinationChanges): Promise<DestinationRecord | null>;
  /**
   * Marks the destination verified, only if its `url` and `email` are still those that were tested;
   * null when they changed meanwhile (or the destination is gone).
   */
  markVerified(id: string, tested: Pick<DestinationRecord, 'url' | 'email'>, at: Date): Promise<DestinationRecord | null>;
  delete(appId: string, id: string): Promise<boolean>;
}

/** What the delivery queue and workers (src/pipeline) need of the deliveries. */
export interface DeliveryStore {
  /**
   * Creates the deliveries that do not exist yet, due at `firstAttemptDue`; returns the ids created.
   * Idempotent, also when several workers create the same rows at once.
   */
  createMany(rows: readonly NewDelivery[], firstAttemptDue: Date): Promise<string[]>;
  /** Pending deliveries due by `now` (lease run out included), oldest due first. */
  due(now: Date, limit: number): Promise<Array<{ id: string; attempts: number }>>;
  /**
   * Takes one attempt of each delivery asked for, in one statement; returns those taken (in any order).
   * A delivery someone else attempted or holds, or that is no longer pending, is left out. Each attempt
   * taken is recorded as `in_progress`, started at `now`; an earlier attempt of the same delivery still
   * in progress lost its lease (its worker died) and becomes `abandoned`. One transaction for all.
   */
  claim(attempts: readonly AttemptToClaim[], now: Date, leaseUntil: Date): Promise<ClaimedDelivery[]>;
  /**
   * Records the outcomes of claimed attempts, on the delivery and on the attempt, in one transaction
   * (one statement for all deliveries that share an outcome, one for all the attempts); returns the
   * ids recorded. One is left out when its claim was lost (the lease taken over, the app deleted);
   * its attempt stays `abandoned`, as the claim that took over marked it.
   */
  finish(attempts: readonly FinishedAttempt[]): Promise<Set<string>>;
}

export interface DeliveryRepository extends DeliveryStore {
  /** One delivery, created pending when absent; `created` false when it existed (the winner's row). */
  createIfAbsent(input: NewDelivery, firstAttemptDue: Date): Promise<{ delivery: DeliveryRecord; created: boolean }>;
  get(id: string): Promise<DeliveryRecord | null>;
  /** The app's delivery with this id (which must have the form of a UUID) and its attempts, oldest first. */
  findWithAttempts(appId: string, id: string): Promise<DeliveryWithAttempts | null>;
  /** A page of the app's deliveries, newest first; `after` pages by id, which is creation order. */
  list(appId: string, query: DeliveryListQuery): Promise<DeliveryRecord[]>;
  /**
   * Makes a failed delivery of the app pending again and due at `now`, on a fresh retry schedule (its
   * attempt count starts over; the attempts made stay listed and the next one is numbered after them).
   * One conditional statement: of two concurrent retries, one finds the delivery failed.
   */
  retry(appId: string, id: string, now: Date): Promise<DeliveryRetryResult>;
}

/**
 * Values the service generates once and every process must share (such as the key that signs list
 * cursors). Never a credential a client presents.
 */
export interface SettingRepository {
  /**
   * The setting's value, created with `create()` if it does not exist yet. When processes race to
   * create it, exactly one value wins and every caller gets that one.
   */
  getOrCreate(name: string, create: () => string): Promise<string>;
}

/** The repositories that can act inside one transaction. */
export interface MetadataRepositories {
  readonly accounts: AccountRepository;
  readonly apps: AppRepository;
  readonly clientSecrets: ClientSecretRepository;
  readonly schemas: EventSchemaRepository;
  readonly rules: NotificationRuleRepository;
  readonly destinations: DestinationRepository;
}

/**
 * The store. Deliveries and settings are not handed to transactions: they settle a race for a unique
 * row by letting an insert fail and reading the winner's row, which a PostgreSQL transaction cannot
 * survive, so each of their calls is a short unit of work of its own.
 *
 * The factories open no connection: the first query (normally `migrate()` at start-up, or `ping()`)
 * does, so a database that is down shows up in readiness, not as a constructor that throws.
 */
export interface MetadataStore extends MetadataRepositories {
  readonly deliveries: DeliveryRepository;
  readonly settings: SettingRepository;
  /**
   * Runs `work` in one database transaction: committed when it resolves, rolled back when it throws
   * (the error is rethrown). The repositories handed to it must not be used after it settled.
   */
  transaction<T>(work: (tx: MetadataRepositories) => Promise<T>): Promise<T>;
  /** Applies pending migrations; a no-op when there are none. Safe to call from several processes at once. */
  migrate(): Promise<void>;
  /** Resolves when the database answers; rejects within the store's ping timeout otherwise. */
  ping(): Promise<void>;
  /**
   * Reads a value that changes whenever a write was committed to the database on another connection,
   * cheaply enough for every turn of the event loop; null where the store cannot tell (PostgreSQL,
   * whose writers announce their changes through the state store instead).
   */
  readonly writeMark: (() => string) | null;
  close(): Promise<void>;
}
