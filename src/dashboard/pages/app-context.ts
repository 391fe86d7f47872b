import { useOutletContext } from 'react-router';
import type { App } from '../api/types';

/** What the app page hands its tabs: the app as last read. Its `id` is the UUID, whatever the URL held. */
export interface AppContext {
  readonly app: App;
}

export function useAppContext(): AppContext {
  return useOutletContext<AppContext>();
}
