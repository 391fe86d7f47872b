import type { Config } from '../../config.js';
import type { MessageBus } from '../../adapters/bus/message-bus.js';
import type { EventStore } from '../../adapters/event-store/event-store.js';
import type { MetadataStore } from '../../adapters/metadata/metadata-store.js';
import type { StateStore } from '../../adapters/state/state-store.js';
import type { AlertSender } from '../../delivery/delivery-types.js';
import type { Logger } from '../../observability/logger.js';
import type { Authenticator } from '../../services/authenticator.js';
import type { EventSink } from '../../services/event-sink.js';
import type { IngestConfigCache } from '../../services/ingest-config.js';
import type { RuleSetCache } from '../../services/rule-set-cache.js';
import type { AnyRoute } from '../route.js';
import { appRoutes } from './apps.route.js';
import { clientSecretRoutes } from './client-secrets.route.js';
import { defaultMetadataRoutes } from './default-metadata.route.js';
import { deliveryRoutes } from './deliveries.route.js';
import { destinationRoutes } from './destinations.route.js';
import { eventRoutes } from './events.route.js';
import { ingestRoutes } from './ingest.route.js';
import { notificationRuleRoutes } from './notification-rules.route.js';
import { openApiRoute } from './openapi.route.js';
import { schemaRoutes } from './schemas.route.js';

/** What the `/v1` handlers may use; built by the container, passed in. */
export interface ApiDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly metadata: MetadataStore;
  readonly events: EventStore;
  readonly bus: MessageBus;
  readonly state: StateStore;
  readonly authenticator: Authenticator;
  /** Where accepted events go (Kafka, or the store first in embedded mode). */
  readonly sink: EventSink;
  /** Per-app ingest configuration (schemas, default metadata), cached; services that change it invalidate it. */
  readonly ingestConfig: IngestConfigCache;
  /** Sends destination tests (the worker sends alerts through the same one). */
  readonly alertSender: AlertSender;
  /** The worker's cached rules; services that change rules, destinations or apps invalidate it. */
  readonly ruleSets: RuleSetCache;
}

/** The version of the API's interface description, the OpenAPI document's `info.version`. */
export const API_VERSION = '1.0.0';

/** Every `/v1` endpoint, in the order the OpenAPI document lists them. */
export function v1Routes(deps: ApiDeps): AnyRoute[] {
  const routes = [
    ...clientSecretRoutes(deps),
    ...appRoutes(deps),
    ...schemaRoutes(deps),
    ...defaultMetadataRoutes(deps),
    ...ingestRoutes(deps),
    ...eventRoutes(deps),
    ...destinationRoutes(deps),
    ...notificationRuleRoutes(deps),
    ...deliveryRoutes(deps),
  ];
  return [...routes, openApiRoute(routes, API_VERSION)];
}
