import type { AnyRoute } from '../route.js';
import type { ApiDeps } from './api-deps.js';
import { appRoutes } from './apps.route.js';
import { clientSecretRoutes } from './client-secrets.route.js';
import { defaultMetadataRoutes } from './default-metadata.route.js';
import { deliveryRoutes } from './deliveries.route.js';
import { destinationRoutes } from './destinations.route.js';
import { eventRoutes } from './events.route.js';
import { ingestRoutes } from './ingest.route.js';
import { notificationRuleRoutes } from './notification-rules.route.js';
import { openApiRoute } from './openapi.route.js';
import { otlpRoutes } from './otlp.route.js';
import { schemaRoutes } from './schemas.route.js';
import { statsRoutes } from './stats.route.js';

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
    ...otlpRoutes(deps),
    ...eventRoutes(deps),
    ...statsRoutes(deps),
    ...destinationRoutes(deps),
    ...notificationRuleRoutes(deps),
    ...deliveryRoutes(deps),
  ];
  return [...routes, openApiRoute(routes, API_VERSION)];
}
