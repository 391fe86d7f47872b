import { describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../adapters/state/memory-state-store.js';
import { VersionReads } from './versioned-cache.js';

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
