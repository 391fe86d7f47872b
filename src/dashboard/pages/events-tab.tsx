import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { segment } from '../api/client';
import { LIST_QUERY, queryKeys } from '../api/query-keys';
import { useApi } from '../api/session';
import type { EventSchema, Page, StoredEvent } from '../api/types';
import { DataTable } from '../components/data-table';
import { EmptyState } from '../components/empty-state';
import { ErrorAlert } from '../components/error-alert';
import { EventFilters, eventsSearch, filtersFromSearch } from '../components/event-filters';
import { EVENT_COLUMNS, EventRow } from '../components/event-row';
import { Loading } from '../components/loading';
import { Pager } from '../components/pager';
import { TestEventForm } from '../components/test-event-form';
import { useCursorPages } from '../components/use-cursor-pages';
import { useAppContext } from './app-context';

/** After a test event, the list is re-read every second until the event shows, for at most this long. */
const ARRIVAL_WATCH_MS = 15_000;
const PAGE_SIZE = 25;

/** The app's events, newest first, filtered by the URL's query (so that a filtered list is a link). */
export function EventsTab() {
  const { app } = useAppContext();
  const api = useApi();
  const queryClient = useQueryClient();
  const [searchParams, setSearchParams] = useSearchParams();
  const filters = filtersFromSearch(searchParams);
  const search = eventsSearch(filters);
  const pages = useCursorPages(search);
  const [awaiting, setAwaiting] = useState<{ readonly id: string; readonly until: number } | null>(null);

  const schemas = useQuery({ queryKey: queryKeys.schemas(app.id), queryFn: () => api.get<EventSchema[]>(`/v1/apps/${segment(app.id)}/schemas`, LIST_QUERY) });
  const events = useQuery({
    queryKey: [...queryKeys.events(app.id), search, pages.cursor],
    queryFn: () => api.get<Page<StoredEvent>>(`/v1/apps/${segment(app.id)}/events`, { ...filters, limit: PAGE_SIZE, cursor: pages.cursor }),
    placeholderData: keepPreviousData,
    // Events are readable within 2 s of their 202: watch for the test event.
    refetchInterval: (query) => {
      if (!awaiting || Date.now() > awaiting.until) return false;
      return query.state.data?.items.some((e) => e.id === awaiting.id) ? false : 1_000;
    },
  });
  const arrived = awaiting !== null && events.data?.items.some((e) => e.id === awaiting.id) === true;

  return (
    <section aria-labelledby="events-title">
      <h2 id="events-title">Events</h2>
      <TestEventForm
        appId={app.id}
        eventNames={schemas.data?.map((s) => s.eventName) ?? []}
        onAccepted={(id) => {
          pages.first();
          setAwaiting({ id, until: Date.now() + ARRIVAL_WATCH_MS });
          void queryClient.invalidateQueries({ queryKey: queryKeys.events(app.id) });
        }}
      />
      <p role="status" className="small success-text">
        {arrived ? 'The test event has arrived: it is in the list below.' : ''}
      </p>

      <div className="card">
        <EventFilters
          // The form starts again from the URL whenever that changes (a link followed, Back pressed).
          key={search}
          initial={filters}
          onApply={(applied) => {
            // The same filters again leave the URL as it is: back to their first page all the same.
            if (eventsSearch(applied) === search) pages.first();
            setSearchParams(eventsSearch(applied));
          }}
          onRefresh={() => void events.refetch()}
          refreshing={events.isFetching}
        />
      </div>

      {events.isPending ? (
        <Loading />
      ) : events.isError ? (
        <ErrorAlert error={events.error} />
      ) : events.data.items.length === 0 ? (
        <EmptyState>{pages.pageNumber === 1 ? 'No events match these filters.' : 'No more events.'}</EmptyState>
      ) : (
        <DataTable caption="Events, newest first" columns={EVENT_COLUMNS} stackOnPhones>
          {events.data.items.map((event) => (
            <EventRow key={event.id} event={event} listSearch={search} />
          ))}
        </DataTable>
      )}
      <Pager pageNumber={pages.pageNumber} nextCursor={events.data?.nextCursor} onNext={pages.next} onPrevious={pages.previous} onFirst={pages.first} />
    </section>
  );
}
