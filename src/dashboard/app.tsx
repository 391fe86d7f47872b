import { Navigate, Route, Routes, useLocation } from 'react-router';
import { useSession } from './api/session';
import { Layout } from './components/layout';
import { AppPage } from './pages/app-page';
import { AppsPage } from './pages/apps-page';
import { ClientSecretsPage } from './pages/client-secrets-page';
import { DeliveriesTab } from './pages/deliveries-tab';
import { DestinationsTab } from './pages/destinations-tab';
import { EventPage } from './pages/event-page';
import { EventsTab } from './pages/events-tab';
import { NotFoundPage } from './pages/not-found-page';
import { OverviewTab } from './pages/overview-tab';
import { RulesTab } from './pages/rules-tab';
import { SchemasTab } from './pages/schemas-tab';
import { SettingsTab } from './pages/settings-tab';
import { SignInPage } from './pages/sign-in-page';

/** Where to go after signing in: the page that sent the visitor to sign in, else the apps. */
function returnPath(state: unknown): string {
  if (typeof state === 'object' && state !== null && 'from' in state && typeof state.from === 'string' && /^\/(?!\/)/.test(state.from)) {
    return state.from.startsWith('/sign-in') ? '/' : state.from;
  }
  return '/';
}

/** The screens of docs/dashboard.md. Everything but /sign-in needs a session. */
export function App() {
  const { secret } = useSession();
  const location = useLocation();

  if (secret === null) {
    // Back to the page asked for after signing in; the path, never the secret, goes into the state.
    return (
      <Routes>
        <Route path="/sign-in" element={<SignInPage />} />
        <Route path="*" element={<Navigate to="/sign-in" replace state={{ from: location.pathname + location.search }} />} />
      </Routes>
    );
  }

  return (
    <Routes>
      <Route path="/sign-in" element={<Navigate to={returnPath(location.state)} replace />} />
      <Route element={<Layout />}>
        <Route index element={<AppsPage />} />
        <Route path="client-secrets" element={<ClientSecretsPage />} />
        <Route path="apps/:appId" element={<AppPage />}>
          <Route index element={<Navigate to="overview" replace />} />
          <Route path="overview" element={<OverviewTab />} />
          <Route path="schemas" element={<SchemasTab />} />
          <Route path="destinations" element={<DestinationsTab />} />
          <Route path="rules" element={<RulesTab />} />
          <Route path="events" element={<EventsTab />} />
          <Route path="events/:eventId" element={<EventPage />} />
          <Route path="deliveries" element={<DeliveriesTab />} />
          <Route path="settings" element={<SettingsTab />} />
        </Route>
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}
