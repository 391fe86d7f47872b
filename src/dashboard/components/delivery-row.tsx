import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState } from 'react';
import { segment } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { useApi } from '../api/session';
import type { Delivery, DeliveryWithAttempts } from '../api/types';
import { DeliveryAttempts } from './delivery-attempts';
import { ErrorAlert } from './error-alert';
import { localDateTime } from './format';

const STATUS_BADGES: Readonly<Record<Delivery['status'], string>> = { pending: 'badge', succeeded: 'badge ok', failed: 'badge bad' };
const COLUMNS = 7;

interface DeliveryRowProps {
  readonly appId: string;
  readonly delivery: Delivery;
  readonly ruleName: string;
  readonly destinationLabel: string;
}

/**
 * One delivery. `Attempts` opens its attempts under it; a failed one has `Retry`, which makes it
 * pending again at once (the log and the attempts refresh until it is done).
 */
export function DeliveryRow({ appId, delivery, ruleName, destinationLabel }: DeliveryRowProps) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const detailsId = useId();
  const attemptsButton = useRef<HTMLButtonElement>(null);
  const time = localDateTime(delivery.createdAt);
  // The accessible names say which delivery: rows have no name of their own.
  const which = `the delivery to ${destinationLabel} at ${time}`;
  const retry = useMutation({
    mutationFn: () => api.post<DeliveryWithAttempts>(`/v1/apps/${segment(appId)}/deliveries/${segment(delivery.id)}/retry`),
    onSuccess: () => {
      // The attempts show the new one coming; the Retry button goes, so the focus moves to them.
      setOpen(true);
      attemptsButton.current?.focus();
    },
    // A 409 (someone else retried it, or it is no longer failed) also means the log is behind.
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.deliveries(appId) }),
  });

  return (
    <>
      <tr>
        <td className="nowrap">{time}</td>
        <td>
          <span className={STATUS_BADGES[delivery.status]}>{delivery.status}</span>
        </td>
        <td>{ruleName}</td>
        <td>{destinationLabel}</td>
        <td className="number">{delivery.attempts}</td>
        <td className="break">{delivery.lastError ?? '—'}</td>
        <td>
          <div className="row-actions">
            <button ref={attemptsButton} type="button" className="button small" aria-expanded={open} aria-controls={detailsId} onClick={() => setOpen(!open)}>
              Attempts<span className="sr-only"> of {which}</span>
            </button>
            {delivery.status === 'failed' && (
              <button type="button" className="button small" onClick={() => retry.mutate()} disabled={retry.isPending} aria-busy={retry.isPending}>
                Retry<span className="sr-only"> {which}</span>
              </button>
            )}
          </div>
          <ErrorAlert error={retry.error} />
          <p role="status" className="small success-text">
            {retry.isSuccess && delivery.status === 'pending' ? 'Retrying now.' : ''}
          </p>
        </td>
      </tr>
      <tr id={detailsId} className="details-row" hidden={!open}>
        <td colSpan={COLUMNS}>{open && <DeliveryAttempts appId={appId} deliveryId={delivery.id} caption={`Attempts of ${which}`} />}</td>
      </tr>
    </>
  );
}
