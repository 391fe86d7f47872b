import type { Logger } from '../../observability/logger.js';
import type { Services } from '../../services/services.js';

/**
 * What the `/v1` route factories get: the use cases, and the logger. A route does what a service
 * offers; it never reaches a port or an adapter itself. Factories keep it for their handlers only, so
 * declaring the routes (the OpenAPI document) needs no working services.
 */
export interface ApiDeps {
  readonly services: Services;
  readonly logger: Logger;
}
