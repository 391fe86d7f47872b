import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { segment } from '../api/client';
import { LIST_QUERY, queryKeys } from '../api/query-keys';
import { useApi } from '../api/session';
import type { Destination } from '../api/types';
import { ConfirmDialog } from '../components/confirm-dialog';
import { DataTable } from '../components/data-table';
import { DestinationForm } from '../components/destination-form';
import { DestinationRow } from '../components/destination-row';
import { EmptyState } from '../components/empty-state';
import { ErrorAlert } from '../components/error-alert';
import { Loading } from '../components/loading';
import { ShownOnceDialog } from '../components/shown-once-dialog';
import { useAppContext } from './app-context';

export function DestinationsTab() {
  const { app } = useAppContext();
  const api = useApi();
  const queryClient = useQueryClient();
  const destinations = useQuery({
    queryKey: queryKeys.destinations(app.id),
    queryFn: () => api.get<Destination[]>(`/v1/apps/${segment(app.id)}/destinations`, LIST_QUERY),
  });
  /** The open form: a new destination, one being edited, or none. */
  const [form, setForm] = useState<Destination | 'new' | null>(null);
  const [signingSecret, setSigningSecret] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Destination | null>(null);

  const remove = useMutation({
    mutationFn: (destination: Destination) => api.delete(`/v1/apps/${segment(app.id)}/destinations/${segment(destination.id)}`),
    onSuccess: async () => {
      setDeleting(null);
      await queryClient.invalidateQueries({ queryKey: queryKeys.destinations(app.id) });
    },
  });

  return (
    <section aria-labelledby="destinations-title">
      <div className="section-head">
        <h2 id="destinations-title">Destinations</h2>
        <button type="button" className="button primary" onClick={() => setForm('new')} disabled={form === 'new'}>
          Add destination
        </button>
      </div>
      <p className="muted">Where rule actions send alerts. Send a test to check one: a destination that received its test is Verified.</p>

      {form && (
        <DestinationForm
          key={form === 'new' ? 'new' : form.id}
          appId={app.id}
          {...(form === 'new' ? {} : { editing: form })}
          onCancel={() => setForm(null)}
          onSaved={(saved) => {
            setForm(null);
            if (saved.signingSecret) setSigningSecret(saved.signingSecret);
          }}
        />
      )}

      {destinations.isPending ? (
        <Loading />
      ) : destinations.isError ? (
        <ErrorAlert error={destinations.error} />
      ) : destinations.data.length === 0 ? (
        <EmptyState>No destinations yet. Add one before creating rule actions.</EmptyState>
      ) : (
        <DataTable caption="Destinations" columns={['Label', 'Type', 'Target', 'Status', 'Actions']}>
          {destinations.data.map((destination) => (
            <DestinationRow
              key={destination.id}
              appId={app.id}
              destination={destination}
              onEdit={setForm}
              onDelete={(d) => {
                remove.reset();
                setDeleting(d);
              }}
            />
          ))}
        </DataTable>
      )}

      {deleting && (
        <ConfirmDialog
          title={`Delete the destination ${deleting.label}?`}
          confirmLabel="Delete destination"
          onConfirm={() => remove.mutate(deleting)}
          onCancel={() => setDeleting(null)}
          pending={remove.isPending}
          error={remove.error}
        >
          <p>Alerts will no longer go to it. A destination that a rule action still uses cannot be deleted: remove the action first.</p>
        </ConfirmDialog>
      )}

      {signingSecret !== null && (
        <ShownOnceDialog
          name="Signing secret"
          value={signingSecret}
          hint="Your endpoint checks the webhook-signature header of each request with it (Standard Webhooks)."
          onDone={() => setSigningSecret(null)}
        />
      )}
    </section>
  );
}
