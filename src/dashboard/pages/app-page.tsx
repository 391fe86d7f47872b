import { useQuery } from '@tanstack/react-query';
import { NavLink, Outlet, useParams } from 'react-router';
import { ApiError, segment } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { useApi } from '../api/session';
import type { App } from '../api/types';
import { ErrorAlert } from '../components/error-alert';
import { Loading } from '../components/loading';
import type { AppContext } from './app-context';

const TABS = [
  ['overview', 'Overview'],
  ['schemas', 'Schemas'],
  ['destinations', 'Destinations'],
  ['rules', 'Rules'],
  ['events', 'Events'],
  ['deliveries', 'Deliveries'],
  ['settings', 'Settings'],
] as const;

/** One app: its name, the section links, and the section itself. */
export function AppPage() {
  const { appId = '' } = useParams();
  const api = useApi();
  const app = useQuery({ queryKey: queryKeys.app(appId), queryFn: () => api.get<App>(`/v1/apps/${segment(appId)}`) });

  if (app.isPending) return <Loading />;
  if (app.isError) {
    return (
      <>
        <h1 tabIndex={-1}>{app.error instanceof ApiError && app.error.status === 404 ? 'App not found' : 'App'}</h1>
        <ErrorAlert error={app.error} />
      </>
    );
  }

  const context: AppContext = { app: app.data };
  return (
    <>
      <h1 tabIndex={-1}>{app.data.name}</h1>
      <nav aria-label="App sections" className="tabs">
        {TABS.map(([path, label]) => (
          <NavLink key={path} to={path}>
            {label}
          </NavLink>
        ))}
      </nav>
      <div className="tab-panel">
        <Outlet context={context} />
      </div>
    </>
  );
}
