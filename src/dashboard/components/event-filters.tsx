import { useState, type FormEvent } from 'react';
import { EVENT_LEVELS } from '../api/types';
import { localInputValue } from './format';
import { Options, SelectField, TextField } from './form-fields';

/** The events read's filters, as its query parameters want them. */
export interface EventFilterValues {
  readonly level?: string | undefined;
  readonly type?: string | undefined;
  readonly from?: string | undefined;
  readonly to?: string | undefined;
  readonly customer_id?: string | undefined;
}

const FILTER_NAMES = ['level', 'type', 'from', 'to', 'customer_id'] as const;

/**
 * The filters of the Events tab live in its URL (`?level=error&from=…`), so that a filtered list,
 * such as the one a bar of the overview's chart opens, is a link that can be shared or bookmarked.
 * The API judges the values: one it refuses shows as an error next to the list.
 */
export function filtersFromSearch(params: URLSearchParams): EventFilterValues {
  return Object.fromEntries(FILTER_NAMES.flatMap((name) => (params.get(name) ? [[name, params.get(name)]] : [])));
}

/** The query string (with its `?`, or empty) of an events list with these filters. */
export function eventsSearch(filters: EventFilterValues): string {
  const params = new URLSearchParams();
  for (const name of FILTER_NAMES) {
    const value = filters[name];
    if (value !== undefined && value !== '') params.set(name, value);
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** An instant from the URL as a `datetime-local` value; what is no date-time stays empty. */
function toLocalInput(iso: string | undefined): string {
  const ms = iso === undefined ? NaN : Date.parse(iso);
  return Number.isNaN(ms) ? '' : localInputValue(ms);
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
  /** What the form starts with: the filters of the list on screen. */
  readonly initial: EventFilterValues;
  readonly onApply: (filters: EventFilterValues) => void;
  readonly onRefresh: () => void;
  readonly refreshing: boolean;
}

/** Level, event name, time range and customer; applied together with `Apply filters`. */
export function EventFilters({ initial, onApply, onRefresh, refreshing }: EventFiltersProps) {
  const [level, setLevel] = useState(initial.level ?? '');
  const [type, setType] = useState(initial.type ?? '');
  const [from, setFrom] = useState(() => toLocalInput(initial.from));
  const [to, setTo] = useState(() => toLocalInput(initial.to));
  const [customerId, setCustomerId] = useState(initial.customer_id ?? '');

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
