/**
 * Free text the metadata database can keep. PostgreSQL refuses a NUL character in `text` and in
 * `jsonb`, and an unpaired UTF-16 surrogate (which has no UTF-8 form) in `jsonb`; either would
 * surface as a 500 on the write. Refusing them at the edge makes them a 400, the same in both modes
 * (SQLite would store them).
 */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const UNSTORABLE_TEXT_MESSAGE = 'must not contain NUL characters or unpaired surrogates';

export function isStorableText(value: string): boolean {
  return !value.includes('\u0000') && !UNPAIRED_SURROGATE.test(value);
}

/** Display names: storable, and no control characters (a name is one line of text). */
export function isDisplayText(value: string): boolean {
  return isStorableText(value) && !/\p{Cc}/u.test(value);
}
