import { useId, useState } from 'react';
import { Link } from 'react-router';
import type { StoredEvent } from '../api/types';
import { EventJson } from './event-json';
import { localDateTime } from './format';

export const EVENT_COLUMNS = ['Time', 'Event', 'Level', 'Customer', 'Details'] as const;

interface EventRowProps {
  readonly event: StoredEvent;
  /** The list's query, for the event page's way back to it. */
  readonly listSearch: string;
}

/**
 * One event. Its time links to the event's own page (a link that can be shared); `Details` opens its
 * data and metadata under it as formatted JSON. The cells of values name their column in `data-label`:
 * on a phone the rows become cards that show the names beside the values (styles/phones.css).
 */
export function EventRow({ event, listSearch }: EventRowProps) {
  const [open, setOpen] = useState(false);
  const detailsId = useId();
  const [time, name, level, customer] = EVENT_COLUMNS;
  return (
    <>
      <tr>
        <td className="nowrap" data-label={time}>
          <Link to={event.id} state={{ listSearch }}>
            {localDateTime(event.timestamp)}
          </Link>
        </td>
        <td className="mono break" data-label={name}>
          {event.event}
        </td>
        <td data-label={level}>
          <span className={`badge level-${event.level}`}>{event.level}</span>
        </td>
        <td className="mono break" data-label={customer}>
          {event.customer_id ?? '—'}
        </td>
        {/* No label on a phone: the button says what it is. */}
        <td>
          <button type="button" className="button small" aria-expanded={open} aria-controls={detailsId} onClick={() => setOpen(!open)}>
            Details
          </button>
        </td>
      </tr>
      <tr id={detailsId} className="details-row" hidden={!open}>
        <td colSpan={EVENT_COLUMNS.length}>
          {open && (
            <EventJson event={event}>
              <p className="muted small">
                Event id <code>{event.id}</code> · ingested {localDateTime(event.ingestedAt)}
              </p>
            </EventJson>
          )}
        </td>
      </tr>
    </>
  );
}
