import type { AnyRoute } from '../route.js';
import type { ApiDeps } from './v1.js';

export function appRoutes(_deps: ApiDeps): AnyRoute[] {
  return [];
}
