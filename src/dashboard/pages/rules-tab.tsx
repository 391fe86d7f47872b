import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { segment } from '../api/client';
import { LIST_QUERY, queryKeys } from '../api/query-keys';
import { useApi } from '../api/session';
import type { Destination, NotificationRule } from '../api/types';
import { ConfirmDialog } from '../components/confirm-dialog';
import { DataTable } from '../components/data-table';
import { EmptyState } from '../components/empty-state';
import { ErrorAlert } from '../components/error-alert';
import { Loading } from '../components/loading';
import { RuleEditor } from '../components/rule-editor';
import { RuleRow } from '../components/rule-row';
import { useAppContext } from './app-context';

/**
 * Trigger counts are visible through the API within a second of an event's processing; polling every
 * 3 s while this tab is open (and the browser tab visible) shows them moving without a page of load
 * per user.
 */
const POLL_MS = 3_000;

type Editing = { readonly kind: 'closed' } | { readonly kind: 'new' } | { readonly kind: 'edit'; readonly rule: NotificationRule };

export function RulesTab() {
  const { app } = useAppContext();
  const api = useApi();
  const queryClient = useQueryClient();
  const rules = useQuery({
    queryKey: queryKeys.rules(app.id),
    queryFn: () => api.get<NotificationRule[]>(`/v1/apps/${segment(app.id)}/notification-rules`, LIST_QUERY),
    refetchInterval: POLL_MS,
  });
  const destinations = useQuery({
    queryKey: queryKeys.destinations(app.id),
    queryFn: () => api.get<Destination[]>(`/v1/apps/${segment(app.id)}/destinations`, LIST_QUERY),
  });
  const [editing, setEditing] = useState<Editing>({ kind: 'closed' });
  const [deleting, setDeleting] = useState<NotificationRule | null>(null);

  const remove = useMutation({
    mutationFn: (rule: NotificationRule) => api.delete(`/v1/apps/${segment(app.id)}/notification-rules/${segment(rule.id)}`),
    onSuccess: async () => {
      setDeleting(null);
      await queryClient.invalidateQueries({ queryKey: queryKeys.rules(app.id) });
    },
  });

  return (
    <section aria-labelledby="rules-title">
      <div className="section-head">
        <h2 id="rules-title">Rules</h2>
        <button type="button" className="button primary" onClick={() => setEditing({ kind: 'new' })} disabled={editing.kind !== 'closed'}>
          New rule
        </button>
      </div>
      <p className="muted">
        A rule watches one event name. Its trigger says which matching events make it fire: each one, a number of them within a window, or none for a while. Each enabled
        action then sends an alert to its destination.
      </p>

      {editing.kind !== 'closed' && (
        <RuleEditor
          key={editing.kind === 'edit' ? editing.rule.id : 'new'}
          appId={app.id}
          destinations={destinations.data ?? []}
          {...(editing.kind === 'edit' ? { rule: editing.rule } : {})}
          onDone={() => setEditing({ kind: 'closed' })}
        />
      )}
      <ErrorAlert error={destinations.error} />

      {rules.isPending ? (
        <Loading />
      ) : rules.isError ? (
        <ErrorAlert error={rules.error} />
      ) : rules.data.length === 0 ? (
        <EmptyState>No rules yet.</EmptyState>
      ) : (
        <DataTable caption="Rules" columns={['Name', 'Event', 'Trigger', 'Enabled', 'Triggers', 'Last triggered', 'Actions']}>
          {rules.data.map((rule) => (
            <RuleRow
              key={rule.id}
              appId={app.id}
              rule={rule}
              onEdit={(r) => setEditing({ kind: 'edit', rule: r })}
              onDelete={(r) => {
                remove.reset();
                setDeleting(r);
              }}
            />
          ))}
        </DataTable>
      )}

      {deleting && (
        <ConfirmDialog
          title={`Delete the rule ${deleting.name}?`}
          confirmLabel="Delete rule"
          onConfirm={() => remove.mutate(deleting)}
          onCancel={() => setDeleting(null)}
          pending={remove.isPending}
          error={remove.error}
        >
          <p>It stops watching {deleting.eventName} events at once. Its past deliveries stay listed.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
