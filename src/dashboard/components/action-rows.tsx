import { useId } from 'react';
import type { Destination } from '../api/types';
import { NumberedRows } from './numbered-rows';
import { RowLabel } from './row-label';
import { TEMPLATE_PLACEHOLDERS, actionDraft, type ActionDraft } from './rule-drafts';
import { Switch } from './switch';

interface ActionRowsProps {
  readonly rows: readonly ActionDraft[];
  readonly onChange: (rows: ActionDraft[]) => void;
  readonly destinations: readonly Destination[];
}

/** A rule's actions: one destination per row, each with its own enable switch and message template. */
export function ActionRows({ rows, onChange, destinations }: ActionRowsProps) {
  const none = destinations.length === 0;
  // Every title and body box is described by the one list of placeholders under the rows.
  const placeholdersId = useId();
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
      hint={
        rows.length === 0 ? undefined : (
          <span id={placeholdersId}>
            An empty title or body sends the default. Placeholders:{' '}
            {TEMPLATE_PLACEHOLDERS.map((placeholder, index) => (
              <span key={placeholder}>
                {index > 0 && ', '}
                <code>{placeholder}</code>
              </span>
            ))}
            . Values from the event are escaped for the channel, never read as formatting.
          </span>
        )
      }
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
          <div className="field full">
            <RowLabel htmlFor={`${id}-title`} prefix={prefix} word="message title" />
            <input
              id={`${id}-title`}
              value={row.title}
              maxLength={200}
              spellCheck={false}
              placeholder="Default headline"
              aria-describedby={placeholdersId}
              onChange={(e) => change({ title: e.target.value })}
            />
          </div>
          <div className="field full">
            <RowLabel htmlFor={`${id}-body`} prefix={prefix} word="message body" />
            <textarea
              id={`${id}-body`}
              value={row.body}
              rows={3}
              maxLength={4000}
              spellCheck={false}
              placeholder="Default text"
              aria-describedby={placeholdersId}
              onChange={(e) => change({ body: e.target.value })}
            />
          </div>
        </>
      )}
    />
  );
}
