import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { segment } from '../api/client';
import { queryKeys } from '../api/query-keys';
import { useApi } from '../api/session';
import { CHANNELS, type Channel, type CreatedDestination, type Destination } from '../api/types';
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
  /** The destination to change; absent to add one. */
  readonly editing?: Destination;
  readonly onSaved: (destination: CreatedDestination) => void;
  readonly onCancel: () => void;
}

/**
 * Adds a Slack, Discord, e-mail or signed-webhook destination, or changes one. A destination keeps its
 * type. Its URL is a secret that the API only ever shows masked, so an edit starts with the URL empty
 * and leaves it as it is unless a new one is typed; a new URL or address makes it unverified again.
 */
export function DestinationForm({ appId, editing, onSaved, onCancel }: DestinationFormProps) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [type, setType] = useState<Channel>(editing?.type ?? 'slack');
  const [label, setLabel] = useState(editing?.label ?? '');
  const [target, setTarget] = useState(editing?.email ?? '');

  const save = useMutation({
    mutationFn: () => {
      const value = target.trim();
      const destinationTarget = type === 'email' ? { email: value } : { url: value };
      if (!editing) return api.post<CreatedDestination>(`/v1/apps/${segment(appId)}/destinations`, { type, label, ...destinationTarget });
      const targetChanged = type === 'email' ? value !== editing.email : value !== '';
      return api.patch<Destination>(`/v1/apps/${segment(appId)}/destinations/${segment(editing.id)}`, { label, ...(targetChanged ? destinationTarget : {}) });
    },
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.destinations(appId) });
      onSaved(saved);
    },
  });

  const submit = (event: FormEvent): void => {
    event.preventDefault();
    save.mutate();
  };

  const urlHint = type === 'email' ? '' : editing ? `Leave empty to keep the current URL (${editing.url ?? 'not set'}); a new URL needs a new test.` : URL_HINTS[type];
  return (
    <section className="card editor" aria-labelledby="destination-form-title">
      <h3 id="destination-form-title">{editing ? `Edit ${editing.label}` : 'Add a destination'}</h3>
      <form className="stack" onSubmit={submit} noValidate>
        <div className="two-columns">
          <SelectField label="Type" value={type} onChange={(e) => setType(e.target.value as Channel)} disabled={editing !== undefined} autoFocus={!editing}>
            <Options values={CHANNELS} names={CHANNEL_NAMES} />
          </SelectField>
          <TextField label="Label" value={label} onChange={(e) => setLabel(e.target.value)} maxLength={200} autoFocus={editing !== undefined} />
        </div>
        {type === 'email' ? (
          <TextField label="Email address" type="email" value={target} onChange={(e) => setTarget(e.target.value)} autoComplete="off" />
        ) : (
          <TextField label="URL" type="url" value={target} onChange={(e) => setTarget(e.target.value)} spellCheck={false} hint={urlHint} />
        )}
        <FormFooter error={save.error} pending={save.isPending} submitLabel="Save destination" onCancel={onCancel} />
      </form>
    </section>
  );
}
