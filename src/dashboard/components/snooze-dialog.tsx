import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { segment } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { useApi } from '../api/session';
import type { NotificationRule, SnoozeInput } from '../api/types';
import { Dialog } from './dialog';
import { ErrorAlert } from './error-alert';
import { localInputValue } from './format';

interface SnoozeDialogProps {
  readonly appId: string;
  readonly rule: NotificationRule;
  readonly onClose: () => void;
}

/** The API's longest snooze: 30 days. */
const MAX_SNOOZE_MS = 30 * 86_400_000;

/**
 * Snoozes a rule for an hour, a day, or until a time the reader picks in their own time zone. A
 * snoozed rule keeps counting its triggers but sends nothing; snoozing again replaces the end.
 */
export function SnoozeDialog({ appId, rule, onClose }: SnoozeDialogProps) {
  const api = useApi();
  const queryClient = useQueryClient();
  const untilId = useId();
  const [until, setUntil] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const snooze = useMutation({
    mutationFn: (body: SnoozeInput) => api.post<NotificationRule>(`/v1/apps/${segment(appId)}/notification-rules/${segment(rule.id)}/snooze`, body),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.rules(appId) });
      onClose();
    },
  });

  const snoozeUntil = (event: FormEvent): void => {
    event.preventDefault();
    // `YYYY-MM-DDTHH:mm` without a zone is read as local time, which is what the input shows.
    const end = until === '' ? Number.NaN : new Date(until).getTime();
    if (Number.isNaN(end)) {
      setProblem('Choose the date and time the snooze ends.');
      return;
    }
    setProblem(null);
    snooze.mutate({ until: new Date(end).toISOString() });
  };

  const now = Date.now();
  return (
    <Dialog title={`Snooze ${rule.name}`} onClose={onClose}>
      <div className="dialog-body">
        <p>While snoozed, the rule keeps counting its triggers but sends no alerts.</p>
        <div className="snooze-choices">
          <button type="button" className="button" data-autofocus disabled={snooze.isPending} onClick={() => snooze.mutate({ minutes: 60 })}>
            Snooze for 1 hour
          </button>
          <button type="button" className="button" disabled={snooze.isPending} onClick={() => snooze.mutate({ minutes: 1440 })}>
            Snooze for 1 day
          </button>
        </div>
        <form className="inline-form" onSubmit={snoozeUntil} noValidate>
          <div className="field">
            <label htmlFor={untilId}>Snooze until</label>
            <input
              id={untilId}
              type="datetime-local"
              value={until}
              min={localInputValue(now)}
              max={localInputValue(now + MAX_SNOOZE_MS)}
              onChange={(e) => setUntil(e.target.value)}
            />
          </div>
          <button type="submit" className="button" disabled={snooze.isPending} aria-busy={snooze.isPending}>
            Snooze until that time
          </button>
        </form>
      </div>
      <ErrorAlert error={problem === null ? snooze.error : new Error(problem)} />
      <div className="dialog-actions">
        <button type="button" className="button" onClick={onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
