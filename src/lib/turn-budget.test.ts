import { once } from 'node:events';
import { connect, createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { TurnBudget } from './turn-budget.js';

/** Holds the thread for `ms`, as parsing a large body does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** Counts the event loop's turns: one check phase each. */
function turnCounter(): { now: () => number; stop: () => void } {
  let turn = 0;
  let running = true;
  const tick = (): void => {
    turn += 1;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  return { now: () => turn, stop: () => (running = false) };
}

const servers: Array<{ close: () => void }> = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/**
 * Six callers with 5 ms of work each, queued from a socket's data callback (where a request's work
 * starts), and a client connecting right then: where among the callers the server accepts it.
 */
async function acceptedAfter(turns: TurnBudget): Promise<string[]> {
  const order: string[] = [];
  let connections = 0;
  let callersDone: Promise<unknown> = Promise.resolve();
  let lateClosed: Promise<unknown> = Promise.resolve();
  const server = createServer((socket) => {
    connections += 1;
    if (connections === 2) {
      order.push('accepted');
      socket.destroy();
      return;
    }
    socket.once('data', () => {
      callersDone = Promise.all(Array.from({ length: 6 }, async (_, i) => {
        await turns.next();
        order.push(`caller ${i}`);
        busy(5);
      }));
      const late = connect(port, '127.0.0.1');
      late.on('error', () => undefined);
      lateClosed = once(late, 'close');
      socket.destroy();
    });
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  const trigger = connect(port, '127.0.0.1', () => trigger.write('x'));
  await once(trigger, 'close');
  await callersDone;
  await lateClosed;
  return order;
}

describe('TurnBudget', () => {
  /** `count` callers, each doing `workMs` once admitted: the order they ran in and the turn each ran in. */
  async function admit(count: number, workMs: number): Promise<{ order: number[]; turns: number[] }> {
    const budget = new TurnBudget(1);
    const counter = turnCounter();
    const seen: Array<[number, number]> = [];
    await Promise.all(Array.from({ length: count }, async (_, i) => {
      await budget.next();
      seen.push([i, counter.now()]);
      busy(workMs);
    }));
    counter.stop();
    return { order: seen.map(([i]) => i), turns: seen.map(([, turn]) => turn) };
  }

  it('admits light work at once, in the order it came, within one turn', async () => {
    const { order, turns } = await admit(5, 0);
    expect(order).toEqual([0, 1, 2, 3, 4]);
    expect(new Set(turns).size).toBe(1);
  });

  it('carries callers over to later turns once a turn’s budget is spent, still in their order', async () => {
    const { order, turns } = await admit(4, 3);
    expect(order).toEqual([0, 1, 2, 3]);
    for (let i = 1; i < turns.length; i++) expect(turns[i]).toBeGreaterThan(turns[i - 1]!);
  });

  it('lets the process accept a new connection between heavy callers', async () => {
    const order = await acceptedAfter(new TurnBudget(1));
    expect(order.indexOf('accepted')).toBeGreaterThan(-1);
    expect(order.indexOf('accepted')).toBeLessThan(order.indexOf('caller 5'));
  });

  it('without a budget to speak of, the same callers hold the connection back until they are all done', async () => {
    const order = await acceptedAfter(new TurnBudget(Number.POSITIVE_INFINITY));
    expect(order.at(-1)).toBe('accepted');
  });
});
