import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DeadlineExceeded, withDeadline, withLoopDeadline } from './deadline.js';

/** Keeps the event loop busy for `ms`, as a burst of requests does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/**
 * An answer that arrives over a socket: the server replies at once, but the process reads the reply
 * only when its event loop gets to the socket, as it reads a Redis reply.
 */
async function echoServer(): Promise<Server> {
  const server = createServer((socket) => socket.on('data', (data) => socket.write(data)));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

async function askOver(server: Server): Promise<{ answer: Promise<string> }> {
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  await once(socket, 'connect');
  const answer = once(socket, 'data').then(([data]) => {
    socket.destroy();
    return String(data);
  });
  socket.write('ping');
  return { answer };
}

describe('withLoopDeadline', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  it('fails a dependency that does not answer after the deadline, on a process with time to spare', async () => {
    const started = performance.now();
    await expect(withLoopDeadline(new Promise(() => undefined), 50, 1000, 'no answer')).rejects.toThrow(DeadlineExceeded);
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(49);
    expect(took).toBeLessThan(500);
  });

  it('passes on an answer, and on a failure, that came in time', async () => {
    await expect(withLoopDeadline(Promise.resolve(7), 50, 1000, 'no answer')).resolves.toBe(7);
    await expect(withLoopDeadline(Promise.reject(new Error('refused')), 50, 1000, 'no answer')).rejects.toThrow('refused');
  });

  it('reads an answer that arrived while the event loop was busy past the deadline, where withDeadline gives up', async () => {
    server = await echoServer();
    const [first, second] = [await askOver(server), await askOver(server)];
    const plain = withDeadline(first.answer, 50, 'no answer');
    const tolerant = withLoopDeadline(second.answer, 50, 1000, 'no answer');
    busy(200);
    await expect(plain).rejects.toThrow(DeadlineExceeded);
    await expect(tolerant).resolves.toBe('ping');
  });

  it('gives up at maxMs when the loop stays busy and no answer comes', async () => {
    const started = performance.now();
    const hung = withLoopDeadline(new Promise(() => undefined), 20, 300, 'no answer');
    // Busy stretches of 60 ms each, with the loop free in between: every timer fires late.
    const stretches = setInterval(() => busy(60), 1);
    try {
      await expect(hung).rejects.toThrow(DeadlineExceeded);
    } finally {
      clearInterval(stretches);
    }
    const took = performance.now() - started;
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(1000);
  });
});
