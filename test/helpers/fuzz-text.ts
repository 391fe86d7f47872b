import fc from 'fast-check';

/**
 * Strings the service's names and keys are made of, valid and not, shared by the input-fuzz
 * generators. The valid ones are built to fit the documented rules exactly, so a refusal of one of
 * them is a finding, not noise.
 */

const chars = (set: string) => fc.constantFrom(...set);
const LETTERS_DIGITS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** `[A-Za-z0-9._:-]{1,200}`: event names, rule event names, schema event names. */
export const eventNameArb = fc.string({ unit: chars(`${LETTERS_DIGITS}._:-`), minLength: 1, maxLength: 200 });

/** `[A-Za-z0-9_][A-Za-z0-9_-]{0,99}` minus `__proto__`: schema field names, metadata keys, path segments. */
export const fieldNameArb = fc
  .tuple(chars(`${LETTERS_DIGITS}_`), fc.string({ unit: chars(`${LETTERS_DIGITS}_-`), maxLength: 99 }))
  .map(([first, rest]) => first + rest)
  .filter((name) => name !== '__proto__');

/** `[a-z0-9][a-z0-9-]{0,62}`, never UUID-shaped (a path would read it as an id). */
export const slugArb = fc
  .tuple(chars('abcdefghijklmnopqrstuvwxyz0123456789'), fc.string({ unit: chars('abcdefghijklmnopqrstuvwxyz0123456789-'), maxLength: 62 }))
  .map(([first, rest]) => first + rest)
  .filter((slug) => !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(slug));

/** Text with no lone surrogate (graphemes are whole), NULs and control characters included. */
export const wellFormedTextArb = (maxLength: number) => fc.string({ unit: 'grapheme', maxLength }).filter((s) => s.length <= maxLength);

/** Text a metadata database keeps as it is: no NUL, no lone surrogate. */
export const storableTextArb = (maxLength: number) => wellFormedTextArb(maxLength).map((s) => s.replaceAll('\u0000', ''));

/**
 * A display name (apps, rules, destination labels): one line of 1–200 characters after trimming,
 * no control characters. Spaces around it are allowed (they are dropped).
 */
export const displayNameArb = fc
  .tuple(
    fc.constantFrom('', ' ', '  '),
    fc.string({ unit: fc.oneof(chars(`${LETTERS_DIGITS} -_.,:!?'"&/()[]{}<>#%`), chars('éüßñøçÅ中文字😀🎉ðŸ')), minLength: 1, maxLength: 60 }),
    fc.constantFrom('', ' ', '\u00a0'),
  )
  .map(([before, core, after]) => `${before}N${core}${after}`)
  .filter((name) => name.trim().length >= 1 && name.trim().length <= 200 && !/\p{Cc}/u.test(name));

/** A UTF-16 unit with no partner: JSON can carry it as an escape, UTF-8 cannot carry it at all. */
export const loneSurrogateArb = fc.oneof(
  fc.integer({ min: 0xd800, max: 0xdbff }).map((code) => String.fromCharCode(code)),
  fc.integer({ min: 0xdc00, max: 0xdfff }).map((code) => String.fromCharCode(code)),
  // A low surrogate before a high one: both units are present, yet neither has its partner.
  fc.constant('\udc00\ud800'),
);

/** Any text with a lone surrogate somewhere in it. */
export const textWithLoneSurrogateArb = fc
  .tuple(fc.string({ maxLength: 8 }), loneSurrogateArb, fc.string({ maxLength: 8 }))
  .map(([before, lone, after]) => before + lone + after);

/** Text meant to break whatever turns a value into a query, a path or a log line. */
export const injectionTextArb = fc.constantFrom(
  "'",
  '"',
  '\\',
  "\\'",
  "' OR '1'='1",
  "'; DROP TABLE events; --",
  '1) UNION SELECT * FROM system.tables --',
  '{appId:String}',
  '{limit:UInt32}',
  '$1',
  '%s%s%s%n',
  '../../etc/passwd',
  '\u0000',
  '\r\nX-Injected: 1',
  '<script>alert(1)</script>',
  '${7*7}',
  '__proto__',
  'constructor',
  'toString',
  'NaN',
  'Infinity',
  '-0',
  '1e400',
  '0x10',
  ' ',
  '',
);
