import { useId } from 'react';
import type { Operator } from '../api/types';
import { Options } from './form-fields';
import { NumberedRows } from './numbered-rows';
import { RowLabel } from './row-label';
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
  return (
    <NumberedRows
      legend="Conditions"
      noun="Condition"
      rows={rows}
      onChange={onChange}
      newRow={() => conditionDraft()}
      empty="No conditions: the rule triggers on every event of its name."
      hint={
        <>
          A field is a name or dotted path in the event data (<code>amount</code>, <code>order.total</code>), <code>metadata.key</code>, <code>$level</code> or{' '}
          <code>$customer_id</code>.
        </>
      }
      renderFields={(row, { id, prefix, focusOnMount, change }) => (
        <>
          <div className="field">
            <RowLabel htmlFor={`${id}-field`} prefix={prefix} word="field" />
            <input id={`${id}-field`} value={row.field} list={listId} spellCheck={false} autoFocus={focusOnMount} onChange={(e) => change({ field: e.target.value })} />
          </div>
          <div className="field">
            <RowLabel htmlFor={`${id}-operator`} prefix={prefix} word="operator" />
            <select id={`${id}-operator`} value={row.operator} onChange={(e) => change({ operator: e.target.value as Operator })}>
              <Options values={OPERATOR_LIST} names={OPERATOR_WORDS} />
            </select>
          </div>
          {row.operator !== 'exists' && (
            <div className="field">
              <RowLabel htmlFor={`${id}-value`} prefix={prefix} word="value" />
              <input id={`${id}-value`} value={row.value} onChange={(e) => change({ value: e.target.value })} />
            </div>
          )}
        </>
      )}
    >
      <datalist id={listId}>
        {fieldSuggestions.map((field) => (
          <option key={field} value={field} />
        ))}
      </datalist>
    </NumberedRows>
  );
}
