import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { DomainError } from './errors.js';
import { CANONICAL_UUID } from './uuid.js';

/**
 * The opaque cursor of the event list: a keyset position (timestamp and id of the last event of the
 * page, newest-first order) that the client hands back unchanged.
 *
 * It is signed (HMAC-SHA256 with a key generated once per installation), so a cursor the service did
 * not issue, or one edited by hand, is a 400 rather than a silently different page. It is bound to the
 * app and to the filters of the request that issued it: reusing it with other filters would page
 * through a different result set and could skip or repeat events.
 */
export interface CursorPosition {
  readonly timestamp: Date;
  readonly id: string;
}

export interface CursorScope {
  readonly appId: string;
  /** The filters that define the result set, in any stable form; hashed into the cursor. */
  readonly filters: Readonly<Record<string, string | undefined>>;
}

const MAX_CURSOR_LENGTH = 512;
const SIGNATURE_BYTES = 16;

function scopeDigest(scope: CursorScope): string {
  const filters = Object.keys(scope.filters)
    .sort()
    .filter((k) => scope.filters[k] !== undefined)
    .map((k) => [k, scope.filters[k]]);
  return createHash('sha256').update(JSON.stringify([scope.appId, filters])).digest('base64url').slice(0, 22);
}

function sign(payload: string, key: Buffer): Buffer {
  return createHmac('sha256', key).update(payload).digest().subarray(0, SIGNATURE_BYTES);
}

export function encodeCursor(position: CursorPosition, scope: CursorScope, key: Buffer): string {
  const payload = Buffer.from(JSON.stringify({ t: position.timestamp.getTime(), i: position.id, s: scopeDigest(scope) })).toString('base64url');
  return `${payload}.${sign(payload, key).toString('base64url')}`;
}

const invalid = (message: string) => new DomainError('validation_failed', `cursor: ${message}`, { details: [{ path: 'cursor', message }] });

/** The position a cursor stands for; a 400 when it was not issued by this service for this request. */
export function decodeCursor(token: string, scope: CursorScope, key: Buffer): CursorPosition {
  const match = token.length <= MAX_CURSOR_LENGTH ? /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(token) : null;
  if (!match) throw invalid('not a cursor issued by this service');
  const [, payload, signature] = match as unknown as [string, string, string];
  const given = Buffer.from(signature, 'base64url');
  const expected = sign(payload, key);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid('not a cursor issued by this service');

  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw invalid('not a cursor issued by this service');
  }
  const { t, i, s } = (parsed ?? {}) as { t?: unknown; i?: unknown; s?: unknown };
  if (typeof t !== 'number' || !Number.isSafeInteger(t) || typeof i !== 'string' || !CANONICAL_UUID.test(i) || typeof s !== 'string') {
    throw invalid('not a cursor issued by this service');
  }
  if (s !== scopeDigest(scope)) throw invalid('issued for another app or other filters; start again without a cursor');
  return { timestamp: new Date(t), id: i };
}
