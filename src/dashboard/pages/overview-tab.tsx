import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useMemo, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { segment } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { useApi } from '../api/session';
import type { EventLevel, EventStats, EventTop } from '../api/types';
import { ErrorAlert } from '../components/error-alert';
import { eventsSearch } from '../components/event-filters';
import { share, wholeNumber } from '../components/format';
import { Loading } from '../components/loading';
import { NameValueList } from '../components/name-value-list';
import { RangePicker } from '../components/range-picker';
import { boundsOf, bucketFilters, DEFAULT_RANGE, rangeById, type StatsRange } from '../components/stats-range';
import { TopTable } from '../components/top-table';
import { levelTotal, volumeBuckets, type VolumeBucket } from '../components/volume';
import { VolumeTable } from '../components/volume-table';
import { useAppContext } from './app-context';

const TOP_LIMIT = 10;

/** Chart.js is most of the chart's weight: it loads with the first chart, in a file of its own. */
const VolumeChart = lazy(async () => ({ default: (await import('../components/volume-chart')).VolumeChart }));

/**
 * The app at a glance over a range (in the URL, `?range=7d`, so the view is a link too): totals, event
 * volume per bucket stacked by level, and the events and customers with the most events. A bar, a
 * count of the table or a top entry opens the Events tab filtered to exactly those events.
 */
export function OverviewTab() {
  const { app } = useAppContext();
  const api = useApi();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const [searchParams, setSearchParams] = useSearchParams();
  const range = rangeById(searchParams.get('range'));
  // The range ends with the bucket that held this instant; `Refresh` and a new range move it to now.
  const [now, setNow] = useState(Date.now);
  const bounds = boundsOf(range, now);
  const base = `/v1/apps/${segment(app.id)}/stats`;
  const span = { from: bounds.from, to: bounds.to };

  const stats = useQuery({
    queryKey: [...queryKeys.stats(app.id), 'events', bounds],
    queryFn: () => api.get<EventStats>(`${base}/events`, { ...span, interval: bounds.interval, groupBy: 'level' }),
    placeholderData: keepPreviousData,
  });
  const topOf = (by: 'event' | 'customer_id') => ({
    queryKey: [...queryKeys.stats(app.id), 'top', by, bounds],
    queryFn: () => api.get<EventTop>(`${base}/top`, { ...span, by, limit: TOP_LIMIT }),
    placeholderData: keepPreviousData,
  });
  const topEvents = useQuery(topOf('event'));
  const topCustomers = useQuery(topOf('customer_id'));

  const buckets = useMemo(() => (stats.data ? volumeBuckets(stats.data) : []), [stats.data]);
  const interval = stats.data?.interval ?? bounds.interval;
  const openBucket = useCallback(
    (bucket: VolumeBucket, level: EventLevel | undefined) => void navigate(`../events${eventsSearch({ ...bucketFilters(bucket.start, interval), level })}`),
    [navigate, interval],
  );

  const choose = (next: StatsRange): void => {
    setNow(Date.now());
    setSearchParams(next.id === DEFAULT_RANGE.id ? {} : { range: next.id });
  };
  const refresh = (): void => {
    setNow(Date.now());
    void queryClient.invalidateQueries({ queryKey: queryKeys.stats(app.id) });
  };
  const busy = stats.isFetching || topEvents.isFetching || topCustomers.isFetching;

  return (
    <section aria-labelledby="overview-title" aria-busy={busy}>
      <div className="section-head">
        <h2 id="overview-title">Overview</h2>
        <div className="actions">
          <RangePicker value={range} onChange={choose} />
          <button type="button" className="button small" onClick={refresh} disabled={busy} aria-busy={busy}>
            Refresh
          </button>
        </div>
      </div>

      {stats.isPending ? (
        <Loading />
      ) : stats.isError ? (
        <ErrorAlert error={stats.error} />
      ) : (
        <>
          <NameValueList
            className="totals"
            items={[
              { name: 'Total events', value: wholeNumber(stats.data.total) },
              { name: 'Unique customers', value: wholeNumber(stats.data.uniqueCustomers) },
              { name: 'Error share', value: share(levelTotal(stats.data, 'error'), stats.data.total) },
            ]}
          />
          <div className="card">
            <h3>Event volume</h3>
            <Suspense fallback={<Loading />}>
              <VolumeChart
                buckets={buckets}
                interval={interval}
                description={`Stacked bar chart of events per ${interval} by level over the last ${range.label}. The same numbers, with links to the events, are in "Event volume as a table" below it.`}
                onSelect={openBucket}
              />
            </Suspense>
            <VolumeTable buckets={buckets} interval={interval} />
          </div>
        </>
      )}

      <div className="two-columns">
        <TopTable caption="Top events" column="Event" filter="type" top={topEvents} bounds={bounds} />
        <TopTable caption="Top customers" column="Customer" filter="customer_id" top={topCustomers} bounds={bounds} />
      </div>
    </section>
  );
}
