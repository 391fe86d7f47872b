import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { BODY_LIMIT_BYTES } from './fuzz-ingest-bodies.js';

/**
 * How an ingest body travels: its media type, its content encoding, its size around the 1 MiB limit
 * (counted after decoding), chunked or with a length. Each recipe knows which answers are right:
 * the union of what each of its faults may earn (a body with two faults may be refused for either).
 */

type Packing = 'plain' | 'gzip' | 'deflate' | 'br' | 'deflate-raw' | 'garbage' | 'truncated-gzip';
type Size = { kind: 'small' } | { kind: 'at-limit'; under: number } | { kind: 'over-limit'; over: number } | { kind: 'bomb'; mib: number };

export interface FramingRecipe {
  /** Content-Type header, or null for none. */
  readonly contentType: string | null;
  /** Content-Encoding header, or null for none. */
  readonly encoding: string | null;
  /** What the bytes really are. */
  readonly packing: Packing;
  readonly size: Size;
  readonly chunked: boolean;
}

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8', 'application/json; charset=UTF-8', 'Application/JSON', 'application/json;charset="utf-8"', 'application/json; charset=utf8'];
const BAD_CHARSETS = ['application/json; charset=latin1', 'application/json; charset=utf-16', 'application/json; charset=iso-8859-1'];
const NOT_JSON = ['text/plain', 'text/json', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', '', 'application/vnd.api+json', '*/*', ';;;', 'application/octet-stream'];
const SUPPORTED_ENCODINGS: Record<string, Packing> = { gzip: 'gzip', 'x-gzip': 'gzip', deflate: 'deflate', br: 'br' };
const ENCODINGS = ['gzip', 'x-gzip', 'deflate', 'br', 'GZIP', ' gzip ', 'identity', 'compress', 'zstd', 'gzip, br', 'br;q=1', 'chunked'];

export const framingRecipeArb: fc.Arbitrary<FramingRecipe> = fc.record({
  contentType: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...JSON_TYPES) }, fc.constantFrom(...BAD_CHARSETS), fc.constantFrom(...NOT_JSON), fc.constant(null)),
  encoding: fc.oneof({ weight: 2, arbitrary: fc.constant(null) }, { weight: 3, arbitrary: fc.constantFrom(...ENCODINGS) }),
  packing: fc.constantFrom<Packing>('plain', 'gzip', 'deflate', 'br', 'deflate-raw', 'garbage', 'truncated-gzip'),
  size: fc.oneof(
    fc.constant({ kind: 'small' as const }),
    fc.integer({ min: 0, max: 200 }).map((under) => ({ kind: 'at-limit' as const, under })),
    fc.integer({ min: 1, max: 200 }).map((over) => ({ kind: 'over-limit' as const, over })),
    fc.integer({ min: 2, max: 16 }).map((mib) => ({ kind: 'bomb' as const, mib })),
  ),
  chunked: fc.boolean(),
});

/** Decompression bombs (several MiB decoded, a few KiB packed) take a while to pack: each is packed once. */
const packedBombs = new Map<string, Buffer>();

/** The JSON of one valid event named `name`, padded to exactly the recipe's decoded size. */
function decodedBody(size: Size, name: string): Buffer {
  const skeleton = (pad: number) => `{"event":"${name}","data":{"pad":"${'p'.repeat(pad)}"}}`;
  const base = Buffer.byteLength(skeleton(0));
  const target =
    size.kind === 'small' ? base + 20 : size.kind === 'at-limit' ? BODY_LIMIT_BYTES - size.under : size.kind === 'over-limit' ? BODY_LIMIT_BYTES + size.over : size.mib * BODY_LIMIT_BYTES;
  return Buffer.from(skeleton(target - base), 'utf8');
}

function pack(packing: Packing, decoded: Buffer): Buffer {
  switch (packing) {
    case 'plain':
      return decoded;
    case 'gzip':
      return gzipSync(decoded);
    case 'deflate':
      return deflateSync(decoded);
    case 'br':
      return brotliCompressSync(decoded);
    case 'deflate-raw':
      return deflateRawSync(decoded);
    case 'garbage':
      return Buffer.from('this is not compressed at all, whatever the header says');
    case 'truncated-gzip': {
      const whole = gzipSync(decoded);
      return whole.subarray(0, Math.max(10, whole.length >> 1));
    }
  }
}

/** The JSON a recipe's bytes decode to: one event named `name`. */
export function framingDecoded(recipe: Pick<FramingRecipe, 'size'>, name: string): Buffer {
  return decodedBody(recipe.size, name);
}

/** The bytes of a recipe; a body that can be accepted holds one event named `name`. */
export function framingBody(recipe: Pick<FramingRecipe, 'packing' | 'size'>, name: string): Buffer {
  if (recipe.size.kind !== 'bomb' || recipe.packing === 'plain') return pack(recipe.packing, decodedBody(recipe.size, name));
  const key = `${recipe.packing}:${recipe.size.mib}`;
  let body = packedBombs.get(key);
  if (!body) {
    // Never accepted, so the name does not matter.
    body = pack(recipe.packing, decodedBody(recipe.size, 'bomb'));
    packedBombs.set(key, body);
  }
  return body;
}

export function framingHeaders(recipe: FramingRecipe): Record<string, string> {
  return {
    ...(recipe.contentType === null ? {} : { 'content-type': recipe.contentType }),
    ...(recipe.encoding === null ? {} : { 'content-encoding': recipe.encoding }),
  };
}

/** The statuses a correct service may answer. */
export function framingExpectation(recipe: FramingRecipe): ReadonlySet<number> {
  const type = recipe.contentType;
  // A body the service should not take as JSON: refusing it as such (400) or by its type (415) are both right.
  if (type === null || NOT_JSON.includes(type)) return new Set([400, 415]);
  if (BAD_CHARSETS.includes(type)) return new Set([400, 415]);
  const encoding = recipe.encoding?.trim().toLowerCase() ?? 'identity';
  if (encoding !== 'identity' && SUPPORTED_ENCODINGS[encoding] === undefined) return new Set([400, 415]);
  const expected = encoding === 'identity' ? 'plain' : SUPPORTED_ENCODINGS[encoding];
  const faults = new Set<number>();
  // Bytes that are not what the header says cannot be decoded (or are not JSON once "decoded").
  if (recipe.packing !== expected) faults.add(400);
  // Past the limit, counted in decoded bytes: a service may stop decoding garbage at the limit too.
  const decodedOver = recipe.size.kind === 'over-limit' || recipe.size.kind === 'bomb';
  if (decodedOver && (recipe.packing === expected || recipe.packing !== 'garbage')) faults.add(413);
  return faults.size > 0 ? faults : new Set([202]);
}

/** Wrong credentials on the ingest endpoint, with a body that would be expensive or refused to read. */
export interface BadKeyRecipe {
  readonly key: 'absent' | 'empty' | 'unknown' | 'prefix-only' | 'client-secret' | 'flipped' | 'deleted-app' | 'very-long' | 'bearer';
  readonly body: 'small' | 'over-limit' | 'gzip-bomb' | 'gzip-garbage' | 'not-json';
}

export const badKeyRecipeArb: fc.Arbitrary<BadKeyRecipe> = fc.record({
  key: fc.constantFrom('absent', 'empty', 'unknown', 'prefix-only', 'client-secret', 'flipped', 'deleted-app', 'very-long', 'bearer'),
  body: fc.constantFrom('small', 'over-limit', 'gzip-bomb', 'gzip-garbage', 'not-json'),
});

export function badKeyRequest(recipe: BadKeyRecipe, keys: { valid: string; clientSecret: string; deletedApp: string }): { headers: Record<string, string>; body: Buffer } {
  const flipped = keys.valid.slice(0, -1) + (keys.valid.endsWith('a') ? 'b' : 'a');
  const key: string | undefined = {
    absent: undefined,
    empty: '',
    unknown: `svc_live_${'Zq9'.repeat(11)}`,
    'prefix-only': 'svc_live_',
    'client-secret': keys.clientSecret,
    flipped,
    'deleted-app': keys.deletedApp,
    'very-long': `svc_live_${'a'.repeat(6_000)}`,
    bearer: `Bearer ${keys.valid}`,
  }[recipe.key];
  const packing: Packing = recipe.body === 'gzip-bomb' ? 'gzip' : recipe.body === 'gzip-garbage' ? 'garbage' : 'plain';
  const size: Size = recipe.body === 'over-limit' ? { kind: 'over-limit', over: BODY_LIMIT_BYTES } : recipe.body === 'gzip-bomb' ? { kind: 'bomb', mib: 16 } : { kind: 'small' };
  const body = recipe.body === 'not-json' ? Buffer.from('<xml>not json</xml>') : framingBody({ packing, size }, 'badkey');
  return {
    headers: {
      'content-type': 'application/json',
      ...(packing === 'plain' ? {} : { 'content-encoding': 'gzip' }),
      ...(key === undefined ? {} : { 'x-api-key': key }),
    },
    body,
  };
}
