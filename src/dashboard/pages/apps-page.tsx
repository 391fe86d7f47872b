import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { queryKeys, LIST_QUERY } from '../api/query-keys';
import { useApi } from '../api/session';
import type { App, AppWithApiKey } from '../api/types';
import { EmptyState } from '../components/empty-state';
import { ErrorAlert } from '../components/error-alert';
import { TextField } from '../components/form-fields';
import { Loading } from '../components/loading';
import { ShownOnceDialog } from '../components/shown-once-dialog';

export const API_KEY_HINT = 'Your application sends it in the x-api-key header of POST /v1/ingest.';

/** The account's apps, and a form to create one (its API key shown once). */
export function AppsPage() {
  const api = useApi();
  const queryClient = useQueryClient();
  const apps = useQuery({ queryKey: queryKeys.apps, queryFn: () => api.get<App[]>('/v1/apps', LIST_QUERY) });
  const [name, setName] = useState('');
  const [newKey, setNewKey] = useState<string | null>(null);

  const create = useMutation({
    mutationFn: (appName: string) => api.post<AppWithApiKey>('/v1/apps', { name: appName }),
    onSuccess: async (created) => {
      setName('');
      setNewKey(created.apiKey);
      await queryClient.invalidateQueries({ queryKey: queryKeys.apps });
    },
  });

  const submit = (event: FormEvent): void => {
    event.preventDefault();
    create.mutate(name);
  };

  return (
    <>
      <h1 tabIndex={-1}>Apps</h1>
      <section aria-labelledby="apps-list-title" className="section">
        <h2 id="apps-list-title" className="sr-only">
          Your apps
        </h2>
        {apps.isPending ? (
          <Loading />
        ) : apps.isError ? (
          <ErrorAlert error={apps.error} />
        ) : apps.data.length === 0 ? (
          <EmptyState>No apps yet. Create your first one below.</EmptyState>
        ) : (
          <ul role="list" className="card-list">
            {apps.data.map((app) => (
              <li key={app.id} className="card app-item">
                <Link to={`/apps/${app.id}`} className="app-link">
                  {app.name}
                </Link>
                <span className="muted small">
                  Slug <code>{app.slug}</code> · Key <code>{app.apiKeyHint}</code>
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="create-app-title" className="section card">
        <h2 id="create-app-title">Create an app</h2>
        <form className="inline-form" onSubmit={submit}>
          <TextField label="App name" value={name} onChange={(e) => setName(e.target.value)} maxLength={200} required />
          <button type="submit" className="button primary" disabled={create.isPending} aria-busy={create.isPending}>
            Create app
          </button>
        </form>
        <ErrorAlert error={create.error} />
      </section>

      {newKey !== null && <ShownOnceDialog name="API key" value={newKey} hint={API_KEY_HINT} onDone={() => setNewKey(null)} />}
    </>
  );
}
