import { describe, expect, it } from 'vitest';
import { bindQuery, quoteIdentifier, quoteString, SqlBindError, tsvField, tsvNullableField } from './sql.js';

// These check the text we produce. That the engines read it back byte for byte is the contract
// suite's job (test/contract/event-store.contract.test.ts stores and filters the same strings).

const ADVERSARIAL = [
  '',
  "'",
  "''",
  '\\',
  "\\'",
  "\\' OR 1=1 --",
  "'; DROP TABLE events; --",
  '\\\\\'\\',
  'a\0b',
  '\0',
  'line\nbreak\r\n\ttab',
  '\b\f\v\x01\x1f\x7f',
  '{appId:String}',
  '😀 é 中文 \u2028\u2029 \uFEFF \uFFFF \u{10FFFF}',
  '?',
  'x'.repeat(10_000),
];

/** ClickHouse's reading of a quoted literal, for the escapes quoteString emits. */
function unquote(literal: string): string {
  expect(literal).toMatch(/^'(?:[^'\\]|\\.)*'$/su);
  return literal.slice(1, -1).replace(/\\(x[0-9a-f]{2}|.)/gsu, (_m, e: string) => {
    if (e.startsWith('x') && e.length === 3) return String.fromCharCode(parseInt(e.slice(1), 16));
    const short: Record<string, string> = { '0': '\0', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
    return short[e] ?? e;
  });
}

describe('quoteString', () => {
  it.each(ADVERSARIAL.map((s) => [s]))('round-trips %j and leaves no raw control character', (value) => {
    const literal = quoteString(value);
    expect(unquote(literal)).toBe(value);
    // eslint-disable-next-line no-control-regex -- finding control characters is the point
    expect(literal).not.toMatch(/[\u0000-\u001f\u007f]/);
  });

  it('escapes quote, backslash and controls the way ClickHouse reads them', () => {
    expect(quoteString("it's")).toBe("'it\\'s'");
    expect(quoteString('a\\b')).toBe("'a\\\\b'");
    expect(quoteString('\\\'')).toBe("'\\\\\\''");
    expect(quoteString('\0\n\r\t\b\f')).toBe("'\\0\\n\\r\\t\\b\\f'");
    expect(quoteString('\x01\x1b\x7f')).toBe("'\\x01\\x1b\\x7f'");
  });

  it('keeps non-ASCII text as is, including surrogate pairs', () => {
    expect(quoteString('é😀中')).toBe("'é😀中'");
  });

  it.each([['\uD800'], ['\uDFFF'], ['a\uDC00\uD800b'], ['😀'.slice(0, 1)], ['😀'.slice(1)]])(
    'refuses the lone surrogate in %j, which has no UTF-8 form',
    (value) => {
      expect(() => quoteString(value)).toThrow(SqlBindError);
    },
  );
});

/** ClickHouse's reading of a TabSeparated field, for the escapes tsvField emits. */
function untab(field: string): string {
  expect(field).toMatch(/^(?:[^\t\n\\]|\\.)*$/su);
  return field.replace(/\\(.)/gsu, (_m, e: string) => ({ '0': '\0', n: '\n', r: '\r', t: '\t' })[e] ?? e);
}

describe('tsvField', () => {
  it.each(ADVERSARIAL.map((s) => [s]))('round-trips %j and leaves no raw tab, line break or NUL', (value) => {
    const field = tsvField(value);
    expect(untab(field)).toBe(value);
    expect(field).not.toMatch(/[\t\n\r\0]/);
  });

  it('escapes only what TabSeparated reads specially', () => {
    expect(tsvField('a\tb\nc')).toBe('a\\tb\\nc');
    expect(tsvField('a\\N')).toBe('a\\\\N');
    expect(tsvField('\r\0')).toBe('\\r\\0');
    expect(tsvField("it's {\"json\": [1]} é😀")).toBe("it's {\"json\": [1]} é😀");
  });

  it('writes NULL as \\N and a string that reads \\N as an escaped backslash', () => {
    expect(tsvNullableField(null)).toBe('\\N');
    expect(tsvNullableField('\\N')).toBe('\\\\N');
    expect(tsvNullableField('')).toBe('');
  });

  it.each([['\uD800'], ['a\uDC00b']])('refuses the lone surrogate in %j', (value) => {
    expect(() => tsvField(value)).toThrow(SqlBindError);
  });
});

describe('bindQuery', () => {
  it('replaces each placeholder with a literal of its type', () => {
    expect(
      bindQuery('SELECT {s:String}, {n:UInt32}, {i:Int64}, {f:Float64}, {a:Array(String)}, {z:Nullable(String)}', {
        s: "o'k",
        n: 42,
        i: -(2n ** 63n),
        f: 1.5,
        a: ['x', "y'"],
        z: null,
      }),
    ).toBe("SELECT 'o\\'k', 42, -9223372036854775808, 1.5, ['x', 'y\\''], NULL");
  });

  it('binds a name used twice with one type', () => {
    expect(bindQuery('{t:Int64} = {t:Int64}', { t: 5 })).toBe('5 = 5');
  });

  it('leaves placeholder-looking text inside a value alone (single pass)', () => {
    expect(bindQuery('SELECT {a:String}, {b:String}', { a: '{b:String}', b: 'x' })).toBe("SELECT '{b:String}', 'x'");
  });

  it('binds a present Nullable value as its inner type', () => {
    expect(bindQuery('{c:Nullable(String)}', { c: '' })).toBe("''");
  });

  it.each([
    ['a missing parameter', '{a:String}', {}],
    ['an unused parameter', '{a:String}', { a: 'x', b: 'y' }],
    ['an undefined value', '{a:String}', { a: undefined as unknown as string }],
    ['one name with two types', '{a:String} {a:Int64}', { a: 'x' }],
    ['a malformed placeholder', '{a:String} {b:Str ing}', { a: 'x' }],
    ['an unsupported type', '{a:Date}', { a: '2020-01-01' }],
    ['a number for String', '{a:String}', { a: 1 }],
    ['a string for Int64', '{a:Int64}', { a: '1' }],
    ['a fraction for UInt32', '{a:UInt32}', { a: 1.5 }],
    ['a negative UInt64', '{a:UInt64}', { a: -1 }],
    ['UInt8 overflow', '{a:UInt8}', { a: 256 }],
    ['Int64 overflow', '{a:Int64}', { a: 2n ** 63n }],
    ['an unsafe integer number', '{a:Int64}', { a: 2 ** 60 }],
    ['NaN for Float64', '{a:Float64}', { a: Number.NaN }],
    ['Infinity for Float64', '{a:Float64}', { a: Number.POSITIVE_INFINITY }],
    ['null for a non-Nullable type', '{a:String}', { a: null }],
    ['a non-string array element', '{a:Array(String)}', { a: [1] as unknown as string[] }],
    ['a lone surrogate in a string', '{a:String}', { a: 'x\uD800' }],
  ])('throws on %s', (_what, template, params) => {
    expect(() => bindQuery(template, params)).toThrow(SqlBindError);
  });
});

describe('quoteIdentifier', () => {
  it.each([['events'], ['_x'], ['test_events_m1abc_x9'], ['A'.repeat(64)], ['select']])('back-quotes %j', (name) => {
    expect(quoteIdentifier(name)).toBe(`\`${name}\``);
  });

  it.each([[''], ['1db'], ['a-b'], ['a b'], ['a`b'], ['a.b'], ["a'b"], ['a;DROP'], ['é'], ['a\0'], ['A'.repeat(65)]])(
    'refuses %j',
    (name) => {
      expect(() => quoteIdentifier(name)).toThrow(SqlBindError);
    },
  );
});
