import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { segment } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { useApi } from '../api/session';
import { CHANNELS, type Channel, type CreatedDestination } from '../api/types';
import { FormFooter } from './form-footer';
import { Options, SelectField, TextField } from './form-fields';

export const CHANNEL_NAMES: Readonly<Record<Channel, string>> = { slack: 'Slack', discord: 'Discord', email: 'Email', webhook: 'Webhook' };

const URL_HINTS: Readonly<Record<Exclude<Channel, 'email'>, string>> = {
  slack: 'The incoming-webhook URL Slack gave you (https://hooks.slack.com/services/…).',
  discord: 'The webhook URL from the channel settings (https://discord.com/api/webhooks/…).',
  webhook: 'Your endpoint; each request is signed (Standard Webhooks) with a secret shown once after saving.',
};

interface DestinationFormProps {
  readonly appId: string;
  readonly onCreated: (destination: CreatedDestination) => void;
  readonly onCancel: () => void;
}

/** Adds a Slack, Discord, e-mail or signed-webhook destination. */
export function DestinationForm({ appId, onCreated, onCancel }: DestinationFormProps) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [type, setType] = useState<Channel>('slack');
  const [label, setLabel] = useState('');
  const [target, setTarget] = useState('');

  const save = useMutation({
    mutationFn: () =>
      api.post<CreatedDestination>(`/v1/apps/${segment(appId)}/destinations`, {
        type,
        label,
        ...(type === 'email' ? { email: target.trim() } : { url: target.trim() }),
      }),
    onSuccess: async (created) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.destinations(appId) });
      onCreated(created);
    },
  });

  const submit = (event: FormEvent): void => {
    event.preventDefault();
    save.mutate();
  };

  return (
    <section className="card editor" aria-labelledby="destination-form-title">
      <h3 id="destination-form-title">Add a destination</h3>
      <form className="stack" onSubmit={submit} noValidate>
        <div className="two-columns">
          <SelectField label="Type" value={type} onChange={(e) => setType(e.target.value as Channel)} autoFocus>
            <Options values={CHANNELS} names={CHANNEL_NAMES} />
          </SelectField>
          <TextField label="Label" value={label} onChange={(e) => setLabel(e.target.value)} maxLength={200} />
        </div>
        {type === 'email' ? (
          <TextField label="Email address" type="email" value={target} onChange={(e) => setTarget(e.target.value)} autoComplete="off" />
        ) : (
          <TextField label="URL" type="url" value={target} onChange={(e) => setTarget(e.target.value)} spellCheck={false} hint={URL_HINTS[type]} />
        )}
        <FormFooter error={save.error} pending={save.isPending} submitLabel="Save destination" onCancel={onCancel} />
      </form>
    </section>
  );
}
