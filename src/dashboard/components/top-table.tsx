import type { UseQueryResult } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { EventTop } from '../api/types';
import { DataTable } from './data-table';
import { EmptyState } from './empty-state';
import { ErrorAlert } from './error-alert';
import { eventsSearch } from './event-filters';
import { localDateTime, wholeNumber } from './format';
import { Loading } from './loading';
import type { RangeBounds } from './stats-range';

interface TopTableProps {
  /** The table's name: `Top events`, `Top customers`. */
  readonly caption: string;
  /** The first column: `Event`, `Customer`. */
  readonly column: string;
  /** The events list's filter that the first column's values are: each links to its events in the range. */
  readonly filter: 'type' | 'customer_id';
  readonly top: UseQueryResult<EventTop>;
  readonly bounds: RangeBounds;
}

/** The values with the most events in the range, largest count first, each linking to its events. */
export function TopTable({ caption, column, filter, top, bounds }: TopTableProps) {
  return (
    <div className="top-list">
      <h3>{caption}</h3>
      {top.isPending ? (
        <Loading />
      ) : top.isError ? (
        <ErrorAlert error={top.error} />
      ) : top.data.items.length === 0 ? (
        <EmptyState>None in this range.</EmptyState>
      ) : (
        <DataTable caption={caption} columns={[column, 'Count', 'Last seen']}>
          {top.data.items.map((item) => (
            <tr key={item.key}>
              <td className="mono break">
                <Link to={`../events${eventsSearch({ [filter]: item.key, from: bounds.from, to: bounds.to })}`}>{item.key}</Link>
              </td>
              <td className="number">{wholeNumber(item.count)}</td>
              <td className="nowrap">{localDateTime(item.lastSeen)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </div>
  );
}
