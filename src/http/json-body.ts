import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import type { Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { DomainError } from '../domain/errors.js';
import type { TurnBudget } from '../lib/turn-budget.js';
import { MAX_BODY_DEPTH, jsonProblemDetail, jsonValueProblem } from '../domain/json-limits.js';

/** Bodies over 1 MiB get 413. The limit counts decoded bytes, so a gzip bomb is stopped too. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * A body this small (a single event, typically) is handled in a fraction of a millisecond: a turn full
 * of them stays short, and holding each for the turn budget would only split the produce calls they
 * share. Larger ones wait for their share of the turn (BodyOptions.turns).
 */
const SMALL_BODY_BYTES = 8 * 1024;

export interface BodyOptions {
  /** At most this many bytes, after decoding; BODY_LIMIT_BYTES by default. */
  readonly limit?: number;
  /**
   * Once a body larger than a few kilobytes is in, the work on it (parsing, then whatever the caller
   * does with it before its next wait) starts only while the event loop's turn has time left.
   */
  readonly turns?: TurnBudget | undefined;
}

const DECODERS: Readonly<Record<string, () => Transform>> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/**
 * Reads a request's JSON body: what Express's body-parser did for this service, on plain node
 * requests, so that the ingest endpoint (which bypasses Express, see ingest-endpoint.ts) and every
 * other route read bodies the same way.
 *
 * - No body (neither Content-Length nor Transfer-Encoding), or a media type other than
 *   `application/json`: undefined, and the body is left unread. The route's schema then says what it wanted.
 * - An empty JSON body is `{}`; any JSON value is accepted (the route's schema decides).
 * - Content-Encoding gzip, deflate or br is decoded; another encoding is 415, a charset other than
 *   UTF-8 is 415, more than 1 MiB (after decoding) is 413, malformed JSON is 400.
 * - Bytes that are not UTF-8, and JSON the service could not keep as it was sent (json-limits.ts:
 *   deep nesting, `__proto__` keys, `1e400`, unpaired surrogates), are 400 naming where.
 */
export function readJsonBody(req: IncomingMessage, options: BodyOptions = {}): Promise<unknown> {
  if (req.headers['transfer-encoding'] === undefined && req.headers['content-length'] === undefined) return Promise.resolve(undefined);
  const mediaType = parseMediaType(req.headers['content-type']);
  if (mediaType?.type !== 'application/json') return Promise.resolve(undefined);
  if (mediaType.charset !== undefined && mediaType.charset !== 'utf-8' && mediaType.charset !== 'utf8') return Promise.reject(new DomainError('unsupported_media_type', 'Unsupported charset'));
  // Chained rather than awaited: a body is read on every ingest request, and each async step is a
  // promise more (see lib/awaitable.ts).
  return readBodyBytes(req, options).then(parseJsonBody);
}

function parseJsonBody(bytes: Buffer): unknown {
  // Decoding would turn each invalid sequence into U+FFFD: the service would store other text than it was sent.
  if (!isUtf8(bytes)) throw new DomainError('validation_failed', 'Request body is not valid UTF-8', { details: [{ path: 'body', message: 'must be valid UTF-8' }] });
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new DomainError('validation_failed', 'Malformed JSON body');
  }
  const problem = jsonValueProblem(value, MAX_BODY_DEPTH);
  if (problem) {
    const detail = jsonProblemDetail(problem);
    throw new DomainError('validation_failed', `${detail.path}: ${detail.message}`, { details: [detail] });
  }
  return value;
}

/**
 * A request body's bytes, whatever its media type: decoded from gzip, deflate or br (another encoding
 * is 415), at most `options.limit` of them after decoding (413).
 */
export function readBodyBytes(req: IncomingMessage, options: BodyOptions = {}): Promise<Buffer> {
  const { limit = BODY_LIMIT_BYTES, turns } = options;
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const decoder = encoding === 'identity' ? undefined : DECODERS[encoding];
  if (encoding !== 'identity' && !decoder) return Promise.reject(new DomainError('unsupported_media_type', 'Unsupported content encoding'));
  // Known too large before reading a byte (only without an encoding: the header then counts decoded bytes).
  const declared = decoder ? Number.NaN : Number(req.headers['content-length']);
  if (declared > limit) return Promise.reject(tooLarge(limit));
  const bytes = collect(req, decoder?.(), limit);
  // Known small before reading it: no turn to wait for, and no step more.
  if (!turns || declared <= SMALL_BODY_BYTES) return bytes;
  return bytes.then(async (read) => {
    if (read.length > SMALL_BODY_BYTES) await turns.next();
    return read;
  });
}

function tooLarge(limit: number): DomainError {
  return new DomainError('payload_too_large', `Request body exceeds the ${limit / (1024 * 1024)} MiB limit`);
}

/** The body's bytes (decoded when a decoder is given), refusing more than `limit` of them. */
function collect(req: IncomingMessage, decoder: Transform | undefined, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const source: Readable = decoder ?? req;
    const finish = (error: DomainError | undefined): void => {
      if (settled) return;
      settled = true;
      source.off('data', onData);
      if (error) {
        // What is left of the body is read and dropped, within bounds, once the error is answered
        // (error-response.ts, drainUnreadBody).
        req.unpipe();
        decoder?.destroy();
        reject(error);
      } else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) finish(tooLarge(limit));
      else chunks.push(chunk);
    };
    source.on('data', onData);
    source.once('end', () => finish(undefined));
    source.once('error', () => finish(new DomainError('validation_failed', decoder ? 'Request body could not be decoded' : 'Request aborted')));
    // A client that goes away mid-body: `close` before the whole body arrived.
    req.once('close', () => {
      if (!req.complete) finish(new DomainError('validation_failed', 'Request aborted'));
    });
    if (decoder) req.pipe(decoder);
  });
}

/** `application/json; charset=UTF-8` → its lower-cased type and charset; undefined when absent or unreadable. */
function parseMediaType(header: string | undefined): { type: string; charset: string | undefined } | undefined {
  if (header === undefined) return undefined;
  const [type, ...parameters] = header.split(';');
  let charset: string | undefined;
  for (const parameter of parameters) {
    const [name, value] = parameter.split('=', 2);
    if (name?.trim().toLowerCase() === 'charset' && value !== undefined) charset = value.trim().replace(/^"|"$/g, '').toLowerCase();
  }
  return { type: type!.trim().toLowerCase(), charset };
}
