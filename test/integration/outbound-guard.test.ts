import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isForbiddenAddress } from '../../src/delivery/address-policy.js';
import { OutboundError, type OutboundFailure } from '../../src/delivery/delivery-types.js';
import { checkDestinationUrl, createOutboundHttp, systemResolver, type Resolver } from '../../src/delivery/outbound-http.js';
import { DomainError } from '../../src/domain/errors.js';
import { capturingLogger } from '../helpers/logger.js';
import { freePort } from '../helpers/net.js';

/**
 * The outbound guard (no delivery to a loopback, private or link-local address, no redirect followed)
 * against real receivers on this machine. Each receiver counts every TCP connection it accepts, so
 * "refused" means no socket ever reached it, not merely an error.
 */

const SECRET_PATH = '/services/T000/B000/SECRETTOKEN';

interface Receiver {
  readonly port: number;
  connections: number;
  readonly hosts: string[];
  close(): Promise<void>;
}

type Handler = (request: http.IncomingMessage, response: http.ServerResponse) => void;
const ok: Handler = (_request, response) => response.end('ok');

async function startReceiver(host: string, port = 0, handler: Handler = ok): Promise<Receiver> {
  const sockets = new Set<Socket>();
  const receiver = { port: 0, connections: 0, hosts: [] as string[], close: () => Promise.resolve() };
  const server = http.createServer((request, response) => {
    receiver.hosts.push(request.headers.host ?? '');
    handler(request, response);
  });
  server.on('connection', (socket) => {
    receiver.connections += 1;
    sockets.add(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  receiver.port = (server.address() as AddressInfo).port;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return receiver;
}

/**
 * Receivers on 127.0.0.1 and on ::1 at the same port, so that every URL below names one port in either
 * form. The IPv6 cases prove something only if a socket on ::1 would have accepted the connection the
 * guard refused, so a machine where nothing can listen on ::1 fails here instead of passing them idly.
 */
async function startLoopbackPair(): Promise<{ v4: Receiver; v6: Receiver }> {
  for (let attempt = 1; ; attempt++) {
    const v4 = await startReceiver('127.0.0.1');
    try {
      return { v4, v6: await startReceiver('::1', v4.port) };
    } catch (error) {
      await v4.close();
      const code = (error as NodeJS.ErrnoException).code;
      // The port is free on 127.0.0.1 but something else holds it on ::1: another port will do.
      if (code === 'EADDRINUSE' && attempt < 5) continue;
      throw new Error(`cannot listen on [::1]:${v4.port} (${code ?? String(error)}); the IPv6 loopback cases need IPv6 on lo (ip -6 addr show lo)`, {
        cause: error,
      });
    }
  }
}

/** A resolver that answers from a table and counts its calls. */
function fakeResolver(answers: (hostname: string, call: number) => string[]): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolve = (hostname: string) => {
    calls.push(hostname);
    const addresses = answers(hostname, calls.length);
    return Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) })));
  };
  return Object.assign(resolve, { calls });
}

async function outboundFailure(work: Promise<unknown>, what = 'the request'): Promise<OutboundError> {
  const error = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, `${what} was sent instead of refused`).toBeInstanceOf(OutboundError);
  const failure = error as OutboundError;
  expect(failure.message).not.toContain('SECRETTOKEN');
  expect(failure.message).not.toContain('/services');
  return failure;
}

async function domainFailure(work: Promise<unknown>): Promise<DomainError> {
  const error = await work.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  expect(JSON.stringify({ message: (error as DomainError).message, details: (error as DomainError).details })).not.toContain('SECRETTOKEN');
  return error as DomainError;
}

let v4: Receiver;
let v6: Receiver;
const extra: Receiver[] = [];

beforeAll(async () => {
  ({ v4, v6 } = await startLoopbackPair());
});
afterAll(async () => {
  await Promise.all([v4.close(), v6.close()]);
});
afterEach(async () => {
  await Promise.all(extra.splice(0).map((r) => r.close()));
  v4.connections = 0;
  v6.connections = 0;
});

const loopbackUrls = (port: number): Array<[string, OutboundFailure]> => [
  [`http://127.0.0.1:${port}${SECRET_PATH}`, 'blocked_address'],
  [`http://localhost:${port}${SECRET_PATH}`, 'blocked_address'],
  [`http://LocalHost.:${port}${SECRET_PATH}`, 'blocked_address'],
  [`http://[::1]:${port}${SECRET_PATH}`, 'blocked_address'],
  [`http://[::ffff:127.0.0.1]:${port}${SECRET_PATH}`, 'blocked_address'],
  [`http://[::ffff:7f00:1]:${port}${SECRET_PATH}`, 'blocked_address'],
  [`http://169.254.169.254:${port}${SECRET_PATH}`, 'blocked_address'],
  [`http://10.0.0.1:${port}${SECRET_PATH}`, 'blocked_address'],
  [`http://0.0.0.0:${port}${SECRET_PATH}`, 'blocked_address'],
  [`http://2130706433:${port}${SECRET_PATH}`, 'blocked_address'],
  [`http://0x7f.1:${port}${SECRET_PATH}`, 'blocked_address'],
  [`http://017700000001:${port}${SECRET_PATH}`, 'blocked_address'],
  [`https://127.0.0.1:${port}${SECRET_PATH}`, 'blocked_address'],
  [`ftp://127.0.0.1:${port}${SECRET_PATH}`, 'invalid_url'],
  ['file:///etc/passwd', 'invalid_url'],
  [`http://user:pass@127.0.0.1:${port}${SECRET_PATH}`, 'invalid_url'],
  ['not a url', 'invalid_url'],
];

describe('outbound client refuses forbidden destinations', () => {
  it('connects to none of the loopback, private and mangled forms', async () => {
    const resolve = fakeResolver(() => ['127.0.0.1']);
    const { logger, lines } = capturingLogger('info');
    const client = createOutboundHttp({ allowPrivate: false, resolve, logger });
    for (const [url, reason] of loopbackUrls(v4.port)) {
      const failure = await outboundFailure(client.post(url, '{}', { 'content-type': 'application/json' }), url);
      expect({ url, reason: failure.reason }).toEqual({ url, reason });
    }
    // Every form above is an IP literal or a localhost name: none needed DNS.
    expect(resolve.calls).toEqual([]);
    expect(v4.connections).toBe(0);
    expect(v6.connections).toBe(0);
    expect(lines().length).toBeGreaterThan(0);
    expect(lines().join('\n')).not.toContain('SECRETTOKEN');
  });

  it.each([
    ['a name that resolves to loopback', ['127.0.0.1']],
    ['a name that resolves to IPv6 loopback', ['::1']],
    ['a name that resolves to an IPv4-mapped loopback', ['::ffff:127.0.0.1']],
    ['a name with a public and a loopback address', ['93.184.215.14', '127.0.0.1']],
    ['a name with a public and a metadata address', ['93.184.215.14', '169.254.169.254']],
    ['a name the resolver answers with garbage for', ['2130706433']],
  ])('refuses %s', async (_name, addresses) => {
    const resolve = fakeResolver(() => addresses);
    const client = createOutboundHttp({ allowPrivate: false, resolve });
    const failure = await outboundFailure(client.post(`http://alerts.example.com:${v4.port}${SECRET_PATH}`, '{}', {}));
    expect(failure.reason).toBe('blocked_address');
    expect(failure.message).toContain('http://alerts.example.com');
    expect(resolve.calls).toEqual(['alerts.example.com']);
    expect(v4.connections).toBe(0);
    expect(v6.connections).toBe(0);
  });

  it('would have reached both loopback receivers: with private addresses allowed, each form connects', async () => {
    // The control for the refusals above: the same literal and resolved forms, guard relaxed, do
    // reach a receiver, so "no connection" there is the guard's doing and not an unreachable socket.
    const resolve = fakeResolver(() => ['::1']);
    const client = createOutboundHttp({ allowPrivate: true, resolve });
    expect((await client.post(`http://[::1]:${v6.port}/hook`, '{}', {})).status).toBe(200);
    expect((await client.post(`http://alerts.example.com:${v6.port}/hook`, '{}', {})).status).toBe(200);
    expect((await client.post(`http://127.0.0.1:${v4.port}/hook`, '{}', {})).status).toBe(200);
    expect({ v4: v4.connections, v6: v6.connections }).toEqual({ v4: 1, v6: 2 });
  });

  it('has the system resolver answer localhost with loopback addresses only, which are refused', async () => {
    const found = await systemResolver('localhost');
    expect(found.length).toBeGreaterThan(0);
    expect(found.map((a) => isForbiddenAddress(a.address))).toEqual(found.map(() => 'loopback'));
  });
});

describe('outbound client connects only to the address it checked', () => {
  it('resolves once per request and pins the socket to the first checked address', async () => {
    // A second receiver on the same port of another loopback address stands for the rebinding target.
    const rebound = await startReceiver('127.0.0.2', v4.port);
    extra.push(rebound);
    const resolve = fakeResolver((_host, call) => (call === 1 ? ['127.0.0.1'] : ['127.0.0.2']));
    const client = createOutboundHttp({ allowPrivate: true, resolve });

    const response = await client.post(`http://alerts.example.com:${v4.port}/hook`, '{}', {});
    expect(response.status).toBe(200);
    expect(resolve.calls).toEqual(['alerts.example.com']);
    expect(v4.connections).toBe(1);
    expect(rebound.connections).toBe(0);
    // The name, not the address, is what the receiver sees as Host.
    expect(v4.hosts.at(-1)).toBe(`alerts.example.com:${v4.port}`);

    await client.post(`http://alerts.example.com:${v4.port}/hook`, '{}', {});
    expect(resolve.calls).toHaveLength(2);
    expect(rebound.connections).toBe(1);
  });

  it('opens a fresh connection per request so no pooled socket skips the check', async () => {
    const client = createOutboundHttp({ allowPrivate: true });
    await client.post(`http://127.0.0.1:${v4.port}/a`, '{}', {});
    await client.post(`http://127.0.0.1:${v4.port}/b`, '{}', {});
    expect(v4.connections).toBe(2);
  });

  it('returns a redirect instead of following it', async () => {
    const target = await startReceiver('127.0.0.1');
    extra.push(target);
    const redirecting = await startReceiver('127.0.0.1', 0, (_request, response) => {
      response.writeHead(302, { location: `http://127.0.0.1:${target.port}/` }).end();
    });
    extra.push(redirecting);
    const client = createOutboundHttp({ allowPrivate: true });

    const response = await client.post(`http://127.0.0.1:${redirecting.port}${SECRET_PATH}`, '{}', {});
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe(`http://127.0.0.1:${target.port}/`);
    expect(redirecting.connections).toBe(1);
    expect(target.connections).toBe(0);
  });
});

describe('outbound client limits', () => {
  it('times out a receiver that never answers', async () => {
    const silent = await startReceiver('127.0.0.1', 0, () => undefined);
    extra.push(silent);
    const client = createOutboundHttp({ allowPrivate: true, timeoutMs: 300 });
    const started = performance.now();
    const failure = await outboundFailure(client.post(`http://127.0.0.1:${silent.port}${SECRET_PATH}`, '{}', {}));
    expect(failure.reason).toBe('timeout');
    expect(silent.connections).toBe(1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('times out a resolver that never answers', async () => {
    const client = createOutboundHttp({ allowPrivate: false, timeoutMs: 300, resolve: () => new Promise(() => undefined) });
    const failure = await outboundFailure(client.post(`https://alerts.example.com${SECRET_PATH}`, '{}', {}));
    expect(failure.reason).toBe('timeout');
  });

  it('reports a refused connection as a network failure without the path', async () => {
    const client = createOutboundHttp({ allowPrivate: true });
    const failure = await outboundFailure(client.post(`http://127.0.0.1:${await freePort()}${SECRET_PATH}`, '{}', {}));
    expect(failure.reason).toBe('network');
  });

  it('reads no more of a response than the cap', async () => {
    const chatty = await startReceiver('127.0.0.1', 0, (_request, response) => {
      response.writeHead(500).end('x'.repeat(1024 * 1024));
    });
    extra.push(chatty);
    const client = createOutboundHttp({ allowPrivate: true, maxResponseBytes: 1024 });
    const response = await client.post(`http://127.0.0.1:${chatty.port}/`, '{}', {});
    expect(response.status).toBe(500);
    expect(response.body).toBe('x'.repeat(1024));
  });
});

describe('checkDestinationUrl', () => {
  it('refuses the same forms with a validation error on url', async () => {
    const resolve = fakeResolver(() => ['127.0.0.1']);
    const urls = [...loopbackUrls(v4.port).map(([url]) => url), `https://alerts.example.com${SECRET_PATH}`];
    for (const url of urls) {
      const error = await domainFailure(checkDestinationUrl(url, { allowPrivate: false, resolve }));
      expect({ url, code: error.code, path: error.details?.[0]?.path }).toEqual({ url, code: 'validation_failed', path: 'url' });
    }
    expect(v4.connections).toBe(0);
  });

  it('refuses a host that does not resolve', async () => {
    const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.invalid'), { code: 'ENOTFOUND' });
    for (const resolve of [() => Promise.reject(notFound), fakeResolver(() => [])]) {
      const error = await domainFailure(checkDestinationUrl(`https://nowhere.invalid${SECRET_PATH}`, { allowPrivate: false, resolve }));
      expect(error.code).toBe('validation_failed');
      expect(error.details?.[0]?.message).toContain('host does not resolve');
    }
  });

  it('answers unavailable, not invalid, when the resolver itself fails', async () => {
    const flaky = Object.assign(new Error('getaddrinfo EAI_AGAIN'), { code: 'EAI_AGAIN' });
    const error = await domainFailure(checkDestinationUrl('https://hooks.example.com/x', { allowPrivate: false, resolve: () => Promise.reject(flaky) }));
    expect(error.code).toBe('unavailable');
    expect(error.retriable).toBe(true);
  });

  it('accepts a public literal without resolving or connecting, and a public name', async () => {
    const resolve = fakeResolver(() => ['93.184.215.14']);
    await expect(checkDestinationUrl('https://93.184.215.14/x', { allowPrivate: false, resolve })).resolves.toBeUndefined();
    expect(resolve.calls).toEqual([]);
    await expect(checkDestinationUrl(`https://hooks.example.com${SECRET_PATH}`, { allowPrivate: false, resolve })).resolves.toBeUndefined();
    expect(resolve.calls).toEqual(['hooks.example.com']);
  });

  it('accepts private destinations when OUTBOUND_ALLOW_PRIVATE is on, still without connecting', async () => {
    const resolve = fakeResolver(() => ['127.0.0.1']);
    for (const url of [`http://127.0.0.1:${v4.port}/`, `http://[::1]:${v4.port}/`, 'http://10.0.0.1/', `http://localhost:${v4.port}/`, 'http://alerts.example.com/']) {
      await expect(checkDestinationUrl(url, { allowPrivate: true, resolve })).resolves.toBeUndefined();
    }
    expect(v4.connections).toBe(0);
    // Scheme and credentials are refused whatever the setting.
    expect((await domainFailure(checkDestinationUrl('ftp://127.0.0.1/', { allowPrivate: true }))).code).toBe('validation_failed');
    expect((await domainFailure(checkDestinationUrl('http://u:p@127.0.0.1/', { allowPrivate: true }))).code).toBe('validation_failed');
  });
});
