import type { ErrorDetail } from './errors.js';

/**
 * Event schemas: the rules a schema definition must follow, and the check of an event's `data` or
 * `metadata` against a schema's fields. Pure, so the schema endpoints and ingest share one definition
 * of "valid".
 *
 * Per-value formats (patterns, lengths, counts) are declared as constants here and enforced by the
 * request schemas at the HTTP edge, where they also end up in the OpenAPI document; the rules that
 * relate several values (enum values only for enums, unique names) are `fieldListProblems`.
 */

export const FIELD_TYPES = ['string', 'number', 'boolean', 'enum'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/**
 * An event name (a schema's `eventName`) is 1–200 characters of `[A-Za-z0-9._:-]`; ingest applies the
 * same pattern to the `event` of each event.
 */
export const EVENT_NAME_PATTERN = /^[A-Za-z0-9._:-]{1,200}$/;

/**
 * A data field's name is a top-level key of an event's `data`. No `.`: rule conditions read nested
 * values with dotted paths (`order.total`), so a dotted name would be ambiguous. No `$`: rules
 * reserve `$level` and `$customer_id`. Letters, digits, `_` and `-`, not starting with `-`, at most 100.
 * A metadata field's name is a metadata key (METADATA_KEY_PATTERN): metadata is flat, so dots are plain.
 */
export const FIELD_NAME_PATTERN = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,99}$/;

/** A client-chosen field id; server-assigned ids are UUIDs, which match it too. */
export const FIELD_ID_PATTERN = /^[A-Za-z0-9._:-]{1,100}$/;

/** Bounds on one list (`fields` or `metadataFields`), so one schema stays a small JSON document. */
export const MAX_FIELDS = 100;
export const MAX_ENUM_VALUES = 100;
export const MAX_ENUM_VALUE_LENGTH = 200;
export const MAX_DESCRIPTION_LENGTH = 2000;

/** A field as a client sends it: `id` and `required` may be left out. */
export interface SchemaFieldDraft {
  readonly id?: string | undefined;
  readonly name: string;
  readonly type: FieldType;
  readonly required?: boolean | undefined;
  readonly enumValues?: readonly string[] | undefined;
}

/** A field as stored and returned: every field has an id and a `required` flag. */
export interface SchemaField {
  readonly id: string;
  readonly name: string;
  readonly type: FieldType;
  readonly required: boolean;
  /** Present exactly when `type` is `enum`. */
  readonly enumValues?: readonly string[];
}

/**
 * Problems of one list of fields taken together, with paths relative to the list (`1.enumValues`):
 * `enumValues` present (non-empty) exactly for `enum` fields, no duplicate enum value, and names and
 * ids unique within the list. Empty when the list is valid.
 */
export function fieldListProblems(fields: readonly SchemaFieldDraft[]): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const names = new Set<string>();
  const ids = new Set<string>();
  fields.forEach((field, index) => {
    if (names.has(field.name)) problems.push({ path: `${index}.name`, message: `duplicate field name "${field.name}"` });
    names.add(field.name);
    if (field.id !== undefined) {
      if (ids.has(field.id)) problems.push({ path: `${index}.id`, message: `duplicate field id "${field.id}"` });
      ids.add(field.id);
    }
    if (field.type === 'enum') {
      if (field.enumValues === undefined || field.enumValues.length === 0) {
        problems.push({ path: `${index}.enumValues`, message: 'must list at least one value for type enum' });
      } else {
        const duplicate = field.enumValues.find((value, i) => field.enumValues!.indexOf(value) !== i);
        if (duplicate !== undefined) problems.push({ path: `${index}.enumValues`, message: `duplicate value "${duplicate}"` });
      }
    } else if (field.enumValues !== undefined) {
      problems.push({ path: `${index}.enumValues`, message: `only allowed for type enum, not ${field.type}` });
    }
  });
  return problems;
}

/**
 * Completes drafts that passed `fieldListProblems`: a missing id becomes `newId()`, a missing
 * `required` false, and `enumValues` is kept only on enum fields.
 */
export function completeFields(drafts: readonly SchemaFieldDraft[], newId: () => string): SchemaField[] {
  return drafts.map((draft) => ({
    id: draft.id ?? newId(),
    name: draft.name,
    type: draft.type,
    required: draft.required ?? false,
    ...(draft.type === 'enum' && draft.enumValues ? { enumValues: [...draft.enumValues] } : {}),
  }));
}

/**
 * Checks an event's `data` (or `metadata`) against a schema's fields: every required field present,
 * every present declared field of its type, enum values among the allowed ones. Keys the schema does
 * not declare are allowed. `null` counts as absent: a JSON client writes `"x": null` for "no value",
 * so it satisfies an optional field and fails a required one. Paths are the field names; the caller
 * prefixes them with where the object sits (`0.data.amount`). Empty when the object conforms.
 */
export function validateAgainstSchema(fields: readonly SchemaField[], data: Readonly<Record<string, unknown>>): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  for (const field of fields) {
    const value = Object.hasOwn(data, field.name) ? data[field.name] : undefined;
    if (value === undefined || value === null) {
      if (field.required) problems.push({ path: field.name, message: 'is required' });
      continue;
    }
    const problem = valueProblem(field, value);
    if (problem) problems.push({ path: field.name, message: problem });
  }
  return problems;
}

function valueProblem(field: SchemaField, value: unknown): string | undefined {
  switch (field.type) {
    case 'string':
      return typeof value === 'string' ? undefined : 'must be a string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : 'must be a number';
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be a boolean';
    case 'enum': {
      const allowed = field.enumValues ?? [];
      return typeof value === 'string' && allowed.includes(value) ? undefined : `must be one of: ${allowed.join(', ')}`;
    }
  }
}
