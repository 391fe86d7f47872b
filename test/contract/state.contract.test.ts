import net from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StateStore, TriggerRecord } from '../../src/ports/state-store.js';
import { MemoryStateStore } from '../../src/adapters/state/memory-state-store.js';
import { RedisStateStore } from '../../src/adapters/state/redis-state-store.js';
import { stackEnv, uniqueName } from '../helpers/stack-env.js';
import { freePort } from '../helpers/net.js';

/**
 * The StateStore contract, run against both implementations. `a` and `b` are two views of the same
 * state: for Redis two separate stores (two connections, as two processes would have), for memory the
 * one store (embedded mode is one process). Each test gets a fresh key prefix or store.
 */
interface Views {
  readonly a: StateStore;
  readonly b: StateStore;
}

interface Implementation {
  readonly name: string;
  open(): Views;
}

const implementations: Implementation[] = [
  {
    name: 'MemoryStateStore',
    open: () => {
      const store = new MemoryStateStore();
      return { a: store, b: store };
    },
  },
  {
    name: 'RedisStateStore',
    open: () => {
      const { redisUrl } = stackEnv();
      const keyPrefix = `${uniqueName('test_state')}:`;
      return { a: new RedisStateStore({ url: redisUrl, keyPrefix }), b: new RedisStateStore({ url: redisUrl, keyPrefix }) };
    },
  },
];

/** The keys the trigger tests write (with 'once:*' keys that expire by themselves). */
const TRIGGER_KEYS = ['trigger-cooldown', 'trigger-count', 'trigger-last'];

function trigger(options: { once: string; cooldownMs?: number }): TriggerRecord {
  return {
    onceKey: options.once,
    onceTtlMs: 5000,
    cooldownKey: options.cooldownMs ? 'trigger-cooldown' : null,
    cooldownMs: options.cooldownMs ?? 0,
    counterKey: 'trigger-count',
    lastTriggeredKey: 'trigger-last',
    nowMs: 1_700_000_000_000,
  };
}

for (const implementation of implementations) {
  describe(`StateStore contract: ${implementation.name}`, () => {
    let a: StateStore;
    let b: StateStore;

    beforeEach(() => {
      ({ a, b } = implementation.open());
    });

    afterEach(async () => {
      // Leave nothing behind in a shared Redis: these are all the keys the tests below write.
      await Promise.all(['counter', 'hits', 'lock', 'k', 'short', 'cooldown', 'marker', ...TRIGGER_KEYS].map((key) => a.delete(key)));
      await Promise.all([...new Set([a, b])].map((store) => store.close()));
    });

    it('answers ping', async () => {
      await expect(a.ping()).resolves.toBeUndefined();
    });

    it('increments from a missing counter, by any amount', async () => {
      expect(await a.increment('counter')).toBe(1);
      expect(await b.increment('counter', 5)).toBe(6);
      expect(await a.increment('counter', -2)).toBe(4);
      expect(await b.get('counter')).toBe('4');
    });

    it('increments atomically under concurrency: 1000 increments from two views count 1000', async () => {
      const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => (i % 2 === 0 ? a : b).increment('hits')));
      expect(await a.get('hits')).toBe('1000');
      // Atomic means every caller saw a distinct value: no two read the same count and wrote the same.
      expect(new Set(results).size).toBe(1000);
      expect(Math.max(...results)).toBe(1000);
    });

    it('lets exactly one of 50 concurrent setIfAbsent calls win', async () => {
      const outcomes = await Promise.all(
        Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).setIfAbsent('lock', `owner-${i}`, 10_000)),
      );
      expect(outcomes.filter(Boolean)).toHaveLength(1);
      const winner = outcomes.indexOf(true);
      expect(await a.get('lock')).toBe(`owner-${winner}`);
      expect(await b.setIfAbsent('lock', 'late', 10_000)).toBe(false);
    });

    it('sets, overwrites, reads and deletes', async () => {
      expect(await a.get('k')).toBeNull();
      await a.set('k', 'one');
      expect(await b.get('k')).toBe('one');
      await b.set('k', 'two');
      expect(await a.get('k')).toBe('two');
      await a.delete('k');
      expect(await b.get('k')).toBeNull();
      // Deleting what is not there is not an error.
      await expect(b.delete('k')).resolves.toBeUndefined();
    });

    it('reads many keys at once, in the order asked, null for missing and expired ones', async () => {
      expect(await a.getMany([])).toEqual([]);
      await a.set('k', 'one');
      await a.increment('counter', 3);
      await a.set('short', 'gone', 50);
      await a.set('marker', 'x', 50);
      await vi.waitFor(async () => expect(await a.get('marker')).toBeNull(), { timeout: 3000, interval: 25 });
      expect(await b.getMany(['counter', 'lock', 'k', 'short', 'k'])).toEqual(['3', null, 'one', null, 'one']);
    });

    it('records a trigger once per key: 1000 concurrent evaluations of 100 events from two views count 100', async () => {
      const outcomes = await Promise.all(
        Array.from({ length: 1000 }, (_, n) => (n % 2 === 0 ? a : b).recordTrigger(trigger({ once: `once:${n % 100}` }))),
      );
      expect(outcomes.filter((o) => o === 'fired')).toHaveLength(100);
      expect(outcomes.filter((o) => o === 'again')).toHaveLength(900);
      expect(await b.getMany(['trigger-count', 'trigger-last'])).toEqual(['100', '1700000000000']);
    });

    it('lets one of many events racing into a cooldown trigger, then triggers again once it ends', async () => {
      const outcomes = await Promise.all(
        Array.from({ length: 50 }, (_, n) => (n % 2 === 0 ? a : b).recordTrigger(trigger({ once: `once:${n}`, cooldownMs: 200 }))),
      );
      expect(outcomes.filter((o) => o === 'fired')).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'cooldown')).toHaveLength(49);
      // The event that fired, seen again (a redelivery), is not a cooldown casualty but a repeat.
      const fired = outcomes.indexOf('fired');
      expect(await a.recordTrigger(trigger({ once: `once:${fired}`, cooldownMs: 200 }))).toBe('again');
      await vi.waitFor(async () => expect(await b.recordTrigger(trigger({ once: 'once:late', cooldownMs: 200 }))).toBe('fired'), { timeout: 3000, interval: 25 });
      expect(await a.get('trigger-count')).toBe('2');
    });

    it('keeps at most max keys per bounded scope, deleting the oldest first, and lets one of concurrent claims win', async () => {
      const bound = { scope: 'bounded', max: 10, windowMs: 60_000 };
      for (let i = 0; i < 15; i++) expect(await (i % 2 === 0 ? a : b).setIfAbsentBounded(`bounded:${i}`, `v${i}`, 10_000, bound)).toBe(true);
      const values = await a.getMany(Array.from({ length: 15 }, (_, i) => `bounded:${i}`));
      expect(values).toEqual([...Array<null>(5).fill(null), ...Array.from({ length: 10 }, (_, i) => `v${i + 5}`)]);
      // Another scope has its own bound; a key set outside any scope is never evicted by one.
      await a.set('k', 'plain', 10_000);
      expect(await b.setIfAbsentBounded('other:0', 'x', 10_000, { ...bound, scope: 'other' })).toBe(true);
      expect(await b.setIfAbsentBounded('bounded:15', 'v15', 10_000, bound)).toBe(true);
      expect(await a.getMany(['bounded:5', 'bounded:6', 'other:0', 'k'])).toEqual([null, 'v6', 'x', 'plain']);
      // An existing key is not set again, and does not count twice.
      expect(await a.setIfAbsentBounded('bounded:15', 'again', 10_000, bound)).toBe(false);
      expect(await a.get('bounded:6')).toBe('v6');
      const claims = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).setIfAbsentBounded('bounded:race', `owner-${i}`, 10_000, bound)));
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await b.get('bounded:race')).toBe(`owner-${claims.indexOf(true)}`);
    });

    it('lets keys set before the window leave the bounded scope without deleting them', async () => {
      const bound = { scope: 'windowed', max: 2, windowMs: 150 };
      const first = Date.now();
      expect(await a.setIfAbsentBounded('windowed:0', 'old', 10_000, bound)).toBe(true);
      // The window is a span of time: nothing to wait for but the clock.
      await vi.waitFor(() => expect(Date.now() - first).toBeGreaterThan(300), { timeout: 3000, interval: 25 });
      for (const i of [1, 2]) expect(await b.setIfAbsentBounded(`windowed:${i}`, `new${i}`, 10_000, bound)).toBe(true);
      // Counted, windowed:0 would have been the oldest of three and deleted; past the window it does not count.
      expect(await a.getMany(['windowed:0', 'windowed:1', 'windowed:2'])).toEqual(['old', 'new1', 'new2']);
    });

    it('expires keys after their time to live', async () => {
      await a.set('short', 'v', 150);
      const claimed = await a.setIfAbsent('cooldown', 'first', 150);
      expect(claimed).toBe(true);
      expect(await b.get('short')).toBe('v');
      await vi.waitFor(
        async () => {
          expect(await b.get('short')).toBeNull();
          expect(await b.get('cooldown')).toBeNull();
        },
        { timeout: 3000, interval: 25 },
      );
      // Once expired, the key is absent again for setIfAbsent.
      expect(await b.setIfAbsent('cooldown', 'second', 10_000)).toBe(true);
    });

    it('keeps a key without a time to live, and a plain set removes an earlier expiry', async () => {
      await a.set('k', 'expiring', 150);
      await a.set('k', 'kept');
      await a.set('marker', 'x', 150);
      // Once a key with the same TTL has expired, the first one would have too.
      await vi.waitFor(async () => expect(await a.get('marker')).toBeNull(), { timeout: 3000, interval: 25 });
      expect(await b.get('k')).toBe('kept');
    });

    it('publishes to subscribers in the other view, in order', async () => {
      const channel = uniqueName('channel');
      const first: string[] = [];
      const second: string[] = [];
      await b.subscribe(channel, (m) => first.push(m));
      await b.subscribe(channel, (m) => second.push(m));
      for (const m of ['one', 'two', 'three']) await a.publish(channel, m);
      await vi.waitFor(() => {
        expect(first).toEqual(['one', 'two', 'three']);
        expect(second).toEqual(['one', 'two', 'three']);
      });
    });

    it('stops delivering to an unsubscribed handler and keeps delivering to the others', async () => {
      const channel = uniqueName('channel');
      const gone: string[] = [];
      const staying: string[] = [];
      const unsubscribe = await b.subscribe(channel, (m) => gone.push(m));
      await b.subscribe(channel, (m) => staying.push(m));
      await a.publish(channel, 'before');
      await vi.waitFor(() => expect(gone).toEqual(['before']));

      await unsubscribe();
      await a.publish(channel, 'after');
      // Both handlers share one connection and one order, so once `staying` has the message, `gone`
      // would have it too if it were still subscribed.
      await vi.waitFor(() => expect(staying).toEqual(['before', 'after']));
      expect(gone).toEqual(['before']);
    });

    it('does not deliver other channels, and a failing handler does not stop the others', async () => {
      const channel = uniqueName('channel');
      const received: string[] = [];
      await b.subscribe(channel, () => {
        throw new Error('handler failure');
      });
      await b.subscribe(channel, (m) => received.push(m));
      await a.publish(uniqueName('other'), 'elsewhere');
      await a.publish(channel, 'here');
      await a.publish(channel, 'again');
      await vi.waitFor(() => expect(received).toEqual(['here', 'again']));
    });
  });
}

describe('RedisStateStore when Redis goes away and comes back', () => {
  let proxy: TcpProxy;
  let store: RedisStateStore;
  let direct: RedisStateStore;

  beforeEach(async () => {
    const target = new URL(stackEnv().redisUrl);
    proxy = await TcpProxy.start(target.hostname, Number(target.port || 6379));
    const keyPrefix = `${uniqueName('test_state')}:`;
    store = new RedisStateStore({ url: `redis://127.0.0.1:${proxy.port}`, keyPrefix, timeoutMs: 1000 });
    direct = new RedisStateStore({ url: stackEnv().redisUrl, keyPrefix });
  });

  afterEach(async () => {
    await Promise.all(['k', 'n', 'shared-name'].map((key) => direct.delete(key)));
    await Promise.all([store.close(), direct.close()]);
    await proxy.stop();
  });

  it('fails fast while Redis is unreachable and recovers without a new client', async () => {
    await store.set('k', 'v');
    const received: string[] = [];
    await store.subscribe('news', (m) => received.push(m));

    await proxy.stop();
    for (const call of [() => store.ping(), () => store.get('k'), () => store.increment('n')]) {
      const started = Date.now();
      await expect(call()).rejects.toThrow(/Redis unavailable/);
      expect(Date.now() - started).toBeLessThan(2500);
    }

    await proxy.restart();
    await vi.waitFor(() => store.ping(), { timeout: 10_000, interval: 100 });
    expect(await store.get('k')).toBe('v');
    // The subscriber connection came back too and subscribed again by itself. Publishing until a
    // message arrives, because the resubscription completes at a moment this test cannot observe.
    await vi.waitFor(
      async () => {
        await direct.publish('news', 'back');
        expect(received).toContain('back');
      },
      { timeout: 10_000, interval: 100 },
    );
  });

  it('rejects ping within the timeout when nothing listens at the address', async () => {
    const unreachable = new RedisStateStore({ url: `redis://127.0.0.1:${await freePort()}`, timeoutMs: 1000 });
    try {
      const started = Date.now();
      await expect(unreachable.ping()).rejects.toThrow(/Redis unavailable/);
      expect(Date.now() - started).toBeLessThan(2500);
    } finally {
      await unreachable.close();
    }
  });

  it('keeps deployments with different key prefixes apart', async () => {
    const other = new RedisStateStore({ url: stackEnv().redisUrl, keyPrefix: `${uniqueName('test_state')}:` });
    try {
      await direct.set('shared-name', 'mine');
      expect(await other.get('shared-name')).toBeNull();
    } finally {
      await other.close();
    }
  });
});

/** A TCP forwarder the test can cut and restore, standing in for a Redis outage. */
class TcpProxy {
  readonly #sockets = new Set<net.Socket>();
  #server: net.Server | undefined;

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
    public port: number,
  ) {}

  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(targetHost, targetPort, 0);
    await proxy.restart();
    return proxy;
  }

  /** Listens again on the same port (the client keeps its address). */
  async restart(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.#server = server;
  }

  /** Refuses new connections and cuts the open ones, as a stopped server would. */
  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const socket of this.#sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
