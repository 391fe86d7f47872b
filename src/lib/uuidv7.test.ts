import { v7 } from 'uuid';
import { describe, expect, it } from 'vitest';
import { CANONICAL_UUID, uuidv7Millis } from '../domain/uuid.js';
import { UuidV7Source } from './uuidv7.js';

/** `count` ids of a source whose clock reads each of `clock`'s values in turn, then the last. */
function ids(count: number, clock: readonly number[]): string[] {
  let call = 0;
  const source = new UuidV7Source(() => clock[Math.min(call++, clock.length - 1)]!);
  return Array.from({ length: count }, () => source.next());
}

function increasing(values: readonly string[]): boolean {
  return values.every((value, index) => index === 0 || values[index - 1]! < value);
}

describe('UuidV7Source', () => {
  it('writes version 7, variant 10, in canonical lowercase text', () => {
    for (const id of ids(2_000, [Date.now()])) {
      expect(id).toMatch(CANONICAL_UUID);
      expect(id[14]).toBe('7');
      expect('89ab').toContain(id[19]);
    }
  });

  it('carries the clock’s millisecond, 48 bits of it, as uuidv7Millis reads it', () => {
    const times = [0, 1, 0x7fffffff, 0x100000000, 1_764_000_000_123, 2 ** 48 - 1];
    expect(ids(times.length, times).map((id) => uuidv7Millis(id))).toEqual(times);
  });

  it('lays out its ids as the uuid package does, so that both read back the same millisecond', () => {
    const at = 1_764_000_000_123;
    const [ours] = ids(1, [at]);
    const theirs = v7({ msecs: at });
    expect(ours!.slice(0, 15)).toBe(theirs.slice(0, 15));
    expect(uuidv7Millis(theirs)).toBe(at);
  });

  it('counts up within a millisecond, across more ids than one draw of random bytes serves', () => {
    const within = ids(5_000, [1_764_000_000_000]);
    expect(increasing(within)).toBe(true);
    expect(within.every((id) => uuidv7Millis(id) === 1_764_000_000_000)).toBe(true);
  });

  it('keeps counting up when the clock steps back, and starts again from a random counter when it moves on', () => {
    const clock = [1_000, 1_000, 999, 500, 1_000, 1_001, 1_001, 2_000];
    const made = ids(clock.length, clock);
    expect(increasing(made)).toBe(true);
    expect(made.map((id) => uuidv7Millis(id))).toEqual([1_000, 1_000, 1_000, 1_000, 1_000, 1_001, 1_001, 2_000]);
  });

  it('gives two sources different ids in the same millisecond', () => {
    const first = ids(1_000, [1_764_000_000_000]);
    const second = new Set(ids(1_000, [1_764_000_000_000]));
    expect(first.filter((id) => second.has(id))).toEqual([]);
  });
});
