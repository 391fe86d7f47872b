import { useMutation } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { segment } from '../api/client';
import { useApi } from '../api/session';
import { EVENT_LEVELS, type EventLevel, type IngestResponse } from '../api/types';
import { FormFooter } from './form-footer';
import { Options, SelectField, TextAreaField, TextField } from './form-fields';

/** The JSON text as the event's `data`, or a plain-words reason why it cannot be. */
function parseData(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text.trim() === '' ? '{}' : text);
  } catch (err) {
    throw new Error(`Test event data (JSON) is not valid JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('Test event data (JSON) must be a JSON object, such as {"amount": 42}.');
  return value as Record<string, unknown>;
}

interface TestEventFormProps {
  readonly appId: string;
  readonly eventNames: readonly string[];
  readonly onAccepted: (eventId: string) => void;
}

/**
 * Sends one event through POST /v1/apps/{appId}/events/test: the dashboard never holds the app's
 * API key, and the event runs through the whole pipeline like any other.
 */
export function TestEventForm({ appId, eventNames, onAccepted }: TestEventFormProps) {
  const api = useApi();
  const namesId = useId();
  const [name, setName] = useState('');
  const [level, setLevel] = useState<EventLevel>('info');
  const [customerId, setCustomerId] = useState('');
  const [data, setData] = useState('{}');
  const [acceptedId, setAcceptedId] = useState<string | null>(null);

  const send = useMutation({
    mutationFn: () => {
      const body = { event: name.trim(), level, data: parseData(data), ...(customerId.trim() === '' ? {} : { customer_id: customerId.trim() }) };
      return api.post<IngestResponse>(`/v1/apps/${segment(appId)}/events/test`, body);
    },
    onMutate: () => setAcceptedId(null),
    onSuccess: (response) => {
      const id = response.events[0]?.id ?? '';
      setAcceptedId(id);
      onAccepted(id);
    },
  });

  const submit = (event: FormEvent): void => {
    event.preventDefault();
    send.mutate();
  };

  return (
    <form className="card stack" aria-labelledby="test-event-title" onSubmit={submit} noValidate>
      <h3 id="test-event-title">Send a test event</h3>
      <div className="three-columns">
        <TextField label="Test event name" value={name} onChange={(e) => setName(e.target.value)} list={namesId} spellCheck={false} />
        <SelectField label="Test event level" value={level} onChange={(e) => setLevel(e.target.value as EventLevel)}>
          <Options values={EVENT_LEVELS} />
        </SelectField>
        <TextField label="Test customer ID" value={customerId} onChange={(e) => setCustomerId(e.target.value)} spellCheck={false} />
      </div>
      <datalist id={namesId}>
        {eventNames.map((eventName) => (
          <option key={eventName} value={eventName} />
        ))}
      </datalist>
      <TextAreaField
        label="Test event data (JSON)"
        className="json-field"
        rows={4}
        value={data}
        onChange={(e) => setData(e.target.value)}
        spellCheck={false}
        hint="A JSON object. The app's default metadata is attached as for any event."
      />
      <FormFooter
        error={send.error}
        pending={send.isPending}
        submitLabel="Send test event"
        status={
          acceptedId !== null && (
            <>
              Test event accepted: <code>{acceptedId}</code>
            </>
          )
        }
      />
    </form>
  );
}
