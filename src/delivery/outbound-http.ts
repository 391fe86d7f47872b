import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { DomainError } from '../domain/errors.js';
import type { Logger } from '../observability/logger.js';
import { checkAddress, isLocalhostName, parseAddress, urlHostAddress, type CheckedAddress } from './address-policy.js';
import { OutboundError, type OutboundHttp, type OutboundResponse } from './delivery-types.js';

/**
 * The one outbound HTTP client every delivery uses, and the SSRF guard around it.
 *
 * It resolves the host itself, checks every address, then connects to the checked address only: the
 * socket's `lookup` hands back that address, so no second resolution can rebind the name to loopback
 * between check and connect. It follows no redirect (a 3xx is the sender's failure, and following
 * one would reach an unchecked host), pools no socket (`agent: false`), and keeps one deadline over
 * resolve + connect + response. Messages name the scheme and host only: a Slack or Discord webhook
 * carries its token in the path.
 */

export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

export interface OutboundHttpOptions {
  readonly allowPrivate: boolean;
  /** Whole request: resolve, connect, send, read. */
  readonly timeoutMs?: number;
  /** Enough of a receiver's answer to explain a failure; the rest is not read. */
  readonly maxResponseBytes?: number;
  readonly resolve?: Resolver;
  readonly logger?: Pick<Logger, 'warn'>;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;
/** A destination is saved by a person waiting on the API: do not hang on a slow resolver. */
const CHECK_RESOLVE_TIMEOUT_MS = 5_000;

export const systemResolver: Resolver = async (hostname) => {
  const found = await dnsLookup(hostname, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

interface Target {
  readonly url: URL;
  /** `scheme://host[:port]`, the only part of the URL that errors and logs may show. */
  readonly origin: string;
}

function parseTarget(raw: string): Target {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundError('invalid_url', 'not a valid URL');
  }
  const origin = `${url.protocol}//${url.host}`;
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new OutboundError('invalid_url', `only http and https URLs are allowed, not ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new OutboundError('invalid_url', `${origin}: credentials in the URL are not allowed`);
  }
  return { url, origin };
}

function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

const NOT_FOUND_CODES = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA']);

/** The name has no address: a fact about the URL, unlike a resolver that timed out or failed. */
class HostNotFoundError extends OutboundError {
  constructor(origin: string, cause?: unknown) {
    super('network', `${origin}: host does not resolve`, { cause });
  }
}

/**
 * The address to connect to for `target`, after checking every address the name resolves to. One
 * forbidden address refuses the whole name rather than picking a good one: a name that mixes public
 * and loopback records is either a mistake or an attack.
 */
async function resolveTarget(target: Target, allowPrivate: boolean, resolve: Resolver, signal: AbortSignal): Promise<CheckedAddress> {
  const { url, origin } = target;
  const literal = urlHostAddress(url);
  let candidates: Array<{ address: string }>;
  if (literal !== null) {
    candidates = [literal];
  } else if (isLocalhostName(url.hostname) && !allowPrivate) {
    throw new OutboundError('blocked_address', `${origin} is a loopback name`);
  } else {
    try {
      candidates = await abortable(resolve(url.hostname), signal);
    } catch (error) {
      if (signal.aborted) throw new OutboundError('timeout', `${origin}: resolving the host timed out`);
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && NOT_FOUND_CODES.has(code)) throw new HostNotFoundError(origin, error);
      throw new OutboundError('network', `${origin}: host could not be resolved (${typeof code === 'string' ? code : 'error'})`, { cause: error });
    }
    if (candidates.length === 0) throw new HostNotFoundError(origin);
  }
  for (const { address } of candidates) {
    const reason = checkAddress(address, { allowPrivate });
    if (reason === 'invalid') throw new OutboundError('blocked_address', `${origin}: the resolver returned something that is not an IP address`);
    if (reason !== null) {
      const what = literal === null ? ` resolves to ${address},` : '';
      throw new OutboundError('blocked_address', `${origin}${what} is a ${reason} address, refused`);
    }
  }
  // Checked above, so it parses; the canonical spelling is what the socket gets.
  return parseAddress(candidates[0]!.address)!;
}

/**
 * A socket `lookup` that answers every query with the one address already checked. Node 20's
 * happy-eyeballs connect asks with `all: true` and wants a list; a plain connect wants one address.
 */
function pinnedLookup(checked: CheckedAddress): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all === true) {
      (callback as unknown as (err: null, addresses: CheckedAddress[]) => void)(null, [checked]);
    } else {
      callback(null, checked.address, checked.family);
    }
  };
}

function send(
  target: Target,
  checked: CheckedAddress,
  body: string,
  headers: Readonly<Record<string, string>>,
  maxBytes: number,
  signal: AbortSignal,
): Promise<OutboundResponse> {
  const { url, origin } = target;
  const secure = url.protocol === 'https:';
  const hostname = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const payload = Buffer.from(body, 'utf8');
  const options: https.RequestOptions = {
    method: 'POST',
    // The name stays the host so the Host header and TLS certificate check use it; `lookup` decides
    // where the socket goes. For an IP literal Node skips `lookup` and connects to the literal checked.
    host: hostname,
    port: url.port === '' ? (secure ? 443 : 80) : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers: { ...headers, 'content-length': String(payload.length) },
    lookup: pinnedLookup(checked),
    agent: false,
    signal,
    ...(secure && parseAddress(hostname) === null ? { servername: hostname } : {}),
  };

  return new Promise<OutboundResponse>((resolve, reject) => {
    const fail = (error: unknown): void => {
      if (signal.aborted) reject(new OutboundError('timeout', `${origin}: no response in time`));
      else reject(new OutboundError('network', `${origin}: ${networkCause(error)}`, { cause: error }));
    };
    const request = (secure ? https : http).request(options, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let done = false;
      const finish = (): void => {
        if (done) return;
        done = true;
        resolve({
          status: response.statusCode ?? 0,
          headers: flattenHeaders(response.headers),
          body: Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8'),
        });
      };
      response.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        // Enough to explain a failure; a receiver must not make us buffer an unbounded answer.
        if (size >= maxBytes) {
          finish();
          response.destroy();
          request.destroy();
        }
      });
      response.on('end', finish);
      response.on('error', (error) => {
        if (!done) fail(error);
      });
      // A response cut off without an error event (the deadline destroying the socket) still settles.
      response.on('close', () => {
        if (!done && !response.complete) fail(new Error('response cut off'));
      });
    });
    request.on('error', fail);
    request.end(payload);
  });
}

/** The error's code or a generic word: Node's messages may quote the host and port, never the path. */
function networkCause(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `request failed (${code})` : 'request failed';
}

function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

export function createOutboundHttp(options: OutboundHttpOptions): OutboundHttp {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const resolve = options.resolve ?? systemResolver;

  return {
    async post(url, body, headers) {
      const target = parseTarget(url);
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(new Error('deadline')), timeoutMs);
      try {
        const checked = await resolveTarget(target, options.allowPrivate, resolve, controller.signal);
        return await send(target, checked, body, headers, maxBytes, controller.signal);
      } catch (error) {
        if (error instanceof OutboundError && error.reason === 'blocked_address') {
          options.logger?.warn({ origin: target.origin, reason: error.reason }, 'outbound request refused');
        }
        throw error;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * Refuses a destination URL at creation or update (a 400 at the edge) for the same reasons `post`
 * would refuse it later, and when its host does not resolve now. It only resolves; it never connects.
 * Delivery checks again on every attempt, since what a name resolves to can change after this.
 */
export async function checkDestinationUrl(url: string, options: { allowPrivate: boolean; resolve?: Resolver; timeoutMs?: number }): Promise<void> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('deadline')), options.timeoutMs ?? CHECK_RESOLVE_TIMEOUT_MS);
  try {
    await resolveTarget(parseTarget(url), options.allowPrivate, options.resolve ?? systemResolver, controller.signal);
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    if (error.reason === 'timeout' || (error.reason === 'network' && !(error instanceof HostNotFoundError))) {
      // A resolver that is slow or failing says nothing about the URL: let the caller try again.
      throw new DomainError('unavailable', 'could not resolve the destination host, try again', { retryAfterSeconds: 5, cause: error });
    }
    throw new DomainError('validation_failed', 'the destination URL is not allowed', {
      details: [{ path: 'url', message: error.message }],
      cause: error,
    });
  } finally {
    clearTimeout(timer);
  }
}
