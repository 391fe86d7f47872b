import { useState, type FormEvent } from 'react';
import { EVENT_LEVELS } from '../api/types';
import { Options, SelectField, TextField } from './form-fields';

/** The events read's filters, as its query parameters want them. */
export interface EventFilterValues {
  readonly level?: string;
  readonly type?: string;
  readonly from?: string;
  readonly to?: string;
  readonly customer_id?: string;
}

/** `datetime-local` gives local wall time without a zone; the API wants an instant. */
function toInstant(local: string): string | undefined {
  if (local === '') return undefined;
  const date = new Date(local);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function optional(text: string): string | undefined {
  const trimmed = text.trim();
  return trimmed === '' ? undefined : trimmed;
}

interface EventFiltersProps {
  readonly onApply: (filters: EventFilterValues) => void;
  readonly onRefresh: () => void;
  readonly refreshing: boolean;
}

/** Level, event name, time range and customer; applied together with `Apply filters`. */
export function EventFilters({ onApply, onRefresh, refreshing }: EventFiltersProps) {
  const [level, setLevel] = useState('');
  const [type, setType] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [customerId, setCustomerId] = useState('');

  const submit = (event: FormEvent): void => {
    event.preventDefault();
    onApply({ level: optional(level), type: optional(type), from: toInstant(from), to: toInstant(to), customer_id: optional(customerId) });
  };

  return (
    <form className="filters" aria-label="Event filters" onSubmit={submit}>
      <SelectField label="Level" value={level} onChange={(e) => setLevel(e.target.value)}>
        <option value="">Any level</option>
        <Options values={EVENT_LEVELS} />
      </SelectField>
      <TextField label="Event name" value={type} onChange={(e) => setType(e.target.value)} spellCheck={false} />
      <TextField label="From" type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} />
      <TextField label="To" type="datetime-local" value={to} onChange={(e) => setTo(e.target.value)} />
      <TextField label="Customer ID" value={customerId} onChange={(e) => setCustomerId(e.target.value)} spellCheck={false} />
      <div className="filter-buttons">
        <button type="submit" className="button primary">
          Apply filters
        </button>
        <button type="button" className="button" onClick={onRefresh} disabled={refreshing} aria-busy={refreshing}>
          Refresh
        </button>
      </div>
    </form>
  );
}
