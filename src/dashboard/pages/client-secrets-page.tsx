import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { segment } from '../api/client';
import { LIST_QUERY, queryKeys } from '../api/query-keys';
import { useApi, useSession } from '../api/session';
import { SCOPES, type ClientSecret, type CreatedClientSecret, type Scope } from '../api/types';
import { ConfirmDialog } from '../components/confirm-dialog';
import { DataTable } from '../components/data-table';
import { EmptyState } from '../components/empty-state';
import { ErrorAlert } from '../components/error-alert';
import { TextField } from '../components/form-fields';
import { localDateTime } from '../components/format';
import { Loading } from '../components/loading';
import { ShownOnceDialog } from '../components/shown-once-dialog';

/** The API's hint of a secret: its first 12 characters and an ellipsis. */
function hintOf(secret: string | null): string {
  return secret === null ? '' : `${secret.slice(0, 12)}…`;
}

/** The account's active client secrets: create (value shown once), revoke. */
export function ClientSecretsPage() {
  const api = useApi();
  const { secret: current } = useSession();
  const queryClient = useQueryClient();
  const secrets = useQuery({ queryKey: queryKeys.clientSecrets, queryFn: () => api.get<ClientSecret[]>('/v1/client-secrets', LIST_QUERY) });
  const [label, setLabel] = useState('');
  const [scopes, setScopes] = useState<ReadonlySet<Scope>>(new Set(SCOPES));
  const [created, setCreated] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<ClientSecret | null>(null);

  const create = useMutation({
    mutationFn: () => api.post<CreatedClientSecret>('/v1/client-secrets', { label, scopes: SCOPES.filter((s) => scopes.has(s)) }),
    onSuccess: async (result) => {
      setLabel('');
      setCreated(result.clientSecret);
      await queryClient.invalidateQueries({ queryKey: queryKeys.clientSecrets });
    },
  });
  const revoke = useMutation({
    mutationFn: (secret: ClientSecret) => api.delete(`/v1/client-secrets/${segment(secret.id)}`),
    onSuccess: async () => {
      setRevoking(null);
      await queryClient.invalidateQueries({ queryKey: queryKeys.clientSecrets });
    },
  });

  const active = secrets.data?.filter((s) => s.revokedAt === null) ?? [];
  const toggleScope = (scope: Scope, on: boolean): void => {
    const next = new Set(scopes);
    if (on) next.add(scope);
    else next.delete(scope);
    setScopes(next);
  };
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    create.mutate();
  };

  return (
    <>
      <h1 tabIndex={-1}>Client secrets</h1>
      <p className="muted">Management access to this account: the dashboard and your scripts use one each. Revoked secrets are not listed.</p>
      {secrets.isPending ? (
        <Loading />
      ) : secrets.isError ? (
        <ErrorAlert error={secrets.error} />
      ) : active.length === 0 ? (
        <EmptyState>No active client secrets.</EmptyState>
      ) : (
        <DataTable caption="Active client secrets" columns={['Label', 'Scopes', 'Hint', 'Created', 'Last used', 'Actions']}>
          {active.map((secret) => (
            <tr key={secret.id}>
              <td className="strong">{secret.label}</td>
              <td>{secret.scopes.join(', ')}</td>
              <td className="mono nowrap">
                {secret.hint}
                {secret.hint === hintOf(current) && <span className="badge">this session</span>}
              </td>
              <td className="nowrap">{localDateTime(secret.createdAt)}</td>
              <td className="nowrap">{localDateTime(secret.lastUsedAt, 'Never')}</td>
              <td>
                <button
                  type="button"
                  className="button small danger-outline"
                  onClick={() => {
                    revoke.reset();
                    setRevoking(secret);
                  }}
                >
                  Revoke<span className="sr-only"> {secret.label}</span>
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}

      <section className="card section" aria-labelledby="create-secret-title">
        <h2 id="create-secret-title">Create a client secret</h2>
        <form className="stack" onSubmit={submit} noValidate>
          <TextField label="Label" value={label} onChange={(e) => setLabel(e.target.value)} maxLength={200} hint="What the secret is for, such as ci-deploy." />
          <fieldset className="scopes">
            <legend>Scopes</legend>
            {SCOPES.map((scope) => (
              <label key={scope} className="checkbox">
                <input type="checkbox" checked={scopes.has(scope)} onChange={(e) => toggleScope(scope, e.target.checked)} />
                {scope}
              </label>
            ))}
            <p className="hint">read: every GET. write: everything else.</p>
          </fieldset>
          <ErrorAlert error={create.error} />
          <div>
            <button type="submit" className="button primary" disabled={create.isPending} aria-busy={create.isPending}>
              Create secret
            </button>
          </div>
        </form>
      </section>

      {revoking && (
        <ConfirmDialog
          title={`Revoke the secret ${revoking.label}?`}
          confirmLabel="Revoke secret"
          onConfirm={() => revoke.mutate(revoking)}
          onCancel={() => setRevoking(null)}
          pending={revoke.isPending}
          error={revoke.error}
        >
          <p>Every request made with it fails from that moment.</p>
          {revoking.hint === hintOf(current) && <p className="warning">This is the secret you are signed in with: revoking it signs you out.</p>}
        </ConfirmDialog>
      )}
      {created !== null && (
        <ShownOnceDialog name="Client secret" value={created} hint="Send it as Authorization: Bearer <secret>, or paste it to sign in here." onDone={() => setCreated(null)} />
      )}
    </>
  );
}
