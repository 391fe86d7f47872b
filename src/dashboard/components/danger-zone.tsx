import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { segment } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { useApi } from '../api/session';
import type { App } from '../api/types';
import { ConfirmDialog } from './confirm-dialog';

/** Deleting an app takes its key, schemas, rules, destinations and events with it. */
export function DangerZone({ app }: { readonly app: App }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [confirming, setConfirming] = useState(false);

  const remove = useMutation({
    mutationFn: () => api.delete(`/v1/apps/${segment(app.id)}`),
    onSuccess: async () => {
      setConfirming(false);
      // Leave the app's pages first, so that nothing asks for the deleted app again.
      await navigate('/', { replace: true });
      queryClient.removeQueries({ queryKey: queryKeys.app(app.id) });
      await queryClient.invalidateQueries({ queryKey: queryKeys.apps });
    },
  });

  return (
    <section className="card danger-card" aria-labelledby="danger-title">
      <h3 id="danger-title">Danger zone</h3>
      <p className="muted small">Deleting the app deletes its API key, schemas, rules, destinations and events. This cannot be undone.</p>
      <button
        type="button"
        className="button danger"
        onClick={() => {
          remove.reset();
          setConfirming(true);
        }}
      >
        Delete app
      </button>
      {confirming && (
        <ConfirmDialog
          title={`Delete the app ${app.name}?`}
          confirmLabel="Delete app"
          onConfirm={() => remove.mutate()}
          onCancel={() => setConfirming(false)}
          pending={remove.isPending}
          error={remove.error}
        >
          <p>Its API key stops working at once, and its schemas, rules, destinations and events are deleted with it.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
