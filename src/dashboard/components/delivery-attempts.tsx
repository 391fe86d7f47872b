import { useQuery } from '@tanstack/react-query';
import { segment } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { useApi } from '../api/session';
import type { AttemptOutcome, DeliveryWithAttempts } from '../api/types';
import { DataTable } from './data-table';
import { ErrorAlert } from './error-alert';
import { localDateTime } from './format';
import { Loading } from './loading';

/** While a delivery is pending its next attempt may come within a second (a retry by hand does). */
const PENDING_POLL_MS = 1_000;
/** Otherwise as often as the log itself, in case a retry elsewhere reopens it. */
const SETTLED_POLL_MS = 3_000;

const OUTCOME_WORDS: Readonly<Record<AttemptOutcome, string>> = {
  in_progress: 'in progress',
  succeeded: 'succeeded',
  failed: 'failed',
  abandoned: 'abandoned',
};
const OUTCOME_BADGES: Readonly<Record<AttemptOutcome, string>> = { in_progress: 'badge', succeeded: 'badge ok', failed: 'badge bad', abandoned: 'badge' };

/** Every attempt of one delivery, oldest first, as GET …/deliveries/{id} gives them. */
export function DeliveryAttempts({ appId, deliveryId, caption }: { readonly appId: string; readonly deliveryId: string; readonly caption: string }) {
  const api = useApi();
  const detail = useQuery({
    queryKey: queryKeys.delivery(appId, deliveryId),
    queryFn: () => api.get<DeliveryWithAttempts>(`/v1/apps/${segment(appId)}/deliveries/${segment(deliveryId)}`),
    refetchInterval: (query) => (query.state.data?.status === 'pending' ? PENDING_POLL_MS : SETTLED_POLL_MS),
  });

  if (detail.isPending) return <Loading />;
  if (detail.isError) return <ErrorAlert error={detail.error} />;
  const { attempts } = detail.data;
  return (
    <div className="attempts">
      {attempts.length === 0 ? (
        <p className="muted small">No attempt yet: the first one is due now.</p>
      ) : (
        <DataTable caption={caption} columns={['Attempt', 'Started', 'Duration', 'Outcome', 'HTTP status', 'Error']}>
          {attempts.map((attempt) => (
            <tr key={attempt.number}>
              <td className="number">{attempt.number}</td>
              <td className="nowrap">{localDateTime(attempt.startedAt)}</td>
              <td className="number nowrap">{attempt.durationMs === null ? '—' : `${attempt.durationMs} ms`}</td>
              <td>
                <span className={OUTCOME_BADGES[attempt.outcome]}>{OUTCOME_WORDS[attempt.outcome]}</span>
              </td>
              <td className="number">{attempt.httpStatus ?? '—'}</td>
              <td className="break">{attempt.error ?? '—'}</td>
            </tr>
          ))}
        </DataTable>
      )}
      <p className="muted small">
        Delivery id <code>{deliveryId}</code>: the <code>webhook-id</code> a receiver sees.
      </p>
    </div>
  );
}
