import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DomainError } from '../domain/errors.js';
import { readJsonBody } from './json-body.js';

/** A real server that answers with what readJsonBody made of the request: the value, or the error's code and message. */
let server: Server;
let base: string;
const LIMIT = 1024;

beforeAll(async () => {
  server = createServer((req, res) => {
    readJsonBody(req, { limit: LIMIT }).then(
      (body) => res.end(JSON.stringify({ body: body === undefined ? '(none)' : body })),
      (err: unknown) => {
        res.statusCode = 400;
        res.end(JSON.stringify(err instanceof DomainError ? { code: err.code, message: err.message } : { unexpected: String(err) }));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function post(body: string | Buffer | undefined, headers: Record<string, string> = { 'content-type': 'application/json' }): Promise<any> {
  const res = await fetch(base, { method: 'POST', headers, ...(body === undefined ? {} : { body }) });
  return res.json();
}

describe('readJsonBody', () => {
  it('parses any JSON value, with a charset parameter or a byte order mark', async () => {
    expect(await post('{"a":[1,"é"]}')).toEqual({ body: { a: [1, 'é'] } });
    expect(await post('[1,2]', { 'content-type': 'Application/JSON; charset="UTF-8"' })).toEqual({ body: [1, 2] });
    expect(await post('\uFEFF"text"')).toEqual({ body: 'text' });
  });

  it('reads an empty JSON body as {} and leaves other media types unread', async () => {
    expect(await post('')).toEqual({ body: {} });
    expect(await post('{"a":1}', { 'content-type': 'text/plain' })).toEqual({ body: '(none)' });
    expect(await post('{"a":1}', { 'content-type': 'application/vnd.other+json' })).toEqual({ body: '(none)' });
    const res = await fetch(base, { method: 'GET' });
    expect(await res.json()).toEqual({ body: '(none)' });
  });

  it('decodes gzip, deflate and br bodies', async () => {
    const text = JSON.stringify({ compressed: true });
    for (const [encoding, bytes] of [
      ['gzip', gzipSync(text)],
      ['deflate', deflateSync(text)],
      ['br', brotliCompressSync(text)],
    ] as const) {
      expect(await post(bytes, { 'content-type': 'application/json', 'content-encoding': encoding })).toEqual({ body: { compressed: true } });
    }
  });

  it('refuses what it cannot read with the error the edge maps to 400, 413 or 415', async () => {
    expect(await post('{"a":')).toEqual({ code: 'validation_failed', message: 'Malformed JSON body' });
    expect(await post('{}', { 'content-type': 'application/json; charset=latin1' })).toEqual({ code: 'unsupported_media_type', message: 'Unsupported charset' });
    expect(await post('{}', { 'content-type': 'application/json', 'content-encoding': 'compress' })).toEqual({
      code: 'unsupported_media_type',
      message: 'Unsupported content encoding',
    });
    expect(await post(gzipSync('{"a":'), { 'content-type': 'application/json', 'content-encoding': 'gzip' })).toEqual({
      code: 'validation_failed',
      message: 'Malformed JSON body',
    });
    expect(await post(Buffer.from('not gzip'), { 'content-type': 'application/json', 'content-encoding': 'gzip' })).toEqual({
      code: 'validation_failed',
      message: 'Request body could not be decoded',
    });
  });

  it('counts the limit in decoded bytes, so a small compressed body that inflates past it is refused', async () => {
    const tooLarge = { code: 'payload_too_large', message: `Request body exceeds the ${LIMIT / (1024 * 1024)} MiB limit` };
    expect(await post(JSON.stringify({ s: 'x'.repeat(LIMIT) }))).toEqual(tooLarge);
    const bomb = gzipSync(JSON.stringify({ s: 'x'.repeat(LIMIT * 100) }));
    expect(bomb.length).toBeLessThan(LIMIT);
    expect(await post(bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' })).toEqual(tooLarge);
    expect(await post(JSON.stringify({ s: 'x'.repeat(LIMIT - 20) }))).toEqual({ body: { s: 'x'.repeat(LIMIT - 20) } });
  });
});
