import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { segment } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { useApi } from '../api/session';
import type { DefaultMetadata, MetadataValue } from '../api/types';
import { ErrorAlert } from './error-alert';
import { FormFooter } from './form-footer';
import { Loading } from './loading';
import { NumberedRows } from './numbered-rows';
import { RowLabel } from './row-label';

type ValueType = 'string' | 'number' | 'boolean';

interface Entry {
  readonly key: string;
  readonly name: string;
  readonly type: ValueType;
  readonly value: string;
}

// React keys only, unique within the page: a counter is enough.
let nextKey = 0;
function entry(name = '', value: MetadataValue = ''): Entry {
  nextKey += 1;
  const type: ValueType = typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'boolean' : 'string';
  return { key: `metadata-${nextKey}`, name, type, value: String(value) };
}

/** Values keep their JSON type: a number field in an event's metadata schema wants a number. */
function toValue(e: Entry, index: number): MetadataValue {
  if (e.type === 'boolean') return e.value === 'true';
  if (e.type !== 'number') return e.value;
  const number = Number(e.value);
  if (e.value.trim() === '' || !Number.isFinite(number)) throw new Error(`Metadata ${index + 1} value: must be a number, such as 42 or 0.5`);
  return number;
}

/** Rows without a key are left out: an empty row is not a value. */
function toObject(entries: readonly Entry[]): Record<string, MetadataValue> {
  return Object.fromEntries(entries.flatMap((e, index) => (e.name.trim() === '' ? [] : [[e.name.trim(), toValue(e, index)]])));
}

/** The app's default metadata: attached to every event it ingests (keys sent with the event win). */
export function DefaultMetadataEditor({ appId }: { readonly appId: string }) {
  const api = useApi();
  const metadata = useQuery({
    queryKey: queryKeys.defaultMetadata(appId),
    queryFn: () => api.get<DefaultMetadata>(`/v1/apps/${segment(appId)}/default-metadata`),
    // Read once: a background refetch must not undo what is being typed.
    staleTime: Infinity,
  });
  return (
    <section className="card" aria-labelledby="default-metadata-title">
      <h3 id="default-metadata-title">Default metadata</h3>
      <p className="muted small">Attached to every event this app ingests; a key the event sends itself wins.</p>
      {metadata.isPending ? <Loading /> : metadata.isError ? <ErrorAlert error={metadata.error} /> : <MetadataForm appId={appId} initial={metadata.data} />}
    </section>
  );
}

function MetadataForm({ appId, initial }: { readonly appId: string; readonly initial: DefaultMetadata }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [entries, setEntries] = useState<Entry[]>(() => Object.entries(initial).map(([name, value]) => entry(name, value)));

  const save = useMutation({
    mutationFn: () => api.put<DefaultMetadata>(`/v1/apps/${segment(appId)}/default-metadata`, toObject(entries)),
    onSuccess: (stored) => {
      queryClient.setQueryData(queryKeys.defaultMetadata(appId), stored);
      setEntries(Object.entries(stored).map(([name, value]) => entry(name, value)));
    },
  });

  const submit = (event: FormEvent): void => {
    event.preventDefault();
    save.mutate();
  };

  return (
    <form className="stack" onSubmit={submit} noValidate>
      <NumberedRows
        noun="Metadata"
        rows={entries}
        onChange={setEntries}
        newRow={() => entry()}
        empty="No default metadata."
        renderFields={(e, { id, prefix, focusOnMount, change }) => (
          <>
            <div className="field">
              <RowLabel htmlFor={`${id}-key`} prefix={prefix} word="key" />
              <input id={`${id}-key`} value={e.name} onChange={(ev) => change({ name: ev.target.value })} spellCheck={false} autoFocus={focusOnMount} />
            </div>
            <div className="field">
              <RowLabel htmlFor={`${id}-type`} prefix={prefix} word="type" />
              <select
                id={`${id}-type`}
                value={e.type}
                onChange={(ev) => {
                  const type = ev.target.value as ValueType;
                  change({ type, ...(type === 'boolean' && e.value !== 'false' ? { value: 'true' } : {}) });
                }}
              >
                <option value="string">text</option>
                <option value="number">number</option>
                <option value="boolean">true or false</option>
              </select>
            </div>
            <div className="field">
              <RowLabel htmlFor={`${id}-value`} prefix={prefix} word="value" />
              {e.type === 'boolean' ? (
                <select id={`${id}-value`} value={e.value} onChange={(ev) => change({ value: ev.target.value })}>
                  <option value="true">true</option>
                  <option value="false">false</option>
                </select>
              ) : (
                <input id={`${id}-value`} value={e.value} inputMode={e.type === 'number' ? 'decimal' : 'text'} onChange={(ev) => change({ value: ev.target.value })} />
              )}
            </div>
          </>
        )}
      />
      <FormFooter error={save.error} pending={save.isPending} submitLabel="Save default metadata" status={save.isSuccess ? 'Default metadata saved.' : ''} />
    </form>
  );
}
