import fc from 'fast-check';
import { MAX_DATA_DEPTH } from './fuzz-ingest-bodies.js';

/**
 * Hostile ingest bodies, written as text (or bytes) because JSON.stringify cannot produce them: it
 * overflows on thousands of levels, never writes `1e400` or a lone surrogate escape, and only writes
 * UTF-8. Each case is a small recipe (what fast-check prints when one fails) that `hostileBody`
 * turns into the bytes, and `hostileExpectation` into the answer the service owes:
 *
 * - 400 for what it cannot keep as it was sent: nesting in `data` beyond 32 levels, any `__proto__`
 *   key, a lone surrogate, a number that is not a finite double, bytes that are not UTF-8;
 * - 202 for what is merely unusual: a 200,000-digit string with a letter at its end, valid escapes;
 * - either, where keeping it and refusing it are both honest (`1e-400` is 0 on both sides).
 */

export type HostileExpectation = 202 | 400 | 'either';

export type HostileRecipe =
  | { kind: 'digit-string'; where: 'data' | 'nested' | 'batch' | 'metadata' | 'customer_id'; digits: number; digit: string; sign: string; tail: string }
  | { kind: 'long-number'; digits: number; fraction: number }
  | { kind: 'deep'; where: 'data' | 'batch-data' | 'metadata' | 'body'; levels: number; container: 'array' | 'object' | 'mixed' }
  | { kind: 'proto'; where: 'data' | 'batch-data' | 'metadata' | 'event' | 'array-item'; level: number; escaped: boolean; value: string }
  | { kind: 'surrogate'; where: StringSpot; escape: string }
  | { kind: 'number-literal'; where: 'data' | 'nested' | 'array' | 'metadata'; literal: string }
  | { kind: 'utf8'; where: StringSpot | 'outside'; bytes: number[] };

type StringSpot = 'data-value' | 'data-key' | 'nested-value' | 'metadata-value' | 'metadata-key' | 'customer_id' | 'event';

/** Escapes of a UTF-16 unit without its partner; the last two are complete pairs (valid). */
const LONE_ESCAPES = ['\\ud800', '\\udbff', '\\udc00', '\\udfff', '\\udc00\\ud800', '\\ud800a', 'a\\udfff', '\\ud800\\ud800'];
const VALID_PAIRS = ['\\ud83d\\ude00', '\\udbff\\udfff'];

/** Byte sequences no UTF-8 decoder may accept; the last two are valid multi-byte characters. */
const BAD_UTF8 = [[0xff], [0xfe], [0xc0, 0x80], [0xc3], [0x80], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xc1, 0xbf]];
const GOOD_UTF8 = [[0xc3, 0xa9], [0xf0, 0x9f, 0x98, 0x80]];

/** Not finite as doubles: refused. */
const NON_FINITE = ['1e400', '-1e400', '1e309', '-1E999', '123e4567', '1.8e308', `${'9'.repeat(400)}`, `-${'1'.repeat(320)}.5`];
/** Finite, if sometimes rounded (`1e-400` is 0, the big integer loses digits) exactly as a reader would round them. */
const FINITE_EDGES = ['1e308', '-1.7976931348623157e308', '5e-324', '1e-400', '-1e-400', '-0', '0e0', '1E+2', '123456789012345678901234567890', '0.1', '-0.0'];

const deepLevels = fc.oneof(fc.integer({ min: 28, max: 36 }), fc.integer({ min: 1, max: 5_000 }), fc.constantFrom(10_000, 100_000));

export const hostileRecipeArb: fc.Arbitrary<HostileRecipe> = fc.oneof(
  fc.record({
    kind: fc.constant('digit-string' as const),
    where: fc.constantFrom('data', 'nested', 'batch', 'metadata', 'customer_id'),
    digits: fc.oneof(fc.integer({ min: 1, max: 1_200 }), fc.integer({ min: 1, max: 200_000 }), fc.constant(200_000)),
    digit: fc.constantFrom(...'0123456789'),
    sign: fc.constantFrom('', '-', '+'),
    tail: fc.constantFrom('', 'a', '.5', 'e5', 'ea', '.', 'e', ' ', '.5.5', 'x1'),
  }),
  fc.record({ kind: fc.constant('long-number' as const), digits: fc.integer({ min: 1, max: 1_000 }), fraction: fc.integer({ min: 0, max: 400 }) }),
  fc.record({ kind: fc.constant('deep' as const), where: fc.constantFrom('data', 'batch-data', 'metadata', 'body'), levels: deepLevels, container: fc.constantFrom('array', 'object', 'mixed') }),
  fc.record({
    kind: fc.constant('proto' as const),
    where: fc.constantFrom('data', 'batch-data', 'metadata', 'event', 'array-item'),
    level: fc.integer({ min: 1, max: 40 }),
    escaped: fc.boolean(),
    value: fc.constantFrom('{}', '{"polluted":true}', '1', 'null', '[]', '"x"'),
  }),
  fc.record({
    kind: fc.constant('surrogate' as const),
    where: fc.constantFrom<StringSpot>('data-value', 'data-key', 'nested-value', 'metadata-value', 'metadata-key', 'customer_id', 'event'),
    escape: fc.constantFrom(...LONE_ESCAPES, ...VALID_PAIRS),
  }),
  fc.record({ kind: fc.constant('number-literal' as const), where: fc.constantFrom('data', 'nested', 'array', 'metadata'), literal: fc.constantFrom(...NON_FINITE, ...FINITE_EDGES) }),
  fc.record({
    kind: fc.constant('utf8' as const),
    where: fc.constantFrom<StringSpot | 'outside'>('data-value', 'data-key', 'nested-value', 'metadata-value', 'metadata-key', 'customer_id', 'event', 'outside'),
    bytes: fc.constantFrom(...BAD_UTF8, ...GOOD_UTF8),
  }),
);

const isValidPair = (escape: string) => VALID_PAIRS.includes(escape);
const isGoodUtf8 = (bytes: number[]) => GOOD_UTF8.some((good) => good.length === bytes.length && good.every((b, i) => b === bytes[i]));

export function hostileExpectation(recipe: HostileRecipe): HostileExpectation {
  switch (recipe.kind) {
    case 'digit-string': {
      const length = recipe.sign.length + recipe.digits + recipe.tail.length;
      if (recipe.where === 'metadata') return length <= 1000 ? 202 : 400;
      if (recipe.where === 'customer_id') return length <= 256 ? 202 : 400;
      return 202;
    }
    case 'long-number':
      return Number.isFinite(Number(longNumber(recipe))) ? 'either' : 400;
    case 'deep':
      if (recipe.where === 'metadata') return 400;
      // The body nests the event in arrays: one level of them is a batch of one event, and valid.
      if (recipe.where === 'body') return recipe.levels === 1 ? 202 : 400;
      return 1 + recipe.levels <= MAX_DATA_DEPTH ? 202 : 400;
    case 'proto':
      return 400;
    case 'surrogate':
      // An event name allows only [A-Za-z0-9._:-]; an astral customer_id or metadata key is still text.
      if (recipe.where === 'event' || recipe.where === 'metadata-key') return 400;
      return isValidPair(recipe.escape) ? 202 : 400;
    case 'number-literal':
      if (NON_FINITE.includes(recipe.literal)) return 400;
      return 'either';
    case 'utf8':
      if (recipe.where === 'event' || recipe.where === 'metadata-key' || recipe.where === 'outside') return 400;
      return isGoodUtf8(recipe.bytes) ? 202 : 400;
  }
}

/**
 * Whether the 400 owed must name the problem in `details`. Everything the service can point at does;
 * a body that is simply not JSON (valid bytes after the closing brace) may be refused as malformed.
 */
export function hostileNeedsDetails(recipe: HostileRecipe): boolean {
  return !(recipe.kind === 'utf8' && recipe.where === 'outside' && isGoodUtf8(recipe.bytes));
}

function longNumber(recipe: { digits: number; fraction: number }): string {
  return `1${'2'.repeat(recipe.digits - 1)}${recipe.fraction > 0 ? `.${'3'.repeat(recipe.fraction)}` : ''}`;
}

function nest(levels: number, container: 'array' | 'object' | 'mixed', inner = '0'): string {
  let open = '';
  let close = '';
  for (let i = 0; i < levels; i++) {
    const array = container === 'array' || (container === 'mixed' && i % 2 === 0);
    open += array ? '[' : '{"k":';
    close = (array ? ']' : '}') + close;
  }
  return open + inner + close;
}

/** Event text with `data`, `metadata` and the other fields given as raw JSON text. */
function event(name: string, parts: { data?: string; metadata?: string; customerId?: string; extra?: string }): string {
  const fields = [`"event":${JSON.stringify(name)}`];
  if (parts.data !== undefined) fields.push(`"data":${parts.data}`);
  if (parts.metadata !== undefined) fields.push(`"metadata":${parts.metadata}`);
  if (parts.customerId !== undefined) fields.push(`"customer_id":${parts.customerId}`);
  if (parts.extra !== undefined) fields.push(parts.extra);
  return `{${fields.join(',')}}`;
}

/** Raw string text placed at `spot` of an event named `name`. */
function withString(name: string, spot: StringSpot, text: string): string {
  switch (spot) {
    case 'data-value':
      return event(name, { data: `{"s":"${text}"}` });
    case 'data-key':
      return event(name, { data: `{"${text}":1}` });
    case 'nested-value':
      return event(name, { data: `{"a":[{"b":"${text}"}]}` });
    case 'metadata-value':
      return event(name, { metadata: `{"m":"${text}"}` });
    case 'metadata-key':
      return event(name, { metadata: `{"${text}":"v"}` });
    case 'customer_id':
      return event(name, { customerId: `"${text}"` });
    case 'event':
      return `{"event":"${name}${text}"}`;
  }
}

/** The request body of a recipe, for an event named `name` (unique per case, so it can be read back). */
export function hostileBody(recipe: HostileRecipe, name: string): Buffer {
  return recipe.kind === 'utf8' ? utf8Body(recipe, name) : Buffer.from(hostileText(recipe, name), 'utf8');
}

function hostileText(recipe: Exclude<HostileRecipe, { kind: 'utf8' }>, name: string): string {
  switch (recipe.kind) {
    case 'digit-string': {
      const value = JSON.stringify(recipe.sign + recipe.digit.repeat(recipe.digits) + recipe.tail);
      if (recipe.where === 'data') return event(name, { data: `{"amount":${value}}` });
      if (recipe.where === 'nested') return event(name, { data: `{"order":{"total":${value}}}` });
      if (recipe.where === 'batch') return `[${event(name, { data: `{"amount":${value}}` })},${event(name, { data: '{"amount":1}' })}]`;
      if (recipe.where === 'metadata') return event(name, { metadata: `{"amount":${value}}` });
      return event(name, { customerId: value });
    }
    case 'long-number':
      return event(name, { data: `{"amount":${longNumber(recipe)}}` });
    case 'deep': {
      const value = nest(recipe.levels, recipe.container);
      if (recipe.where === 'data') return event(name, { data: `{"a":${value}}` });
      if (recipe.where === 'batch-data') return `[${event(name, {})},${event(name, { data: `{"a":${value}}` })}]`;
      if (recipe.where === 'metadata') return event(name, { metadata: `{"a":${value}}` });
      return nest(recipe.levels, 'array', event(name, {}));
    }
    case 'proto': {
      const key = recipe.escaped ? '"\\u005f_proto__"' : '"__proto__"';
      const inner = `{${key}:${recipe.value}}`;
      // `level` 1 puts the key in `data` itself; each further level wraps it in one more object.
      const data = '{"a":'.repeat(recipe.level - 1) + inner + '}'.repeat(recipe.level - 1);
      if (recipe.where === 'data') return event(name, { data });
      if (recipe.where === 'batch-data') return `[${event(name, {})},${event(name, { data })}]`;
      if (recipe.where === 'metadata') return event(name, { metadata: `{${key}:"x"}` });
      if (recipe.where === 'array-item') return event(name, { data: `{"list":[1,${data}]}` });
      return event(name, { extra: `${key}:${recipe.value}` });
    }
    case 'surrogate':
      return withString(name, recipe.where, recipe.escape);
    case 'number-literal':
      if (recipe.where === 'data') return event(name, { data: `{"n":${recipe.literal}}` });
      if (recipe.where === 'nested') return event(name, { data: `{"a":{"b":{"n":${recipe.literal}}}}` });
      if (recipe.where === 'array') return event(name, { data: `{"list":[0,${recipe.literal},2]}` });
      return event(name, { metadata: `{"n":${recipe.literal}}` });
  }
}

function utf8Body(recipe: Extract<HostileRecipe, { kind: 'utf8' }>, name: string): Buffer {
  const marker = 'BYTES_GO_HERE';
  const text = recipe.where === 'outside' ? `${event(name, {})} ${marker}` : withString(name, recipe.where, marker);
  const [before, after] = text.split(marker) as [string, string];
  return Buffer.concat([Buffer.from(before, 'utf8'), Buffer.from(recipe.bytes), Buffer.from(after, 'utf8')]);
}
