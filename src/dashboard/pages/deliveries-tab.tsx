import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { segment } from '../api/client';
import { LIST_QUERY, queryKeys } from '../api/query-keys';
import { useApi } from '../api/session';
import { DELIVERY_STATUSES, type Delivery, type Destination, type NotificationRule, type Page } from '../api/types';
import { DataTable } from '../components/data-table';
import { EmptyState } from '../components/empty-state';
import { ErrorAlert } from '../components/error-alert';
import { Options, SelectField } from '../components/form-fields';
import { localDateTime } from '../components/format';
import { Loading } from '../components/loading';
import { Pager } from '../components/pager';
import { useCursorPages } from '../components/use-cursor-pages';
import { useAppContext } from './app-context';

/** The log refreshes while the tab is open: a pending delivery's retries show as they happen. */
const POLL_MS = 3_000;
const PAGE_SIZE = 25;

const STATUS_BADGES: Readonly<Record<Delivery['status'], string>> = { pending: 'badge', succeeded: 'badge ok', failed: 'badge bad' };

/** What each rule action sent, newest first, with the rule and destination by name. */
export function DeliveriesTab() {
  const { app } = useAppContext();
  const api = useApi();
  const [status, setStatus] = useState('');
  const pages = useCursorPages();
  const base = `/v1/apps/${segment(app.id)}`;

  const deliveries = useQuery({
    queryKey: [...queryKeys.deliveries(app.id), status, pages.cursor],
    queryFn: () => api.get<Page<Delivery>>(`${base}/deliveries`, { status, limit: PAGE_SIZE, cursor: pages.cursor }),
    refetchInterval: POLL_MS,
    placeholderData: keepPreviousData,
  });
  const rules = useQuery({ queryKey: queryKeys.rules(app.id), queryFn: () => api.get<NotificationRule[]>(`${base}/notification-rules`, LIST_QUERY) });
  const destinations = useQuery({ queryKey: queryKeys.destinations(app.id), queryFn: () => api.get<Destination[]>(`${base}/destinations`, LIST_QUERY) });

  const ruleName = (id: string): string => rules.data?.find((r) => r.id === id)?.name ?? '(deleted rule)';
  const destinationLabel = (id: string): string => destinations.data?.find((d) => d.id === id)?.label ?? '(deleted destination)';

  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Deliveries</h2>
      <p className="muted">Every alert a rule action sent or is still trying to send. A failed attempt is retried for up to about two hours.</p>
      <div className="filters">
        <SelectField
          label="Status"
          value={status}
          onChange={(e) => {
            setStatus(e.target.value);
            pages.first();
          }}
        >
          <option value="">Any status</option>
          <Options values={DELIVERY_STATUSES} />
        </SelectField>
      </div>

      {deliveries.isPending ? (
        <Loading />
      ) : deliveries.isError ? (
        <ErrorAlert error={deliveries.error} />
      ) : deliveries.data.items.length === 0 ? (
        <EmptyState>{pages.pageNumber === 1 ? 'No deliveries yet: they appear when a rule with actions triggers.' : 'No more deliveries.'}</EmptyState>
      ) : (
        <DataTable caption="Deliveries, newest first" columns={['Time', 'Status', 'Rule', 'Destination', 'Attempts', 'Last error']}>
          {deliveries.data.items.map((delivery) => (
            <tr key={delivery.id}>
              <td className="nowrap">{localDateTime(delivery.createdAt)}</td>
              <td>
                <span className={STATUS_BADGES[delivery.status]}>{delivery.status}</span>
              </td>
              <td>{ruleName(delivery.ruleId)}</td>
              <td>{destinationLabel(delivery.destinationId)}</td>
              <td className="number">{delivery.attempts}</td>
              <td className="break">{delivery.lastError ?? '—'}</td>
            </tr>
          ))}
        </DataTable>
      )}
      <Pager pageNumber={pages.pageNumber} nextCursor={deliveries.data?.nextCursor} onNext={pages.next} onPrevious={pages.previous} onFirst={pages.first} />
    </section>
  );
}
