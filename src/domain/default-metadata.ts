
/**
 * An app's default metadata: key-value pairs attached to every event the app ingests, the event's own
 * keys winning.
 *
 * Keys follow the field-name rule of schemas, and may also hold dots: OpenTelemetry names resource
 * attributes so (`service.name`), and they become metadata (OTLP ingest). Metadata is flat, so rule
 * conditions and templates read `metadata.<key>` with everything after the first dot as the key. A
 * schema's `metadataFields` can name the keys without dots.
 */
export const METADATA_KEY_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}$/;
/** METADATA_KEY_PATTERN in words, for the messages that refuse a key. */
export const METADATA_KEY_RULE = '1 to 100 letters, digits, _, - or ., not starting with - or .';
export const MAX_DEFAULT_METADATA_KEYS = 50;
/** Default metadata rides along on every stored event; long values would bloat every row. */
export const MAX_METADATA_STRING_LENGTH = 1000;

export type MetadataValue = string | number | boolean;
