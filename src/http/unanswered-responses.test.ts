import { once } from 'node:events';
import { Agent, createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { UnansweredResponses } from './unanswered-responses.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/**
 * A server whose every response waits, registered in `unanswered`, until the test ends it; and a
 * client that sends `count` requests at once on kept-alive connections. Resolves once the server holds
 * all of them, with the held responses in arrival order and each request's outcome (its
 * `Connection` header, or `error` when its connection was lost).
 */
async function heldResponses(unanswered: UnansweredResponses, count: number) {
  const held: ServerResponse[] = [];
  let allArrived!: () => void;
  const arrived = new Promise<void>((resolve) => (allArrived = resolve));
  const server = createServer((_req, res) => {
    unanswered.add(res);
    held.push(res);
    if (held.length === count) allArrived();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const agent = new Agent({ keepAlive: true });
  cleanups.push(() => {
    agent.destroy();
    server.closeAllConnections();
    server.close();
  });
  const { port } = server.address() as AddressInfo;
  const requests = Array.from({ length: count }, () => request({ port, host: '127.0.0.1', path: '/', agent }));
  const outcomes = requests.map(
    (req) =>
      new Promise<string>((resolve) => {
        req.on('response', (res) => {
          res.resume();
          resolve(res.headers.connection ?? '');
        });
        req.on('error', () => resolve('error'));
        req.end();
      }),
  );
  await arrived;
  return { held, requests, outcomes };
}

describe('UnansweredResponses', () => {
  it('holds each response until it is sent, whichever order they are answered in', async () => {
    const unanswered = new UnansweredResponses();
    const { held } = await heldResponses(unanswered, 4);
    expect(unanswered.size).toBe(4);
    expect(new Set(unanswered)).toEqual(new Set(held));

    // The first (its slot is refilled by the last), then one from the middle, then the last.
    for (const [answered, left] of [[held[0]!, [held[1], held[2], held[3]]], [held[2]!, [held[1], held[3]]], [held[3]!, [held[1]]]] as const) {
      answered.end('done');
      await once(answered, 'close');
      expect(new Set(unanswered)).toEqual(new Set(left));
      expect(unanswered.size).toBe(left.length);
    }
    held[1]!.end('done');
    await once(held[1]!, 'close');
    expect([...unanswered]).toEqual([]);
  });

  it('lets go of a response whose client went away before it was answered', async () => {
    const unanswered = new UnansweredResponses();
    const { held, requests } = await heldResponses(unanswered, 2);
    requests[0]!.destroy();
    await once(held[0]!, 'close');
    expect([...unanswered]).toEqual([held[1]]);
  });

  it('can be walked while the responses it yields are answered, as a shutdown does', async () => {
    const unanswered = new UnansweredResponses();
    const { outcomes } = await heldResponses(unanswered, 3);
    for (const res of unanswered) {
      res.setHeader('Connection', 'close');
      res.end('done');
    }
    expect(await Promise.all(outcomes)).toEqual(['close', 'close', 'close']);
    await expect.poll(() => unanswered.size).toBe(0);
  });
});
