import type { AnyRoute } from '../route.js';
import type { ApiDeps } from './v1.js';

export function defaultMetadataRoutes(_deps: ApiDeps): AnyRoute[] {
  return [];
}
