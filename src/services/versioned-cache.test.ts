import { describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../adapters/state/memory-state-store.js';
import { capturingLogger } from '../../test/helpers/logger.js';
import { VersionReads, VersionedCache, type CacheVersions } from './versioned-cache.js';

/** A real in-process state store whose MGETs are recorded and answered only when the test says so. */
function gatedStore(): { store: MemoryStateStore; reads: string[][]; release: () => void; failNext: () => void } {
  const store = new MemoryStateStore();
  const reads: string[][] = [];
  const gates: Array<() => void> = [];
  let fail = false;
  const getMany = store.getMany.bind(store);
  store.getMany = (keys) => {
    reads.push([...keys]);
    const failing = fail;
    fail = false;
    // The values are those of the moment the read went out; the answer arrives when the gate opens.
    const values = getMany(keys);
    return new Promise((resolve, reject) => gates.push(() => (failing ? reject(new Error('redis down')) : resolve(values))));
  };
  return { store, reads, release: () => gates.shift()?.(), failNext: () => (fail = true) };
}

/** Lets queued microtasks run, so that a read that is due goes out. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('VersionReads', () => {
  it('answers the callers of one turn with one read of every key they asked for', async () => {
    const { store, reads, release } = gatedStore();
    await store.increment('auth:version');
    const versions = new VersionReads(store);
    const answers = Promise.all([versions.read('auth:version'), versions.read('config:version'), versions.read('auth:version')]);
    await settle();
    release();
    expect(await answers).toEqual(['1', null, '1']);
    expect(reads).toEqual([['auth:version', 'config:version']]);
  });

  it('never answers a caller with a read sent before it asked: it waits for the next, which sees a bump made meanwhile', async () => {
    const { store, reads, release } = gatedStore();
    const versions = new VersionReads(store);
    const early = versions.read('auth:version');
    await settle();
    expect(reads).toHaveLength(1);

    // A revocation completes while the first read is in flight; then two more requests arrive.
    await store.increment('auth:version');
    const late = Promise.all([versions.read('auth:version'), versions.read('auth:version')]);
    await settle();
    expect(reads).toHaveLength(1);

    release();
    expect(await early).toBeNull();
    await settle();
    expect(reads).toHaveLength(2);
    release();
    expect(await late).toEqual(['1', '1']);
  });

  it('fails every caller of a failed read, and the next read goes out as usual', async () => {
    const { store, reads, release, failNext } = gatedStore();
    const versions = new VersionReads(store);
    failNext();
    const failed = Promise.allSettled([versions.read('a'), versions.read('b')]);
    await settle();
    release();
    expect((await failed).map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await store.increment('a');
    const next = versions.read('a');
    await settle();
    release();
    expect(await next).toBe('1');
    expect(reads).toEqual([['a', 'b'], ['a']]);
  });

  it('moves every version when the write mark moves, as read after the answer', async () => {
    const store = new MemoryStateStore();
    await store.increment('auth:version');
    let mark = 7;
    const versions = new VersionReads(store, { writeMark: () => String(mark) });
    const first = await versions.read('auth:version');
    expect(await versions.read('auth:version')).toBe(first);
    expect(await versions.read('never:bumped')).not.toBeNull();
    // Another process wrote the database: no key was bumped, yet every version is a new one.
    mark = 8;
    const second = await versions.read('auth:version');
    expect(second).not.toBe(first);
    expect(await versions.read('never:bumped')).not.toBe(await new VersionReads(store, { writeMark: () => '7' }).read('never:bumped'));
  });

  it('with a write mark, answers every caller of one turn with one read of the state and of the mark', async () => {
    const store = new MemoryStateStore();
    const getMany = store.getMany.bind(store);
    let stateReads = 0;
    store.getMany = (keys) => (stateReads++, getMany(keys));
    let markReads = 0;
    const versions = new VersionReads(store, { writeMark: () => String(++markReads) });
    // Requests handled in separate callbacks of one turn (a memory store answers within each callback).
    const answers = await Promise.all([1, 2, 3].map((n) => new Promise<string | null>((resolve) => setTimeout(() => void versions.read(`k${n}`).then(resolve), 0))));
    expect(new Set(answers.map((a) => a!.split('/')[1])).size).toBeLessThanOrEqual(2);
    expect(markReads).toBe(stateReads);
    expect(markReads).toBeLessThan(3);
  });
});

describe('VersionedCache', () => {
  /** A cache over a memory state store, and a loader that counts its calls and answers from `found` as it was when called. */
  function counted(options: { missTtlMs?: number; maxEntries?: number } = {}) {
    const store = new MemoryStateStore();
    const cache = new VersionedCache<string>({ state: store, versionKey: 'v', ttlMs: 60_000, maxEntries: options.maxEntries ?? 100, logger: capturingLogger('silent').logger, ...options });
    const found = new Map<string, string>();
    const loads: string[] = [];
    const get = (key: string) =>
      cache.get(key, async () => {
        loads.push(key);
        const value = found.get(key) ?? null;
        await settle();
        return value;
      });
    return { cache, found, loads, get };
  }

  it('answers a kept key at once, without a promise, under a version read at once; a moved version loads again', async () => {
    let version: string | null = '1';
    const versions: CacheVersions = { read: () => version, bump: () => Promise.resolve() };
    const cache = new VersionedCache<string>({ state: new MemoryStateStore(), versions, versionKey: 'v', ttlMs: 60_000, missTtlMs: 10_000, maxEntries: 100, logger: capturingLogger('silent').logger });
    let loads = 0;
    const load = (): Promise<string | null> => Promise.resolve(`value ${++loads}`);
    const first = cache.get('key', load);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toBe('value 1');
    expect(cache.get('key', load)).toBe('value 1');
    version = '2';
    const again = cache.get('key', load);
    expect(again).toBeInstanceOf(Promise);
    expect(await again).toBe('value 2');
    expect(cache.get('key', load)).toBe('value 2');
    // A miss, once remembered, is answered at once too.
    expect(await cache.get('nobody', () => Promise.resolve(null))).toBeNull();
    expect(cache.get('nobody', () => Promise.resolve('made since'))).toBeNull();
  });

  it('loads an unknown key on every get unless told to remember misses', async () => {
    const { loads, get } = counted();
    expect(await get('nobody')).toBeNull();
    expect(await get('nobody')).toBeNull();
    expect(loads).toEqual(['nobody', 'nobody']);
  });

  it('remembers a miss until the version moves, then finds what was made meanwhile', async () => {
    const { cache, found, loads, get } = counted({ missTtlMs: 10_000 });
    expect(await get('later')).toBeNull();
    found.set('later', 'value');
    expect(await get('later')).toBeNull();
    expect(loads).toEqual(['later']);
    await cache.invalidate();
    expect(await get('later')).toBe('value');
    expect(await get('later')).toBe('value');
    expect(loads).toEqual(['later', 'later']);
  });

  it('shares one load among concurrent gets of a key, found or not', async () => {
    const { found, loads, get } = counted({ missTtlMs: 10_000 });
    found.set('a', 'value');
    expect(await Promise.all([get('a'), get('a'), get('b'), get('a'), get('b')])).toEqual(['value', 'value', null, 'value', null]);
    expect(loads).toEqual(['a', 'b']);
  });

  it('never lets a caller that read a newer version join a load begun under an older one', async () => {
    const { cache, found, loads, get } = counted({ missTtlMs: 10_000 });
    found.set('a', 'old');
    const early = get('a');
    // The value changes and the change is announced while the first load is in flight.
    await settle();
    expect(loads).toEqual(['a']);
    found.set('a', 'new');
    await cache.invalidate();
    expect(await get('a')).toBe('new');
    expect(await early).toBe('old');
    expect(loads).toEqual(['a', 'a']);
  });

  it('keeps found values when a flood of unknown keys fills the cache', async () => {
    const { found, loads, get } = counted({ missTtlMs: 10_000, maxEntries: 10 });
    found.set('known', 'value');
    await get('known');
    for (let i = 0; i < 25; i++) await get(`unknown-${i}`);
    expect(await get('known')).toBe('value');
    expect(loads.filter((k) => k === 'known')).toHaveLength(1);
  });

  it('drops what it kept for a key loaded while the version could not be read', async () => {
    const store = new MemoryStateStore();
    let down = false;
    const reads = new VersionReads(store);
    const versions: CacheVersions = { read: (key) => (down ? Promise.reject(new Error('redis down')) : reads.read(key)), bump: (key) => reads.bump(key) };
    const cache = new VersionedCache<string>({ state: store, versions, versionKey: 'v', ttlMs: 60_000, missTtlMs: 10_000, maxEntries: 100, logger: capturingLogger('silent').logger });
    let current: string | null = 'valid';
    const get = () => cache.get('key', () => Promise.resolve(current));
    expect(await get()).toBe('valid');
    // Revoked while the version store is down, so no bump: the load sees it, and the entry goes.
    down = true;
    current = null;
    expect(await get()).toBeNull();
    down = false;
    expect(await get()).toBeNull();
  });
});
