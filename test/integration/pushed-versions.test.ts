import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RedisStateStore } from '../../src/adapters/state/redis-state-store.js';
import { BUMP_EPOCH_KEY, PushedVersions } from '../../src/services/pushed-versions.js';
import { PrivateRedis, commandsProcessed } from '../helpers/private-redis.js';
import { capturingLogger } from '../helpers/logger.js';

/**
 * Cache versions pushed through Redis (distributed mode): each "process" here is a PushedVersions over
 * a RedisStateStore of its own (its own connections), on a redis-server of the suite's own, so that its
 * command counts are this suite's alone and it can be stopped.
 */
/** What a burst of reads may see besides them: the INFO that counts, and perhaps one heartbeat (a script, a GET and a PUBLISH). */
const AT_MOST_BESIDES_READS = 4;

describe('PushedVersions (Redis)', () => {
  let redis: PrivateRedis;
  let admin: Redis;
  const opened: Array<{ versions: PushedVersions; state: RedisStateStore }> = [];

  beforeEach(async () => {
    redis = await PrivateRedis.start();
    admin = new Redis(redis.url);
    // The suite stops its Redis on purpose; this connection has nothing to report then.
    admin.on('error', () => undefined);
  });

  afterEach(async () => {
    for (const { versions, state } of opened.splice(0)) {
      await versions.close();
      await state.close();
    }
    admin.disconnect();
    await redis.dispose();
  });

  function processView(): PushedVersions {
    const state = new RedisStateStore({ url: redis.url, timeoutMs: 500 });
    const versions = new PushedVersions(state, capturingLogger('silent').logger);
    opened.push({ versions, state });
    return versions;
  }

  /** Reads until a burst of reads costs Redis nothing: the view trusts its pushed copy. */
  async function untilTrusted(view: PushedVersions, key: string): Promise<void> {
    await vi.waitFor(
      async () => {
        await view.read(key);
        const before = await commandsProcessed(admin);
        for (let i = 0; i < 50; i++) await view.read(key);
        expect((await commandsProcessed(admin)) - before).toBeLessThanOrEqual(AT_MOST_BESIDES_READS);
      },
      { timeout: 5000, interval: 20 },
    );
  }

  it('answers reads from its copy: a thousand reads cost no Redis command', async () => {
    const view = processView();
    await untilTrusted(view, 'auth:version');
    const before = await commandsProcessed(admin);
    // One after another: concurrent reads would share one read of the store even without the copies.
    const reads = [];
    for (let i = 0; i < 1000; i++) reads.push(await view.read('auth:version'));
    expect(new Set(reads)).toEqual(new Set([null]));
    expect((await commandsProcessed(admin)) - before).toBeLessThanOrEqual(AT_MOST_BESIDES_READS);
  });

  it('a bump through one process is read by every other the moment it resolves', async () => {
    const [a, b, c] = [processView(), processView(), processView()];
    for (const view of [a, b, c]) await untilTrusted(view, 'auth:version');
    for (let round = 1; round <= 20; round++) {
      const bumper = [a, b, c][round % 3]!;
      const started = performance.now();
      await bumper.bump('auth:version');
      // Acknowledged by every process, not waited out.
      expect(performance.now() - started).toBeLessThan(500);
      expect(await Promise.all([a.read('auth:version'), b.read('auth:version'), c.read('auth:version')])).toEqual([String(round), String(round), String(round)]);
    }
  });

  it('a bump whose message was lost is noticed at the next heartbeat: the process drops its copies and reads through', async () => {
    const view = processView();
    await untilTrusted(view, 'rules:version');
    expect(await view.read('rules:version')).toBeNull();
    // What a bump published while this process's subscription was down leaves behind: both counters moved, no message.
    await admin.incr('rules:version');
    await admin.incr(BUMP_EPOCH_KEY);
    await vi.waitFor(async () => expect(await view.read('rules:version')).toBe('1'), { timeout: 3000, interval: 20 });
  });

  it('waits out a process that does not acknowledge, until that process can no longer trust its copy', async () => {
    const [a, b] = [processView(), processView()];
    await untilTrusted(a, 'auth:version');
    await untilTrusted(b, 'auth:version');
    // b's subscription is cut: b receives neither the bump nor its own heartbeats until ioredis resubscribes.
    await admin.client('KILL', 'TYPE', 'pubsub');
    await a.bump('auth:version');
    expect(await b.read('auth:version')).toBe('1');
  });

  it('with Redis gone, stops trusting its copies and fails reads, so that caches load from the database; a Redis back empty is read again', async () => {
    const view = processView();
    await untilTrusted(view, 'auth:version');
    await view.bump('auth:version');
    expect(await view.read('auth:version')).toBe('1');
    await redis.stop();
    await vi.waitFor(() => expect(view.read('auth:version')).rejects.toThrow(/unavailable/i), { timeout: 5000, interval: 50 });
    await redis.restart();
    // Trusted again, from the store's state (which lost the bump), not from the copy of before.
    await untilTrusted(view, 'auth:version');
    expect(await view.read('auth:version')).toBeNull();
  });
});
