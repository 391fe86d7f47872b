/** Dates as the reader's locale writes them, in their time zone. */
export function localDateTime(iso: string | null | undefined, never = '—'): string {
  if (!iso) return never;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** A `datetime-local` value (the reader's local time, to the minute) for an instant. */
export function localInputValue(ms: number): string {
  const date = new Date(ms);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

/** A count as the reader's locale writes it: `1,234`. */
export function wholeNumber(count: number): string {
  return count.toLocaleString();
}

/** `part` of `whole` as a percentage to one decimal (`28.6%`); `—` when the whole is 0. */
export function share(part: number, whole: number): string {
  if (whole === 0) return '—';
  return (part / whole).toLocaleString(undefined, { style: 'percent', maximumFractionDigits: 1 });
}

/** JSON for reading: two-space indentation. */
export function prettyJson(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** A number of seconds in the largest whole unit: `45 s`, `5 min`, `2 h`, `1 day`, `90 s`. */
export function duration(seconds: number): string {
  if (seconds > 0 && seconds % 86_400 === 0) return `${seconds / 86_400} ${seconds === 86_400 ? 'day' : 'days'}`;
  if (seconds > 0 && seconds % 3_600 === 0) return `${seconds / 3_600} h`;
  if (seconds > 0 && seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** `1 time`, `3 times`: a count with its noun, singular for exactly one. */
export function counted(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}
