import { isWellFormedUnicode } from '../../domain/unicode.js';

/**
 * The one way a value reaches ClickHouse SQL in this codebase.
 *
 * Templates use ClickHouse's own placeholder syntax, `{name:Type}`, but the substitution happens here,
 * client-side, as escaped literals: Debian's ClickHouse 18.16 has no server-side query parameters, and
 * the same SQL text must run there, on current servers and in chDB. Because the text is ours to
 * guarantee, `bindQuery` is strict: each placeholder needs a parameter of the right JS type and range,
 * each parameter must be used, and a name keeps one type throughout a template.
 *
 * Identifiers (database names) are not values and are never bound: `quoteIdentifier` accepts only a
 * plain name and returns it back-quoted, typed so it cannot be confused with an arbitrary string.
 *
 * Inserted rows are not SQL: they follow their INSERT statement as TabSeparated data, each string in
 * them escaped by `tsvField`, the one way a string reaches a row.
 */

export class SqlBindError extends Error {
  override readonly name = 'SqlBindError';
}

export type SqlParam = string | number | bigint | null | readonly string[];
export type SqlParams = Readonly<Record<string, SqlParam>>;

/** A database or table name that passed `quoteIdentifier`; safe to interpolate into SQL text. */
export type QuotedIdentifier = string & { readonly __quotedIdentifier: true };

// Same shape as CLICKHOUSE_DATABASE in config.ts: letters, digits and _, not starting with a digit.
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

export function quoteIdentifier(name: string): QuotedIdentifier {
  if (!IDENTIFIER.test(name)) {
    throw new SqlBindError(`not a plain identifier (letters, digits and _, at most 64): ${JSON.stringify(name)}`);
  }
  return `\`${name}\`` as QuotedIdentifier;
}

// Inclusive ranges of the integer types; 64-bit bounds need bigint.
const INTEGER_RANGES: Readonly<Record<string, readonly [bigint, bigint]>> = {
  UInt8: [0n, 2n ** 8n - 1n],
  UInt16: [0n, 2n ** 16n - 1n],
  UInt32: [0n, 2n ** 32n - 1n],
  UInt64: [0n, 2n ** 64n - 1n],
  Int8: [-(2n ** 7n), 2n ** 7n - 1n],
  Int16: [-(2n ** 15n), 2n ** 15n - 1n],
  Int32: [-(2n ** 31n), 2n ** 31n - 1n],
  Int64: [-(2n ** 63n), 2n ** 63n - 1n],
};

// Backslash and quote end or alter a literal. Control characters are legal raw inside a ClickHouse
// literal, but NUL would cut the text short at chDB's C boundary and raw line breaks make logs and
// error messages ambiguous, so every C0 control and DEL is escaped too.
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const NEEDS_ESCAPE = /[\\'\u0000-\u001f\u007f]/g;
const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  "'": "\\'",
  '\0': '\\0',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

function escapeChar(char: string): string {
  return SHORT_ESCAPES[char] ?? `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`;
}

/** A ClickHouse string literal (single-quoted, escaped) holding exactly `value`'s UTF-8 bytes. */
export function quoteString(value: string): string {
  if (!isWellFormedUnicode(value)) {
    throw new SqlBindError('string contains a lone UTF-16 surrogate, which has no UTF-8 form');
  }
  return `'${value.replace(NEEDS_ESCAPE, escapeChar)}'`;
}

// In a TabSeparated row a tab ends a field and a line feed ends the row; a backslash starts an escape.
// Every other byte is read as itself, but CR and NUL are escaped as well, for the same reasons as in
// a literal (a NUL cuts chDB's text short, a raw CR makes logs and errors ambiguous).
const TSV_SPECIAL = /[\\\t\n\r\0]/;
const TSV_SPECIALS = /[\\\t\n\r\0]/g;

/**
 * A field of a TabSeparated row (the INSERT's data, never SQL text) holding exactly `value`'s UTF-8
 * bytes. Most values need no escape, and are returned unchanged after one scan.
 */
export function tsvField(value: string): string {
  if (!isWellFormedUnicode(value)) {
    throw new SqlBindError('string contains a lone UTF-16 surrogate, which has no UTF-8 form');
  }
  return TSV_SPECIAL.test(value) ? value.replace(TSV_SPECIALS, escapeChar) : value;
}

/** A Nullable(String) field of a TabSeparated row: `\N` is NULL, anything else a string (tsvField). */
export function tsvNullableField(value: string | null): string {
  return value === null ? '\\N' : tsvField(value);
}

function integerLiteral(type: string, range: readonly [bigint, bigint], value: SqlParam): string {
  let n: bigint;
  if (typeof value === 'bigint') {
    n = value;
  } else if (typeof value === 'number' && Number.isSafeInteger(value)) {
    n = BigInt(value);
  } else {
    throw new SqlBindError(`expected a safe integer or bigint for ${type}, got ${describe(value)}`);
  }
  if (n < range[0] || n > range[1]) {
    throw new SqlBindError(`${n} is out of range for ${type}`);
  }
  return n.toString();
}

function literal(type: string, value: SqlParam): string {
  const nullable = /^Nullable\((.+)\)$/.exec(type);
  if (nullable?.[1] !== undefined) {
    return value === null ? 'NULL' : literal(nullable[1], value);
  }
  if (value === null) {
    throw new SqlBindError(`null is only allowed for Nullable types, not ${type}`);
  }
  const range = INTEGER_RANGES[type];
  if (range !== undefined) {
    return integerLiteral(type, range, value);
  }
  switch (type) {
    case 'String':
      if (typeof value !== 'string') throw new SqlBindError(`expected a string for String, got ${describe(value)}`);
      return quoteString(value);
    case 'Float64':
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        throw new SqlBindError(`expected a finite number for Float64, got ${describe(value)}`);
      }
      // String(-0) is "0" and large values print as 1e+21, both of which ClickHouse parses.
      return String(value);
    case 'Array(String)':
      if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
        throw new SqlBindError(`expected an array of strings for Array(String), got ${describe(value)}`);
      }
      return `[${value.map(quoteString).join(', ')}]`;
    default:
      throw new SqlBindError(`unsupported placeholder type ${type}`);
  }
}

function describe(value: SqlParam): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'number' ? `number ${value}` : typeof value;
}

// `{name:Type}`; the type may nest parentheses one level deep, e.g. Nullable(String), Array(String).
const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*):([A-Za-z0-9]+(?:\([A-Za-z0-9]+(?:\([A-Za-z0-9]+\))?\))?)\}/g;
// What a placeholder starts with; one left over after removing the well-formed ones is a typo.
const PLACEHOLDER_START = /\{[A-Za-z_][A-Za-z0-9_]*:/;

/**
 * Replaces every `{name:Type}` in `template` with `params[name]` as an escaped literal of that type.
 * Throws SqlBindError on a missing, unused or mistyped parameter. The template is trusted SQL text;
 * substitution is a single pass, so a value that itself looks like a placeholder stays a value.
 */
export function bindQuery(template: string, params: SqlParams = {}): string {
  const malformed = template.replace(PLACEHOLDER, '').match(PLACEHOLDER_START);
  if (malformed !== null) {
    throw new SqlBindError(`malformed placeholder at ${JSON.stringify(malformed[0])}`);
  }
  const used = new Map<string, string>();
  const sql = template.replace(PLACEHOLDER, (_match, name: string, type: string) => {
    const previous = used.get(name);
    if (previous !== undefined && previous !== type) {
      throw new SqlBindError(`placeholder ${name} is used as both ${previous} and ${type}`);
    }
    used.set(name, type);
    const value = Object.hasOwn(params, name) ? params[name] : undefined;
    if (value === undefined) {
      throw new SqlBindError(`missing parameter ${name}`);
    }
    return literal(type, value);
  });
  const unused = Object.keys(params).filter((name) => !used.has(name));
  if (unused.length > 0) {
    throw new SqlBindError(`parameters not in the template: ${unused.join(', ')}`);
  }
  return sql;
}
