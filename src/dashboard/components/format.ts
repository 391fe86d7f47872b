/** Dates as the reader's locale writes them, in their time zone. */
export function localDateTime(iso: string | null | undefined, never = '—'): string {
  if (!iso) return never;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

/** JSON for reading: two-space indentation. */
export function prettyJson(value: unknown): string {
  return JSON.stringify(value, null, 2);
}
