import type { Destination } from '../api/types';
import { NumberedRows } from './numbered-rows';
import { RowLabel } from './row-label';
import { actionDraft, type ActionDraft } from './rule-drafts';
import { Switch } from './switch';

interface ActionRowsProps {
  readonly rows: readonly ActionDraft[];
  readonly onChange: (rows: ActionDraft[]) => void;
  readonly destinations: readonly Destination[];
}

/** A rule's actions: one destination per row, each with its own enable switch. */
export function ActionRows({ rows, onChange, destinations }: ActionRowsProps) {
  const none = destinations.length === 0;
  return (
    <NumberedRows
      legend="Actions"
      noun="Action"
      rows={rows}
      onChange={onChange}
      newRow={() => actionDraft(undefined, destinations[0]?.id ?? '')}
      empty="No actions: the rule counts its triggers but sends nothing."
      notice={none ? 'This app has no destinations yet: add one on the Destinations tab first.' : undefined}
      addDisabled={none}
      renderFields={(row, { id, prefix, focusOnMount, change }) => (
        <>
          <div className="field">
            <RowLabel htmlFor={`${id}-destination`} prefix={prefix} word="destination" />
            <select id={`${id}-destination`} value={row.destinationId} autoFocus={focusOnMount} onChange={(e) => change({ destinationId: e.target.value })}>
              {!destinations.some((d) => d.id === row.destinationId) && <option value={row.destinationId}>(unknown destination)</option>}
              {destinations.map((destination) => (
                <option key={destination.id} value={destination.id}>
                  {destination.label}
                </option>
              ))}
            </select>
          </div>
          <div className="field switch-field">
            <Switch label={`${prefix} enabled`} visibleLabel="Enabled" checked={row.enabled} onChange={(enabled) => change({ enabled })} />
          </div>
        </>
      )}
    />
  );
}
