import { useMutation, useQueryClient } from '@tanstack/react-query';
import { segment } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { useApi } from '../api/session';
import type { Destination } from '../api/types';
import { CHANNEL_NAMES } from './destination-form';
import { ErrorAlert } from './error-alert';

interface DestinationRowProps {
  readonly appId: string;
  readonly destination: Destination;
  readonly onEdit: (destination: Destination) => void;
  readonly onDelete: (destination: Destination) => void;
}

/** One destination; its test runs here, so a failure's reason shows in this row. */
export function DestinationRow({ appId, destination, onEdit, onDelete }: DestinationRowProps) {
  const api = useApi();
  const queryClient = useQueryClient();
  const test = useMutation({
    mutationFn: () => api.post<Destination>(`/v1/apps/${segment(appId)}/destinations/${segment(destination.id)}/test`),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.destinations(appId) }),
  });

  return (
    <tr>
      <td>{destination.label}</td>
      <td>{CHANNEL_NAMES[destination.type]}</td>
      <td className="mono break">{destination.url ?? destination.email}</td>
      <td>{destination.verified ? <span className="badge ok">Verified</span> : <span className="badge">Not verified</span>}</td>
      <td>
        <div className="row-actions">
          <button type="button" className="button small" onClick={() => test.mutate()} disabled={test.isPending} aria-busy={test.isPending}>
            Send test<span className="sr-only"> to {destination.label}</span>
          </button>
          <button type="button" className="button small" onClick={() => onEdit(destination)}>
            Edit<span className="sr-only"> {destination.label}</span>
          </button>
          <button type="button" className="button small danger-outline" onClick={() => onDelete(destination)}>
            Delete<span className="sr-only"> {destination.label}</span>
          </button>
        </div>
        {test.isSuccess && (
          <p role="status" className="small success-text">
            Test delivered.
          </p>
        )}
        <ErrorAlert error={test.error} />
      </td>
    </tr>
  );
}
