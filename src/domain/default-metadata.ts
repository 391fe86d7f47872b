import { FIELD_NAME_PATTERN } from './event-schema.js';

/**
 * An app's default metadata: key-value pairs attached to every event the app ingests, the event's own
 * keys winning.
 *
 * Keys follow the field-name rule of schemas, because a schema's `metadataFields` name these same
 * keys and rule conditions read them as `metadata.<key>` (so no `.` in a key).
 */
export const METADATA_KEY_PATTERN = FIELD_NAME_PATTERN;
export const MAX_DEFAULT_METADATA_KEYS = 50;
/** Default metadata rides along on every stored event; long values would bloat every row. */
export const MAX_METADATA_STRING_LENGTH = 1000;

export type MetadataValue = string | number | boolean;
