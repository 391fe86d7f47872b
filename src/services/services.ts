import type { Counter } from 'prom-client';
import type { AlertSender } from '../ports/alert-sender.js';
import type { EventStore } from '../ports/event-store.js';
import type { MetadataStore } from '../ports/metadata.js';
import type { StateStore } from '../ports/state-store.js';
import type { Logger } from '../observability/logger.js';
import { AccountsService } from './accounts.service.js';
import { AppKeysService } from './app-keys.service.js';
import { AppsService } from './apps.service.js';
import { Authenticator } from './authenticator.js';
import { ClientSecretsService } from './client-secrets.service.js';
import { CursorSigningKey } from './cursor-signing-key.js';
import { DefaultMetadataService } from './default-metadata.service.js';
import { DeliveriesService } from './deliveries.service.js';
import { DestinationsService } from './destinations.service.js';
import type { EventSink } from './event-sink.js';
import { EventSchemasService } from './event-schemas.service.js';
import { EventsQueryService } from './events-query.service.js';
import { IngestConfigCache } from './ingest-config.js';
import { IngestService } from './ingest.service.js';
import { RuleTrialsService } from './rule-trials.service.js';
import { NotificationRulesService } from './notification-rules.service.js';
import { ReadinessService, type DependencyCheck } from './readiness.service.js';
import { RuleSetCache } from './rule-set-cache.js';
import { VersionReads, type CacheVersions } from './versioned-cache.js';

/** What the operator CLI uses: credentials and accounts, with no event store, bus or pipeline behind them. */
export interface OperatorServices {
  /** Turns presented credentials into principals; told about every revocation. */
  readonly authenticator: Authenticator;
  readonly accounts: AccountsService;
  readonly clientSecrets: ClientSecretsService;
  readonly appKeys: AppKeysService;
}

/** Every use case of the service, built once per process by the container. */
export interface Services extends OperatorServices {
  readonly apps: AppsService;
  readonly schemas: EventSchemasService;
  readonly defaultMetadata: DefaultMetadataService;
  readonly ingest: IngestService;
  /** Reading events back. */
  readonly events: EventsQueryService;
  readonly destinations: DestinationsService;
  readonly rules: NotificationRulesService;
  /** A rule tried before it is saved: preview and dry-run. */
  readonly ruleTrials: RuleTrialsService;
  readonly deliveries: DeliveriesService;
  readonly readiness: ReadinessService;
  /** Each app's enabled rules with their destinations, cached per process; the worker evaluates them. */
  readonly ruleSets: RuleSetCache;
}

/** Plain values from the configuration that change what the services do. */
export interface ServiceSettings {
  /** Idempotency records kept per app. */
  readonly idempotencyKeysPerApp: number;
  /** Whether destination urls may point at private or loopback addresses. */
  readonly allowPrivateAddresses: boolean;
  /** Whether a mail server is configured, without which e-mail destinations are refused. */
  readonly emailConfigured: boolean;
}

export interface OperatorServicesDeps {
  readonly metadata: MetadataStore;
  readonly state: StateStore;
  readonly logger: Logger;
  /** The process's shared reader of cache versions, so that its caches read their versions together. */
  readonly versions?: CacheVersions | undefined;
  /** Counts the authenticator's reads of the metadata database (eas_credential_lookups_total). */
  readonly credentialLookups?: Counter<'result'> | undefined;
}

export interface ServicesDeps extends OperatorServicesDeps {
  readonly events: EventStore;
  /** Where accepted events go: the bus (Kafka, or the journaled in-process bus in embedded mode). */
  readonly sink: EventSink;
  /** Sends destination tests (the worker sends alerts through the same one). */
  readonly alertSender: AlertSender;
  /** What readiness checks: every dependency of this process's role. */
  readonly checks: readonly DependencyCheck[];
  readonly settings: ServiceSettings;
}

export function createOperatorServices(deps: OperatorServicesDeps): OperatorServices {
  const { metadata, state, logger } = deps;
  const versions = deps.versions ?? processVersions(metadata, state);
  const authenticator = new Authenticator({ metadata, state, versions, logger, lookups: deps.credentialLookups });
  return {
    authenticator,
    accounts: new AccountsService({ metadata, authenticator, logger }),
    clientSecrets: new ClientSecretsService({ metadata, authenticator }),
    appKeys: new AppKeysService({ metadata, authenticator }),
  };
}

export function createServices(deps: ServicesDeps): Services {
  const { metadata, events, state, logger, settings } = deps;
  const versions = deps.versions ?? processVersions(metadata, state);
  const operator = createOperatorServices({ ...deps, versions });
  const ruleSets = new RuleSetCache({ metadata, state, versions, logger });
  const ingestConfig = new IngestConfigCache({ metadata, state, versions, logger });
  // One per process: its key is read from the database once.
  const cursorKey = new CursorSigningKey(metadata.settings);
  return {
    ...operator,
    apps: new AppsService({ metadata, events, authenticator: operator.authenticator, ruleSets, logger }),
    schemas: new EventSchemasService({ metadata, ingestConfig }),
    defaultMetadata: new DefaultMetadataService({ metadata, ingestConfig }),
    ingest: new IngestService({ ingestConfig, state, sink: deps.sink, logger, settings }),
    events: new EventsQueryService({ apps: metadata.apps, events, cursorKey }),
    destinations: new DestinationsService({ metadata, settings, alertSender: deps.alertSender, ruleSets }),
    rules: new NotificationRulesService({ metadata, state, logger, ruleSets }),
    ruleTrials: new RuleTrialsService({ metadata, events }),
    deliveries: new DeliveriesService({ metadata, cursorKey }),
    readiness: new ReadinessService(deps.checks),
    ruleSets,
  };
}

/**
 * One reader for the version keys of every cache in this process (concurrent requests share its
 * reads), which also sees writes made to the metadata database by another process where only the
 * database can tell of them (the operator CLI beside an embedded service).
 */
function processVersions(metadata: MetadataStore, state: StateStore): VersionReads {
  return new VersionReads(state, { writeMark: metadata.writeMark ?? undefined });
}
