import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { segment } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { useApi } from '../api/session';
import type { NotificationRule } from '../api/types';
import { ErrorAlert } from './error-alert';
import { localDateTime } from './format';
import { Switch } from './switch';

interface RuleRowProps {
  readonly appId: string;
  readonly rule: NotificationRule;
  readonly onEdit: (rule: NotificationRule) => void;
  readonly onDelete: (rule: NotificationRule) => void;
}

/** One rule: its switch acts at once, and a failure shows in this row. */
export function RuleRow({ appId, rule, onEdit, onDelete }: RuleRowProps) {
  const api = useApi();
  const queryClient = useQueryClient();
  // What the switch shows until the list has re-read the rule: it moves the moment it is pressed.
  const [optimistic, setOptimistic] = useState<boolean | null>(null);
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
      </td>
      <td className="number">{rule.triggerCount}</td>
      <td>{localDateTime(rule.lastTriggeredAt, 'Never')}</td>
      <td>
        <div className="row-actions">
          <button type="button" className="button small" onClick={() => onEdit(rule)}>
            Edit<span className="sr-only"> {rule.name}</span>
          </button>
          <button type="button" className="button small danger-outline" onClick={() => onDelete(rule)}>
            Delete<span className="sr-only"> {rule.name}</span>
          </button>
        </div>
      </td>
    </tr>
  );
}
