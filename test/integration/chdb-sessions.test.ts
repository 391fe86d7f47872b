import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChdbTransport } from '../../src/adapters/event-store/chdb-event-store.js';

/**
 * The embedded store's statements on the real engine: a statement does not wait behind a slow one
 * while a session is free, and when every session is busy, writes go before reads.
 */

// chDB binds one data directory per process: every transport here shares it.
const dir = mkdtempSync(path.join(tmpdir(), 'eas-chdb-sessions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Resolves with the order in which the given statements settled, by label. */
function settledOrder(statements: Record<string, Promise<unknown>>): Promise<string[]> {
  const order: string[] = [];
  return Promise.all(Object.entries(statements).map(([label, p]) => p.then(() => void order.push(label)))).then(() => order);
}

describe('the embedded store on chDB sessions', () => {
  it('answers a read while a slow statement runs on another session', async () => {
    const transport = new ChdbTransport(dir);
    try {
      const order = await settledOrder({
        slow: transport.select('SELECT sleep(2) AS slept'),
        read: transport.select('SELECT 1 AS one'),
        write: transport.exec('SELECT 2'),
      });
      expect(order.at(-1)).toBe('slow');
    } finally {
      await transport.close();
    }
  });

  it('runs a waiting write before a read that waited longer, once a session is free', async () => {
    const transport = new ChdbTransport(dir, 1);
    try {
      const slow = transport.select('SELECT sleep(1) AS slept');
      const order = await settledOrder({ slow, read: transport.select('SELECT 1 AS one'), write: transport.exec('SELECT 2') });
      expect(order).toEqual(['slow', 'write', 'read']);
      expect(await transport.select('SELECT 3 AS three')).toEqual([{ three: 3 }]);
    } finally {
      await transport.close();
    }
  });

  it('refuses the statements still waiting when closed, and any after', async () => {
    const transport = new ChdbTransport(dir, 1);
    const running = transport.select('SELECT sleep(1) AS slept');
    const waiting = transport.select('SELECT 1 AS one');
    await transport.close();
    await expect(waiting).rejects.toThrow('the chDB event store is closed');
    await expect(transport.exec('SELECT 2')).rejects.toThrow('the chDB event store is closed');
    // The running statement finishes: chDB releases a session only after its statement.
    expect(await running).toEqual([{ slept: 0 }]);
  });
});
