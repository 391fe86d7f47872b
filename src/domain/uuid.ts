/**
 * The lower-case 8-4-4-4-12 hex form the service writes its ids in. Event ids are ordered as text
 * (the read order's tie-break), so one id must have exactly one spelling wherever it is stored.
 */
export const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The same form, either case (what a client may send in a path). */
const UUID_FORM = new RegExp(CANONICAL_UUID.source, 'i');

/**
 * Whether a path parameter can be a row id. Checked before any lookup by id: PostgreSQL's uuid column
 * rejects anything else with an error, and "no such id" must be a 404, not a 500.
 */
export function isUuid(value: string): boolean {
  return UUID_FORM.test(value);
}

/**
 * The instant a UUIDv7 was made: its first 48 bits, milliseconds since the epoch. Undefined for an id
 * of any other version or form.
 */
export function uuidv7Millis(id: string): number | undefined {
  if (!CANONICAL_UUID.test(id) || id[14] !== '7') return undefined;
  return Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}
