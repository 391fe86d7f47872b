import { useId, useRef, useState, type ReactNode } from 'react';

/** What one row's controls are drawn with. */
export interface RowControls<Row> {
  /** Unique to the row: the stem of its controls' ids (`${id}-name`). */
  readonly id: string;
  /** `Field 2`: the start of each control's accessible name (see RowLabel). */
  readonly prefix: string;
  /** The row was just added with the button: its first control takes the focus. */
  readonly focusOnMount: boolean;
  readonly change: (change: Partial<Row>) => void;
}

interface NumberedRowsProps<Row extends { readonly key: string }> {
  /** The fieldset's legend; without one the rows and the add button sit directly in the enclosing form. */
  readonly legend?: string;
  /**
   * `Condition`, `Metadata field`: rows are `<noun> N`, with the buttons `Remove <noun> N` and
   * `Add <noun>` in lower case (docs/dashboard.md).
   */
  readonly noun: string;
  readonly rows: readonly Row[];
  readonly onChange: (rows: Row[]) => void;
  /** A fresh row for the add button. */
  readonly newRow: () => Row;
  /** The sentence shown while there are no rows. */
  readonly empty: ReactNode;
  /** Shown instead of `empty`, whether or not there are rows, such as why none can be added. */
  readonly notice?: ReactNode;
  /** A hint between the list and the add button. */
  readonly hint?: ReactNode;
  readonly addDisabled?: boolean;
  /** What the rows refer to (a datalist), placed before the list. */
  readonly children?: ReactNode;
  /** One row's labelled controls. */
  readonly renderFields: (row: Row, controls: RowControls<Row>) => ReactNode;
}

/**
 * A list of numbered rows, each with its labelled controls and a `Remove <noun> N` button, and an
 * `Add <noun>` button after it: the shape of schema fields, rule conditions and actions, and
 * default metadata.
 */
export function NumberedRows<Row extends { readonly key: string }>({
  legend,
  noun,
  rows,
  onChange,
  newRow,
  empty,
  notice,
  hint,
  addDisabled = false,
  children,
  renderFields,
}: NumberedRowsProps<Row>) {
  const update = (index: number, change: Partial<Row>): void => onChange(rows.map((row, i) => (i === index ? { ...row, ...change } : row)));
  // A row added with the button takes the focus, so keyboard users type on where they are.
  const [added, setAdded] = useState<string | null>(null);
  // A removed row takes its focused button with it: the focus goes to the list's add button.
  const addButton = useRef<HTMLButtonElement>(null);
  const add = (): void => {
    const row = newRow();
    setAdded(row.key);
    onChange([...rows, row]);
  };
  const note = notice ?? (rows.length === 0 ? empty : null);

  const list = (
    <>
      {note !== null && <p className="muted small">{note}</p>}
      {children}
      <ol className="row-list">
        {rows.map((row, index) => (
          <NumberedRow
            key={row.key}
            prefix={`${noun} ${index + 1}`}
            row={row}
            focusOnMount={row.key === added}
            renderFields={renderFields}
            onChange={(change) => update(index, change)}
            onRemove={() => {
              onChange(rows.filter((_, i) => i !== index));
              addButton.current?.focus();
            }}
          />
        ))}
      </ol>
      {hint !== undefined && <p className="hint">{hint}</p>}
    </>
  );
  const addRow = (
    <button ref={addButton} type="button" className="button small" disabled={addDisabled} onClick={add}>
      {`Add ${noun.toLowerCase()}`}
    </button>
  );
  return legend === undefined ? (
    <>
      {list}
      <div>{addRow}</div>
    </>
  ) : (
    <fieldset className="rows">
      <legend>{legend}</legend>
      {list}
      {addRow}
    </fieldset>
  );
}

interface NumberedRowProps<Row> {
  readonly prefix: string;
  readonly row: Row;
  readonly focusOnMount: boolean;
  readonly renderFields: (row: Row, controls: RowControls<Row>) => ReactNode;
  readonly onChange: (change: Partial<Row>) => void;
  readonly onRemove: () => void;
}

function NumberedRow<Row>({ prefix, row, focusOnMount, renderFields, onChange, onRemove }: NumberedRowProps<Row>) {
  const id = useId();
  return (
    <li className="row-item">
      <span className="row-number" aria-hidden="true">
        {prefix}
      </span>
      <div className="row-fields">{renderFields(row, { id, prefix, focusOnMount, change: onChange })}</div>
      <button type="button" className="button small subtle" onClick={onRemove}>
        Remove<span className="sr-only"> {prefix.toLowerCase()}</span>
      </button>
    </li>
  );
}
