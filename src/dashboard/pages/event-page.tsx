import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { Link, useLocation, useParams } from 'react-router';
import { ApiError, segment } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { useApi } from '../api/session';
import type { StoredEvent } from '../api/types';
import { ErrorAlert } from '../components/error-alert';
import { EventJson } from '../components/event-json';
import { localDateTime } from '../components/format';
import { Loading } from '../components/loading';
import { NameValueList } from '../components/name-value-list';
import { useAppContext } from './app-context';

/** The list's query the event was opened from (events-tab.tsx puts it in the navigation state). */
function listSearchOf(state: unknown): string {
  if (typeof state === 'object' && state !== null && 'listSearch' in state && typeof state.listSearch === 'string' && /^(\?|$)/.test(state.listSearch)) {
    return state.listSearch;
  }
  return '';
}

/**
 * One event by its id (`/apps/:appId/events/:eventId`), a link that can be shared: every field, with
 * `data` and `metadata` as formatted JSON. Its heading takes the focus when it shows, as a new page's does.
 */
export function EventPage() {
  const { app } = useAppContext();
  const { eventId = '' } = useParams();
  const location = useLocation();
  const api = useApi();
  const event = useQuery({
    queryKey: queryKeys.event(app.id, eventId),
    queryFn: () => api.get<StoredEvent>(`/v1/apps/${segment(app.id)}/events/${segment(eventId)}`),
  });
  const heading = useRef<HTMLHeadingElement>(null);
  const shown = event.isPending ? 'pending' : event.isError ? 'error' : event.data.id;
  useEffect(() => {
    if (shown !== 'pending') heading.current?.focus();
  }, [shown]);

  const back = (
    <p>
      <Link to={`..${listSearchOf(location.state as unknown)}`} relative="path">
        Back to events
      </Link>
    </p>
  );

  if (event.isPending) return <Loading />;
  if (event.isError) {
    const missing = event.error instanceof ApiError && event.error.status === 404;
    return (
      <section aria-labelledby="event-title">
        <h2 id="event-title" ref={heading} tabIndex={-1}>
          {missing ? 'No event with that id' : 'Event'}
        </h2>
        {missing ? (
          <p>
            {app.name} has no event with the id <code>{eventId}</code>. Events are readable about two seconds after they are accepted; check the id, or
            find the event in the list.
          </p>
        ) : (
          <ErrorAlert error={event.error} />
        )}
        {back}
      </section>
    );
  }

  const e = event.data;
  return (
    <section aria-labelledby="event-title">
      {back}
      <h2 id="event-title" ref={heading} tabIndex={-1}>
        Event <span className="mono">{e.event}</span>
      </h2>
      <NameValueList
        className="card event-fields"
        items={[
          { name: 'Id', value: e.id, valueClass: 'mono break' },
          { name: 'Event', value: e.event, valueClass: 'mono break' },
          { name: 'Level', value: <span className={`badge level-${e.level}`}>{e.level}</span> },
          { name: 'Customer ID', value: e.customer_id ?? '—', valueClass: 'mono break' },
          { name: 'Timestamp', value: <Instant iso={e.timestamp} /> },
          { name: 'Ingested at', value: <Instant iso={e.ingestedAt} /> },
        ]}
      />
      <EventJson event={e} />
    </section>
  );
}

/** A time as the reader reads it, with the exact instant the API gave beside it. */
function Instant({ iso }: { readonly iso: string }) {
  return (
    <>
      {localDateTime(iso)}
      <span className="block mono muted small">{iso}</span>
    </>
  );
}
