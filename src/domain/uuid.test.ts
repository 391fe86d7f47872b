import { v4 as uuidv4, v7 as uuidv7 } from 'uuid';
import { describe, expect, it } from 'vitest';
import { uuidv7Millis } from './uuid.js';

describe('uuidv7Millis', () => {
  it('reads the instant a UUIDv7 was made, to the millisecond, across the range of event times', () => {
    for (const ms of [0, 1, Date.UTC(2024, 2, 1, 12, 0, 0, 7), Date.UTC(2099, 11, 31, 23, 59, 59, 999), 2 ** 48 - 1]) {
      expect(uuidv7Millis(uuidv7({ msecs: ms }))).toBe(ms);
    }
  });

  it('knows no instant for another version, another spelling or no UUID at all', () => {
    expect(uuidv7Millis(uuidv4())).toBeUndefined();
    expect(uuidv7Millis(uuidv7().toUpperCase())).toBeUndefined();
    expect(uuidv7Millis('not-a-uuid')).toBeUndefined();
    expect(uuidv7Millis('')).toBeUndefined();
  });
});
