import { Link } from 'react-router';
import { EVENT_LEVELS, type EventLevel, type StatsInterval } from '../api/types';
import { DataTable } from './data-table';
import { eventsSearch } from './event-filters';
import { wholeNumber } from './format';
import { bucketFilters, longBucketLabel } from './stats-range';
import type { VolumeBucket } from './volume';

interface VolumeTableProps {
  readonly buckets: readonly VolumeBucket[];
  readonly interval: StatsInterval;
}

/** `Info` for `info`: the table's column headers. */
const heading = (level: EventLevel): string => level.charAt(0).toUpperCase() + level.slice(1);

/**
 * The chart's numbers as text, for keyboards and screen readers: one row per bucket that has events,
 * newest first, each count a link to exactly those events (the same list a click on the bar opens).
 */
export function VolumeTable({ buckets, interval }: VolumeTableProps) {
  const rows = buckets.filter((b) => b.total > 0).reverse();
  return (
    <details className="chart-data">
      <summary>Event volume as a table</summary>
      {rows.length === 0 ? (
        <p className="muted">No events in this range.</p>
      ) : (
        <DataTable caption={`Events per ${interval}, newest first`} columns={['Time', ...EVENT_LEVELS.map(heading), 'Total']}>
          {rows.map((bucket) => {
            const label = longBucketLabel(bucket.start, interval);
            const link = (count: number, level: EventLevel | undefined) =>
              count === 0 ? (
                '0'
              ) : (
                <Link to={`../events${eventsSearch({ ...bucketFilters(bucket.start, interval), level })}`}>
                  {wholeNumber(count)}
                  <span className="sr-only">{` ${level === undefined ? '' : `${level} `}${count === 1 ? 'event' : 'events'} in the ${interval} from ${label}`}</span>
                </Link>
              );
            return (
              <tr key={bucket.start}>
                <th scope="row" className="nowrap">
                  {label}
                </th>
                {EVENT_LEVELS.map((level) => (
                  <td key={level} className="number">
                    {link(bucket.byLevel[level], level)}
                  </td>
                ))}
                <td className="number">{link(bucket.total, undefined)}</td>
              </tr>
            );
          })}
        </DataTable>
      )}
    </details>
  );
}
