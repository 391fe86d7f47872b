/** Canonical 8-4-4-4-12 hex form, either case. */
const UUID_FORM = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether a path parameter can be a row id. Checked before any lookup by id: PostgreSQL's uuid column
 * rejects anything else with an error, and "no such id" must be a 404, not a 500.
 */
export function isUuid(value: string): boolean {
  return UUID_FORM.test(value);
}
