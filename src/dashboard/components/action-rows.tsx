import { useId, useRef, useState } from 'react';
import type { Destination } from '../api/types';
import { RemoveRowButton, RowLabel } from './row-label';
import { actionDraft, type ActionDraft } from './rule-drafts';
import { Switch } from './switch';

interface ActionRowsProps {
  readonly rows: readonly ActionDraft[];
  readonly onChange: (rows: ActionDraft[]) => void;
  readonly destinations: readonly Destination[];
}

/** A rule's actions: one destination per row, each with its own enable switch. */
export function ActionRows({ rows, onChange, destinations }: ActionRowsProps) {
  const update = (index: number, change: Partial<ActionDraft>): void => onChange(rows.map((row, i) => (i === index ? { ...row, ...change } : row)));
  // A row added with the button takes the focus, so keyboard users go on where they are.
  const [added, setAdded] = useState<string | null>(null);
  // A removed row takes its focused button with it: the focus goes to the list's add button.
  const addButton = useRef<HTMLButtonElement>(null);
  const add = (): void => {
    const row = actionDraft(undefined, destinations[0]?.id ?? '');
    setAdded(row.key);
    onChange([...rows, row]);
  };
  return (
    <fieldset className="rows">
      <legend>Actions</legend>
      {destinations.length === 0 ? (
        <p className="muted small">This app has no destinations yet: add one on the Destinations tab first.</p>
      ) : (
        rows.length === 0 && <p className="muted small">No actions: the rule counts its triggers but sends nothing.</p>
      )}
      <ol className="row-list">
        {rows.map((row, index) => (
          <ActionRow
            key={row.key}
            prefix={`Action ${index + 1}`}
            row={row}
            destinations={destinations}
            focusOnMount={row.key === added}
            onChange={(change) => update(index, change)}
            onRemove={() => {
              onChange(rows.filter((_, i) => i !== index));
              addButton.current?.focus();
            }}
          />
        ))}
      </ol>
      <button
        ref={addButton}
        type="button"
        className="button small"
        disabled={destinations.length === 0}
        onClick={add}
      >
        Add action
      </button>
    </fieldset>
  );
}

interface ActionRowProps {
  readonly prefix: string;
  readonly row: ActionDraft;
  readonly destinations: readonly Destination[];
  readonly focusOnMount: boolean;
  readonly onChange: (change: Partial<ActionDraft>) => void;
  readonly onRemove: () => void;
}

function ActionRow({ prefix, row, destinations, focusOnMount, onChange, onRemove }: ActionRowProps) {
  const id = useId();
  const known = destinations.some((d) => d.id === row.destinationId);
  return (
    <li className="row-item">
      <span className="row-number" aria-hidden="true">
        {prefix}
      </span>
      <div className="row-fields">
        <div className="field">
          <RowLabel htmlFor={`${id}-destination`} prefix={prefix} word="destination" />
          <select id={`${id}-destination`} value={row.destinationId} autoFocus={focusOnMount} onChange={(e) => onChange({ destinationId: e.target.value })}>
            {!known && <option value={row.destinationId}>(unknown destination)</option>}
            {destinations.map((destination) => (
              <option key={destination.id} value={destination.id}>
                {destination.label}
              </option>
            ))}
          </select>
        </div>
        <div className="field switch-field">
          <Switch label={`${prefix} enabled`} visibleLabel="Enabled" checked={row.enabled} onChange={(enabled) => onChange({ enabled })} />
        </div>
      </div>
      <RemoveRowButton what={prefix.toLowerCase()} onClick={onRemove} />
    </li>
  );
}
