import { z } from 'zod';

/** The `{appId}` of every app-scoped path: the app UUID or its slug. */
export const appIdParam = z.string().describe('The app UUID or the app slug');

export const appParams = z.object({ appId: appIdParam });
