import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody } from './error-response.js';

/** Node's own limit on a request's head (request line and headers), which it enforces before any handler runs. */
const HEAD_LIMIT = '16 KiB';
/** The path echoed in the error body is cut here: the request line may be the very thing that was too long. */
const MAX_ECHOED_PATH = 256;

/**
 * Requests that node's HTTP parser refuses before the service sees them (a head over 16 KiB, a
 * malformed request line, a client too slow to send its head) get the standard error body, as every
 * other refusal does, instead of node's bare status line. The connection is closed: after a parse
 * error nothing more can be read from it.
 */
export function answerClientError(err: Error & { code?: string; rawPacket?: Buffer }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, `Request head too large: the request line and headers may take ${HEAD_LIMIT} in all`]
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'The request head did not arrive in time']
        : [400, 'Malformed HTTP request'];
  const body = JSON.stringify(errorBody(status, message, requestPathOf(err.rawPacket)));
  socket.end(
    [
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'X-Content-Type-Options: nosniff',
      'Connection: close',
      '',
      body,
    ].join('\r\n'),
  );
}

/** The path of the request line the parser saw, without its query, cut short; `/` when there is none to read. */
function requestPathOf(packet: Buffer | undefined): string {
  const line = packet?.subarray(0, MAX_ECHOED_PATH + 32).toString('latin1') ?? '';
  const target = /^[A-Z]+ (\/[\x21-\x7e]*)/.exec(line)?.[1]?.split('?', 1)[0];
  return target === undefined ? '/' : target.slice(0, MAX_ECHOED_PATH);
}
