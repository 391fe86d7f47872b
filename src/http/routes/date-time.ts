import { z } from 'zod';

/** A date-time whose offset lacks its colon (`…+0200`): the same instant as `…+02:00`. */
const OFFSET_WITHOUT_COLON = /^(\d{4}-\d{2}-\d{2}T[\d:.]+)([+-]\d{2})(\d{2})$/;

/**
 * A date-time with its time zone, as RFC 3339 writes it (`2026-11-22T10:00:00Z`, `…+02:00`), read as
 * that string. An offset written without its colon (`+0200`), as Python's `%z` writes it (the client
 * openapi-generator makes for Python sends query times so), is taken as the same instant.
 */
export function zonedDateTime(message = 'must be an ISO 8601 date-time with a time zone, e.g. 2026-11-22T10:00:00Z') {
  return z.preprocess((value) => (typeof value === 'string' ? value.replace(OFFSET_WITHOUT_COLON, '$1$2:$3') : value), z.iso.datetime({ offset: true, error: message }));
}
