import { useId, useState } from 'react';
import type { StoredEvent } from '../api/types';
import { localDateTime, prettyJson } from './format';

/** One event; `Details` opens its data and metadata under it as formatted JSON. */
export function EventRow({ event }: { readonly event: StoredEvent }) {
  const [open, setOpen] = useState(false);
  const detailsId = useId();
  return (
    <>
      <tr>
        <td className="nowrap">{localDateTime(event.timestamp)}</td>
        <td className="mono">{event.event}</td>
        <td>
          <span className={`badge level-${event.level}`}>{event.level}</span>
        </td>
        <td className="mono">{event.customer_id ?? '—'}</td>
        <td>
          <button type="button" className="button small" aria-expanded={open} aria-controls={detailsId} onClick={() => setOpen(!open)}>
            Details
          </button>
        </td>
      </tr>
      <tr id={detailsId} className="details-row" hidden={!open}>
        <td colSpan={5}>
          {open && (
            <div className="details-grid">
              <div>
                <h4>Data</h4>
                <pre tabIndex={0}>{prettyJson(event.data)}</pre>
              </div>
              <div>
                <h4>Metadata</h4>
                <pre tabIndex={0}>{prettyJson(event.metadata)}</pre>
              </div>
              <p className="muted small">
                Event id <code>{event.id}</code> · ingested {localDateTime(event.ingestedAt)}
              </p>
            </div>
          )}
        </td>
      </tr>
    </>
  );
}
