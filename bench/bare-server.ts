import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The edge's ceiling: what node:http alone does on this machine with the same requests. It reads
 * the body, parses the same JSON, and answers 202 with a body shaped like the service's
 * ({ accepted, events: [{ id }] }), so the only difference to the service is the service's own
 * work: Express, authentication, validation, metadata lookups, encoding and the Kafka round trip.
 *
 * Run as its own process (bench/run.ts starts it like the service) so that it competes for the
 * cores exactly as the service does. Prints one JSON line with its URL, then serves until SIGTERM.
 */

const BODY_LIMIT_BYTES = 1024 * 1024;

function answer(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'POST' || req.url !== '/v1/ingest') return answer(res, 404, { error: { code: 'not_found' } });
  // The service refuses a request without a key before reading it; so does the ceiling.
  if (typeof req.headers['x-api-key'] !== 'string') return answer(res, 401, { error: { code: 'unauthenticated' } });
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= BODY_LIMIT_BYTES) chunks.push(chunk);
  });
  req.on('end', () => {
    if (size > BODY_LIMIT_BYTES) return answer(res, 413, { error: { code: 'payload_too_large' } });
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return answer(res, 400, { error: { code: 'validation_failed' } });
    }
    const count = Array.isArray(body) ? body.length : 1;
    answer(res, 202, { accepted: count, events: Array.from({ length: count }, () => ({ id: randomUUID() })) });
  });
}

const server = createServer(handle);
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${port}` })}\n`);
});
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
