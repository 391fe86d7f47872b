import { FIELD_TYPES, type FieldType, type SchemaField } from '../api/types';
import { Options } from './form-fields';
import { NumberedRows } from './numbered-rows';
import { RowLabel } from './row-label';

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
  return (
    <NumberedRows
      legend={legend}
      noun={noun}
      rows={rows}
      onChange={onChange}
      newRow={() => newFieldDraft()}
      empty={<>No {legend.toLowerCase()}.</>}
      renderFields={(row, { id, prefix, focusOnMount, change }) => (
        <>
          <div className="field">
            <RowLabel htmlFor={`${id}-name`} prefix={prefix} word="name" />
            <input id={`${id}-name`} value={row.name} onChange={(e) => change({ name: e.target.value })} spellCheck={false} autoFocus={focusOnMount} />
          </div>
          <div className="field">
            <RowLabel htmlFor={`${id}-type`} prefix={prefix} word="type" />
            <select id={`${id}-type`} value={row.type} onChange={(e) => change({ type: e.target.value as FieldType })}>
              <Options values={FIELD_TYPES} />
            </select>
          </div>
          {row.type === 'enum' && (
            <div className="field grow">
              <RowLabel htmlFor={`${id}-enum`} prefix={prefix} word="enum values" />
              <input
                id={`${id}-enum`}
                value={row.enumText}
                onChange={(e) => change({ enumText: e.target.value })}
                placeholder="e.g. card, paypal"
                aria-describedby={`${id}-enum-hint`}
              />
              <span id={`${id}-enum-hint`} className="sr-only">
                Comma-separated
              </span>
            </div>
          )}
          <div className="field checkbox-field">
            <input id={`${id}-required`} type="checkbox" checked={row.required} onChange={(e) => change({ required: e.target.checked })} />
            <RowLabel htmlFor={`${id}-required`} prefix={prefix} word="required" />
          </div>
        </>
      )}
    />
  );
}
