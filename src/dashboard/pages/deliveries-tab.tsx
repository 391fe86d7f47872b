import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { segment } from '../api/client';
import { LIST_QUERY, queryKeys } from '../api/query-keys';
import { useApi } from '../api/session';
import { DELIVERY_STATUSES, type Delivery, type Destination, type NotificationRule, type Page } from '../api/types';
import { DataTable } from '../components/data-table';
import { DeliveryRow } from '../components/delivery-row';
import { EmptyState } from '../components/empty-state';
import { ErrorAlert } from '../components/error-alert';
import { Options, SelectField } from '../components/form-fields';
import { Loading } from '../components/loading';
import { Pager } from '../components/pager';
import { useCursorPages } from '../components/use-cursor-pages';
import { useListNames } from '../components/use-list-names';
import { useAppContext } from './app-context';

/** The log refreshes while the tab is open: a pending delivery's retries show as they happen. */
const POLL_MS = 3_000;
const PAGE_SIZE = 25;

/** What the log says when it lists nothing: with a status chosen, that none has it, not that none exist. */
function emptySentence(status: string, pageNumber: number): string {
  if (pageNumber > 1) return 'No more deliveries.';
  return status === '' ? 'No deliveries yet: they appear when a rule with actions triggers.' : `No ${status} deliveries.`;
}

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

  const items = deliveries.data?.items ?? [];
  const ruleName = useListNames(rules, items.map((d) => d.ruleId), (r) => r.name, '(deleted rule)');
  const destinationLabel = useListNames(destinations, items.map((d) => d.destinationId), (d) => d.label, '(deleted destination)');

  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Deliveries</h2>
      <p className="muted">
        Every alert a rule action sent or is still trying to send. A failed attempt is retried for up to about two hours; after that, or after an error that
        retrying cannot mend, the delivery is failed and can be sent again with Retry.
      </p>
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
        <EmptyState>{emptySentence(status, pages.pageNumber)}</EmptyState>
      ) : (
        <DataTable caption="Deliveries, newest first" columns={['Time', 'Status', 'Rule', 'Destination', 'Attempts', 'Last error', 'Actions']}>
          {deliveries.data.items.map((delivery) => (
            <DeliveryRow
              key={delivery.id}
              appId={app.id}
              delivery={delivery}
              ruleName={ruleName(delivery.ruleId)}
              destinationLabel={destinationLabel(delivery.destinationId)}
            />
          ))}
        </DataTable>
      )}
      <Pager pageNumber={pages.pageNumber} nextCursor={deliveries.data?.nextCursor} onNext={pages.next} onPrevious={pages.previous} onFirst={pages.first} />
    </section>
  );
}
