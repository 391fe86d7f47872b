import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState, type FormEvent } from 'react';
import { segment } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { useApi } from '../api/session';
import type { DefaultMetadata, MetadataValue } from '../api/types';
import { ErrorAlert } from './error-alert';
import { Loading } from './loading';
import { RemoveRowButton, RowLabel } from './row-label';

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
  const update = (index: number, change: Partial<Entry>): void => setEntries(entries.map((e, i) => (i === index ? { ...e, ...change } : e)));
  // A row added with the button takes the focus, so keyboard users type on where they are.
  const [added, setAdded] = useState<string | null>(null);
  // A removed row takes its focused button with it: the focus goes to the list's add button.
  const addButton = useRef<HTMLButtonElement>(null);
  const add = (): void => {
    const row = entry();
    setAdded(row.key);
    setEntries([...entries, row]);
  };

  const submit = (event: FormEvent): void => {
    event.preventDefault();
    save.mutate();
  };

  return (
    <form className="stack" onSubmit={submit} noValidate>
      {entries.length === 0 && <p className="muted small">No default metadata.</p>}
      <ol className="row-list">
        {entries.map((e, index) => (
          <MetadataRow
            key={e.key}
            prefix={`Metadata ${index + 1}`}
            entry={e}
            focusOnMount={e.key === added}
            onChange={(change) => update(index, change)}
            onRemove={() => {
              setEntries(entries.filter((_, i) => i !== index));
              addButton.current?.focus();
            }}
          />
        ))}
      </ol>
      <div>
        <button ref={addButton} type="button" className="button small" onClick={add}>
          Add metadata
        </button>
      </div>
      <ErrorAlert error={save.error} />
      <div className="actions">
        <button type="submit" className="button primary" disabled={save.isPending} aria-busy={save.isPending}>
          Save default metadata
        </button>
        <p role="status" className="success-text">
          {save.isSuccess ? 'Default metadata saved.' : ''}
        </p>
      </div>
    </form>
  );
}

interface MetadataRowProps {
  readonly prefix: string;
  readonly entry: Entry;
  readonly focusOnMount: boolean;
  readonly onChange: (change: Partial<Entry>) => void;
  readonly onRemove: () => void;
}

function MetadataRow({ prefix, entry: e, focusOnMount, onChange, onRemove }: MetadataRowProps) {
  const id = useId();
  return (
    <li className="row-item">
      <span className="row-number" aria-hidden="true">
        {prefix}
      </span>
      <div className="row-fields">
        <div className="field">
          <RowLabel htmlFor={`${id}-key`} prefix={prefix} word="key" />
          <input id={`${id}-key`} value={e.name} onChange={(ev) => onChange({ name: ev.target.value })} spellCheck={false} autoFocus={focusOnMount} />
        </div>
        <div className="field">
          <RowLabel htmlFor={`${id}-type`} prefix={prefix} word="type" />
          <select
            id={`${id}-type`}
            value={e.type}
            onChange={(ev) => {
              const type = ev.target.value as ValueType;
              onChange({ type, ...(type === 'boolean' && e.value !== 'false' ? { value: 'true' } : {}) });
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
            <select id={`${id}-value`} value={e.value} onChange={(ev) => onChange({ value: ev.target.value })}>
              <option value="true">true</option>
              <option value="false">false</option>
            </select>
          ) : (
            <input id={`${id}-value`} value={e.value} inputMode={e.type === 'number' ? 'decimal' : 'text'} onChange={(ev) => onChange({ value: ev.target.value })} />
          )}
        </div>
      </div>
      <RemoveRowButton what={prefix.toLowerCase()} onClick={onRemove} />
    </li>
  );
}
