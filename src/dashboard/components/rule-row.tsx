import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { segment } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { useApi } from '../api/session';
import type { NotificationRule } from '../api/types';
import { ErrorAlert } from './error-alert';
import { localDateTime } from './format';
import { triggerInWords } from './rule-drafts';
import { SnoozeDialog } from './snooze-dialog';
import { Switch } from './switch';

interface RuleRowProps {
  readonly appId: string;
  readonly rule: NotificationRule;
  readonly onEdit: (rule: NotificationRule) => void;
  readonly onDelete: (rule: NotificationRule) => void;
}

/** A snooze whose end has passed is over, whatever the stored time says. */
function snoozedUntil(rule: NotificationRule, now = Date.now()): string | null {
  return rule.snoozedUntil !== null && Date.parse(rule.snoozedUntil) > now ? rule.snoozedUntil : null;
}

/** One rule: its switch and Unsnooze act at once, and a failure shows in this row. */
export function RuleRow({ appId, rule, onEdit, onDelete }: RuleRowProps) {
  const api = useApi();
  const queryClient = useQueryClient();
  // What the switch shows until the list has re-read the rule: it moves the moment it is pressed.
  const [optimistic, setOptimistic] = useState<boolean | null>(null);
  const [snoozing, setSnoozing] = useState(false);
  const snoozed = snoozedUntil(rule);
  // The list re-renders only when the API's answer changes: the end of a snooze re-renders the row.
  const [checks, setChecks] = useState(0);
  useEffect(() => {
    if (snoozed === null) return undefined;
    // setTimeout holds at most 2^31 - 1 ms (under 25 days): a longer snooze looks again after a day.
    const timer = setTimeout(() => setChecks((n) => n + 1), Math.min(Date.parse(snoozed) - Date.now() + 100, 86_400_000));
    return () => clearTimeout(timer);
  }, [snoozed, checks]);
  const unsnooze = useMutation({
    mutationFn: () => api.delete(`/v1/apps/${segment(appId)}/notification-rules/${segment(rule.id)}/snooze`),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.rules(appId) }),
  });
  const toggle = useMutation({
    mutationFn: (enabled: boolean) => api.patch<NotificationRule>(`/v1/apps/${segment(appId)}/notification-rules/${segment(rule.id)}`, { enabled }),
    onSettled: async () => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.rules(appId) });
      setOptimistic(null);
    },
  });

  return (
    <tr>
      <td className="strong">{rule.name}</td>
      <td className="mono">{rule.eventName}</td>
      <td>{triggerInWords(rule.trigger)}</td>
      <td>
        <Switch
          label={`Enable ${rule.name}`}
          visibleLabel={(optimistic ?? rule.enabled) ? 'On' : 'Off'}
          checked={optimistic ?? rule.enabled}
          onChange={(enabled) => {
            setOptimistic(enabled);
            toggle.mutate(enabled);
          }}
        />
        <ErrorAlert error={toggle.error} />
        {snoozed !== null && <p className="small warning">Snoozed until {localDateTime(snoozed)}</p>}
      </td>
      <td className="number">
        {rule.triggerCount}
        {rule.suppressedCount > 0 && <span className="block muted small"> ({rule.suppressedCount} while snoozed)</span>}
      </td>
      <td>{localDateTime(rule.lastTriggeredAt, 'Never')}</td>
      <td>
        <div className="row-actions">
          <button type="button" className="button small" onClick={() => onEdit(rule)}>
            Edit<span className="sr-only"> {rule.name}</span>
          </button>
          <button type="button" className="button small" onClick={() => setSnoozing(true)}>
            Snooze<span className="sr-only"> {rule.name}</span>
          </button>
          {snoozed !== null && (
            <button type="button" className="button small" onClick={() => unsnooze.mutate()} disabled={unsnooze.isPending} aria-busy={unsnooze.isPending}>
              Unsnooze<span className="sr-only"> {rule.name}</span>
            </button>
          )}
          <button type="button" className="button small danger-outline" onClick={() => onDelete(rule)}>
            Delete<span className="sr-only"> {rule.name}</span>
          </button>
        </div>
        <ErrorAlert error={unsnooze.error} />
        {snoozing && <SnoozeDialog appId={appId} rule={rule} onClose={() => setSnoozing(false)} />}
      </td>
    </tr>
  );
}
