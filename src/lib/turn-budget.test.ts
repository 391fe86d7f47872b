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
 * `callers` callers with `workMs` of work each, queued from a socket's data callback (where a
 * request's work starts), and `burst` clients connecting right then: the order in which the callers
 * ran and the server accepted the clients. The server tells the budget of every connection it
 * accepts, as the service's server does.
 */
async function acceptedAmong(turns: TurnBudget, { callers = 6, workMs = 5, burst = 1 } = {}): Promise<string[]> {
  const order: string[] = [];
  let connections = 0;
  let callersDone: Promise<unknown> = Promise.resolve();
  let burstClosed: Promise<unknown> = Promise.resolve();
  const server = createServer((socket) => {
    turns.connectionAccepted();
    connections += 1;
    if (connections > 1) {
      order.push('accepted');
      socket.destroy();
      return;
    }
    socket.once('data', () => {
      callersDone = Promise.all(Array.from({ length: callers }, async (_, i) => {
        await turns.next();
        order.push(`caller ${i}`);
        busy(workMs);
      }));
      burstClosed = Promise.all(Array.from({ length: burst }, () => {
        const client = connect(port, '127.0.0.1');
        client.on('error', () => undefined);
        return once(client, 'close');
      }));
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
  await burstClosed;
  return order;
}

/** How many callers had run when the server accepted the last client of the burst. */
function callersBeforeLastAccept(order: readonly string[]): number {
  return order.slice(0, order.lastIndexOf('accepted')).filter((entry) => entry.startsWith('caller')).length;
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
    const order = await acceptedAmong(new TurnBudget(1));
    expect(order.indexOf('accepted')).toBeGreaterThan(-1);
    expect(order.indexOf('accepted')).toBeLessThan(order.indexOf('caller 5'));
  });

  it('without a budget to speak of, the same callers hold the connection back until they are all done', async () => {
    const order = await acceptedAmong(new TurnBudget(Number.POSITIVE_INFINITY));
    expect(order.at(-1)).toBe('accepted');
  });

  it('keeps turns short while a burst of connections is being accepted, one caller per turn', async () => {
    const burst = 8;
    const order = await acceptedAmong(new TurnBudget(Number.POSITIVE_INFINITY, { whileAcceptingMs: 1 }), { callers: 30, workMs: 2, burst });
    expect(order.filter((entry) => entry === 'accepted')).toHaveLength(burst);
    // One turn per accepted client, each admitting one caller (and the turn the callers started in).
    expect(callersBeforeLastAccept(order)).toBeLessThanOrEqual(burst + 1);
    // Once every client is in, the turns are long again: the rest of the callers share one.
    expect(order.at(-1)).toBe('caller 29');
  });

  it('without a budget while accepting, the burst waits for every caller', async () => {
    const order = await acceptedAmong(new TurnBudget(Number.POSITIVE_INFINITY), { callers: 30, workMs: 2, burst: 8 });
    expect(callersBeforeLastAccept(order)).toBe(30);
  });
});
