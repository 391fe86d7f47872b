import { useId, useRef, useState } from 'react';
import type { Operator } from '../api/types';
import { RemoveRowButton, RowLabel } from './row-label';
import { OPERATOR_LIST, OPERATOR_WORDS, conditionDraft, type ConditionDraft } from './rule-drafts';

interface ConditionRowsProps {
  readonly rows: readonly ConditionDraft[];
  readonly onChange: (rows: ConditionDraft[]) => void;
  /** Suggestions for the field input: the event's schema fields and the special names. */
  readonly fieldSuggestions: readonly string[];
}

/** The condition builder: field, operator, value per row. */
export function ConditionRows({ rows, onChange, fieldSuggestions }: ConditionRowsProps) {
  const listId = useId();
  const update = (index: number, change: Partial<ConditionDraft>): void => onChange(rows.map((row, i) => (i === index ? { ...row, ...change } : row)));
  // A row added with the button takes the focus, so keyboard users type on where they are.
  const [added, setAdded] = useState<string | null>(null);
  // A removed row takes its focused button with it: the focus goes to the list's add button.
  const addButton = useRef<HTMLButtonElement>(null);
  const add = (): void => {
    const row = conditionDraft();
    setAdded(row.key);
    onChange([...rows, row]);
  };
  return (
    <fieldset className="rows">
      <legend>Conditions</legend>
      {rows.length === 0 && <p className="muted small">No conditions: the rule triggers on every event of its name.</p>}
      <datalist id={listId}>
        {fieldSuggestions.map((field) => (
          <option key={field} value={field} />
        ))}
      </datalist>
      <ol className="row-list">
        {rows.map((row, index) => (
          <ConditionRow
            key={row.key}
            prefix={`Condition ${index + 1}`}
            row={row}
            listId={listId}
            focusOnMount={row.key === added}
            onChange={(change) => update(index, change)}
            onRemove={() => {
              onChange(rows.filter((_, i) => i !== index));
              addButton.current?.focus();
            }}
          />
        ))}
      </ol>
      <p className="hint">
        A field is a name or dotted path in the event data (<code>amount</code>, <code>order.total</code>), <code>metadata.key</code>, <code>$level</code> or{' '}
        <code>$customer_id</code>.
      </p>
      <button ref={addButton} type="button" className="button small" onClick={add}>
        Add condition
      </button>
    </fieldset>
  );
}

interface ConditionRowProps {
  readonly prefix: string;
  readonly row: ConditionDraft;
  readonly listId: string;
  readonly focusOnMount: boolean;
  readonly onChange: (change: Partial<ConditionDraft>) => void;
  readonly onRemove: () => void;
}

function ConditionRow({ prefix, row, listId, focusOnMount, onChange, onRemove }: ConditionRowProps) {
  const id = useId();
  return (
    <li className="row-item">
      <span className="row-number" aria-hidden="true">
        {prefix}
      </span>
      <div className="row-fields">
        <div className="field">
          <RowLabel htmlFor={`${id}-field`} prefix={prefix} word="field" />
          <input id={`${id}-field`} value={row.field} list={listId} spellCheck={false} autoFocus={focusOnMount} onChange={(e) => onChange({ field: e.target.value })} />
        </div>
        <div className="field">
          <RowLabel htmlFor={`${id}-operator`} prefix={prefix} word="operator" />
          <select id={`${id}-operator`} value={row.operator} onChange={(e) => onChange({ operator: e.target.value as Operator })}>
            {OPERATOR_LIST.map((operator) => (
              <option key={operator} value={operator}>
                {OPERATOR_WORDS[operator]}
              </option>
            ))}
          </select>
        </div>
        {row.operator !== 'exists' && (
          <div className="field">
            <RowLabel htmlFor={`${id}-value`} prefix={prefix} word="value" />
            <input id={`${id}-value`} value={row.value} onChange={(e) => onChange({ value: e.target.value })} />
          </div>
        )}
      </div>
      <RemoveRowButton what={prefix.toLowerCase()} onClick={onRemove} />
    </li>
  );
}
