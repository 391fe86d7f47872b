import { useId, useRef, useState } from 'react';
import { FIELD_TYPES, type FieldType, type SchemaField } from '../api/types';
import { RemoveRowButton, RowLabel } from './row-label';

/** One row of the editor; `key` is React's, `id` the server's (kept on update). */
export interface FieldDraft {
  readonly key: string;
  readonly id?: string;
  readonly name: string;
  readonly type: FieldType;
  readonly required: boolean;
  /** Comma-separated, as typed. */
  readonly enumText: string;
}

// React keys only, unique within the page: a counter is enough.
let nextKey = 0;
export function newFieldDraft(field?: SchemaField): FieldDraft {
  nextKey += 1;
  return {
    key: `field-${nextKey}`,
    ...(field?.id === undefined ? {} : { id: field.id }),
    name: field?.name ?? '',
    type: field?.type ?? 'string',
    required: field?.required ?? false,
    enumText: field?.enumValues?.join(', ') ?? '',
  };
}

export function toSchemaField(draft: FieldDraft): SchemaField {
  return {
    ...(draft.id === undefined ? {} : { id: draft.id }),
    name: draft.name.trim(),
    type: draft.type,
    required: draft.required,
    ...(draft.type === 'enum'
      ? {
          enumValues: draft.enumText
            .split(',')
            .map((value) => value.trim())
            .filter((value) => value !== ''),
        }
      : {}),
  };
}

interface FieldListEditorProps {
  /** `Fields` or `Metadata fields`: the section's legend. */
  readonly legend: string;
  /** `Field` or `Metadata field`: rows are `<noun> N`. */
  readonly noun: string;
  readonly rows: readonly FieldDraft[];
  readonly onChange: (rows: FieldDraft[]) => void;
}

/** The field editor of a schema: name, type, required and enum values per row. */
export function FieldListEditor({ legend, noun, rows, onChange }: FieldListEditorProps) {
  const update = (index: number, change: Partial<FieldDraft>): void => onChange(rows.map((row, i) => (i === index ? { ...row, ...change } : row)));
  // A row added with the button takes the focus, so keyboard users type on where they are.
  const [added, setAdded] = useState<string | null>(null);
  // A removed row takes its focused button with it: the focus goes to the list's add button.
  const addButton = useRef<HTMLButtonElement>(null);
  const add = (): void => {
    const row = newFieldDraft();
    setAdded(row.key);
    onChange([...rows, row]);
  };
  return (
    <fieldset className="rows">
      <legend>{legend}</legend>
      {rows.length === 0 && <p className="muted small">No {legend.toLowerCase()}.</p>}
      <ol className="row-list">
        {rows.map((row, index) => (
          <FieldRow
            key={row.key}
            prefix={`${noun} ${index + 1}`}
            row={row}
            focusOnMount={row.key === added}
            onChange={(change) => update(index, change)}
            onRemove={() => {
              onChange(rows.filter((_, i) => i !== index));
              addButton.current?.focus();
            }}
          />
        ))}
      </ol>
      <button ref={addButton} type="button" className="button small" onClick={add}>
        Add {noun.toLowerCase()}
      </button>
    </fieldset>
  );
}

interface FieldRowProps {
  readonly prefix: string;
  readonly row: FieldDraft;
  readonly focusOnMount: boolean;
  readonly onChange: (change: Partial<FieldDraft>) => void;
  readonly onRemove: () => void;
}

function FieldRow({ prefix, row, focusOnMount, onChange, onRemove }: FieldRowProps) {
  const id = useId();
  return (
    <li className="row-item">
      <span className="row-number" aria-hidden="true">
        {prefix}
      </span>
      <div className="row-fields">
        <div className="field">
          <RowLabel htmlFor={`${id}-name`} prefix={prefix} word="name" />
          <input id={`${id}-name`} value={row.name} onChange={(e) => onChange({ name: e.target.value })} spellCheck={false} autoFocus={focusOnMount} />
        </div>
        <div className="field">
          <RowLabel htmlFor={`${id}-type`} prefix={prefix} word="type" />
          <select id={`${id}-type`} value={row.type} onChange={(e) => onChange({ type: e.target.value as FieldType })}>
            {FIELD_TYPES.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </select>
        </div>
        {row.type === 'enum' && (
          <div className="field grow">
            <RowLabel htmlFor={`${id}-enum`} prefix={prefix} word="enum values" />
            <input
              id={`${id}-enum`}
              value={row.enumText}
              onChange={(e) => onChange({ enumText: e.target.value })}
              placeholder="e.g. card, paypal"
              aria-describedby={`${id}-enum-hint`}
            />
            <span id={`${id}-enum-hint`} className="sr-only">
              Comma-separated
            </span>
          </div>
        )}
        <div className="field checkbox-field">
          <input id={`${id}-required`} type="checkbox" checked={row.required} onChange={(e) => onChange({ required: e.target.checked })} />
          <RowLabel htmlFor={`${id}-required`} prefix={prefix} word="required" />
        </div>
      </div>
      <RemoveRowButton what={prefix.toLowerCase()} onClick={onRemove} />
    </li>
  );
}
