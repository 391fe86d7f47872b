import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { EdgeResponse, holdHeaders, responseHeader, setResponseHeader, writeResponseHead } from './response-head.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/**
 * One request to a server (with the edge's responses, or node's own) whose handler is `answer`;
 * resolves with what the client received and what `responseHeader` said of Content-Length once the
 * response had finished.
 */
async function exchange(answer: (res: ServerResponse) => void, options: { edge: boolean }) {
  let finishedLength: string | number | undefined;
  const handler = (_req: unknown, res: ServerResponse): void => {
    res.once('finish', () => (finishedLength = responseHeader(res, 'content-length')));
    answer(res);
  };
  const server = options.edge ? createServer({ ServerResponse: EdgeResponse }, handler) : createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(() => {
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  const response = await fetch(`http://127.0.0.1:${port}/`);
  const headers: IncomingHttpHeaders = Object.fromEntries(response.headers);
  return { status: response.status, headers, body: await response.text(), finishedLength };
}

function answerJson(res: ServerResponse, text: string): void {
  setResponseHeader(res, 'Content-Type', 'application/json');
  setResponseHeader(res, 'Content-Length', Buffer.byteLength(text));
  writeResponseHead(res, 202);
  res.end(text);
}

describe('response heads', () => {
  it('writes held fields with the status, a later value of a name replacing the earlier one whatever its case', async () => {
    const got = await exchange(
      (res) => {
        holdHeaders(res);
        setResponseHeader(res, 'X-Request-Id', 'first');
        setResponseHeader(res, 'x-request-id', 'second');
        setResponseHeader(res, 'RateLimit', '"default";r=9;t=1');
        answerJson(res, '{"accepted":1}');
      },
      { edge: true },
    );
    expect(got).toMatchObject({ status: 202, body: '{"accepted":1}', finishedLength: 14 });
    expect(got.headers).toMatchObject({ 'x-request-id': 'second', ratelimit: '"default";r=9;t=1', 'content-type': 'application/json', 'content-length': '14' });
  });

  it('keeps the fields set on the response itself beside the held ones, the held value winning for a name set both ways', async () => {
    const got = await exchange(
      (res) => {
        res.setHeader('Connection', 'close');
        holdHeaders(res);
        setResponseHeader(res, 'X-Content-Type-Options', 'nosniff');
        res.setHeader('Vary', 'Origin');
        res.setHeader('Content-Type', 'text/plain');
        answerJson(res, '{}');
      },
      { edge: true },
    );
    expect(got.status).toBe(202);
    expect(got.headers).toMatchObject({ connection: 'close', vary: 'Origin', 'x-content-type-options': 'nosniff', 'content-type': 'application/json', 'content-length': '2' });
    expect(got.finishedLength).toBe(2);
  });

  it('sets fields on the response as usual where they are not held, and holds none on another server', async () => {
    const unheld = await exchange(
      (res) => {
        setResponseHeader(res, 'X-Request-Id', 'id');
        expect(res.getHeader('x-request-id')).toBe('id');
        answerJson(res, '{}');
      },
      { edge: true },
    );
    expect(unheld).toMatchObject({ status: 202, body: '{}', finishedLength: 2 });
    expect(unheld.headers['x-request-id']).toBe('id');

    const other = await exchange(
      (res) => {
        holdHeaders(res);
        setResponseHeader(res, 'X-Request-Id', 'other');
        expect(res.getHeader('x-request-id')).toBe('other');
        answerJson(res, '[1,2]');
      },
      { edge: false },
    );
    expect(other).toMatchObject({ status: 202, body: '[1,2]', finishedLength: 5 });
    expect(other.headers).toMatchObject({ 'x-request-id': 'other', 'content-type': 'application/json' });
  });
});
