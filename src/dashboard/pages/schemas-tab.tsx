import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { segment } from '../api/client';
import { LIST_QUERY, queryKeys } from '../api/query-keys';
import { useApi } from '../api/session';
import type { EventSchema } from '../api/types';
import { ConfirmDialog } from '../components/confirm-dialog';
import { EmptyState } from '../components/empty-state';
import { ErrorAlert } from '../components/error-alert';
import { Loading } from '../components/loading';
import { SchemaEditor } from '../components/schema-editor';
import { useAppContext } from './app-context';

/** Editor state: closed, a new schema, or one being edited. */
type Editing = { readonly kind: 'closed' } | { readonly kind: 'new' } | { readonly kind: 'edit'; readonly schema: EventSchema };

function countOf(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

export function SchemasTab() {
  const { app } = useAppContext();
  const api = useApi();
  const queryClient = useQueryClient();
  const schemas = useQuery({ queryKey: queryKeys.schemas(app.id), queryFn: () => api.get<EventSchema[]>(`/v1/apps/${segment(app.id)}/schemas`, LIST_QUERY) });
  const [editing, setEditing] = useState<Editing>({ kind: 'closed' });
  const [deleting, setDeleting] = useState<EventSchema | null>(null);

  const remove = useMutation({
    mutationFn: (schema: EventSchema) => api.delete(`/v1/apps/${segment(app.id)}/schemas/${segment(schema.id)}`),
    onSuccess: async () => {
      setDeleting(null);
      await queryClient.invalidateQueries({ queryKey: queryKeys.schemas(app.id) });
    },
  });

  return (
    <section aria-labelledby="schemas-title">
      <div className="section-head">
        <h2 id="schemas-title">Schemas</h2>
        <button type="button" className="button primary" onClick={() => setEditing({ kind: 'new' })} disabled={editing.kind !== 'closed'}>
          New schema
        </button>
      </div>
      <p className="muted">
        A schema checks the <code>data</code> and <code>metadata</code> of the events with its name when they arrive; events of other names pass unchecked.
      </p>

      {editing.kind !== 'closed' && (
        <SchemaEditor
          key={editing.kind === 'edit' ? editing.schema.id : 'new'}
          appId={app.id}
          {...(editing.kind === 'edit' ? { schema: editing.schema } : {})}
          onDone={() => setEditing({ kind: 'closed' })}
        />
      )}

      {schemas.isPending ? (
        <Loading />
      ) : schemas.isError ? (
        <ErrorAlert error={schemas.error} />
      ) : schemas.data.length === 0 ? (
        <EmptyState>No schemas yet.</EmptyState>
      ) : (
        <ul role="list" className="card-list">
          {schemas.data.map((schema) => (
            <li key={schema.id} className="card list-row">
              <div>
                <code id={`schema-${schema.id}`} className="strong">
                  {schema.eventName}
                </code>
                <p className="muted small">
                  {countOf(schema.fields.length, 'field')}
                  {schema.metadataFields.length > 0 && `, ${countOf(schema.metadataFields.length, 'metadata field')}`}
                  {schema.description && ` · ${schema.description}`}
                </p>
              </div>
              <div className="row-actions">
                <button type="button" className="button small" aria-describedby={`schema-${schema.id}`} onClick={() => setEditing({ kind: 'edit', schema })}>
                  Edit
                </button>
                <button
                  type="button"
                  className="button small danger-outline"
                  aria-describedby={`schema-${schema.id}`}
                  onClick={() => {
                    remove.reset();
                    setDeleting(schema);
                  }}
                >
                  Delete
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}

      {deleting && (
        <ConfirmDialog
          title={`Delete the schema of ${deleting.eventName}?`}
          confirmLabel="Delete schema"
          onConfirm={() => remove.mutate(deleting)}
          onCancel={() => setDeleting(null)}
          pending={remove.isPending}
          error={remove.error}
        >
          <p>Events named {deleting.eventName} will no longer be checked against it. Events already stored stay as they are.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
