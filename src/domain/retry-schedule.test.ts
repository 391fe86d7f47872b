import { describe, expect, it } from 'vitest';
import { MAX_DELIVERY_ATTEMPTS, RETRY_SCHEDULE_MS, createRetrySchedule, nextRetryDelayMs } from './retry-schedule.js';

const low = () => 0;
const high = () => 0.999_999_999;
const mid = () => 0.5;

describe('RETRY_SCHEDULE_MS', () => {
  it('is the documented schedule: immediate, 10 s, 30 s, 90 s, 5 min, 15 min, 30 min, 1 h', () => {
    expect(RETRY_SCHEDULE_MS).toEqual([0, 10_000, 30_000, 90_000, 300_000, 900_000, 1_800_000, 3_600_000]);
    expect(MAX_DELIVERY_ATTEMPTS).toBe(8);
    expect(Object.isFrozen(RETRY_SCHEDULE_MS)).toBe(true);
  });

  it('gives up after at most 1 h 52 min 10 s of retrying', () => {
    let total = 0;
    for (let attempt = 1; ; attempt += 1) {
      const delay = nextRetryDelayMs(attempt, { retryAfterMs: null, random: high });
      if (delay === null) break;
      total += delay;
    }
    expect(total).toBeLessThanOrEqual(6_730_000);
    expect(total).toBeGreaterThan(6_729_990);
  });
});

describe('nextRetryDelayMs', () => {
  // attempt n has been made and failed; the delay is for attempt n + 1
  it.each([1, 2, 3, 4, 5, 6, 7])('after attempt %i stays within [previous, current] nominal delay', (attempt) => {
    const lower = RETRY_SCHEDULE_MS[attempt - 1]!;
    const upper = RETRY_SCHEDULE_MS[attempt]!;
    expect(nextRetryDelayMs(attempt, { retryAfterMs: null, random: low })).toBe(lower);
    expect(nextRetryDelayMs(attempt, { retryAfterMs: null, random: mid })).toBe(Math.floor((lower + upper) / 2));
    const top = nextRetryDelayMs(attempt, { retryAfterMs: null, random: high })!;
    expect(top).toBeLessThanOrEqual(upper);
    expect(top).toBeGreaterThanOrEqual(upper - 1);
  });

  it('keeps every draw of the default random source inside the window', () => {
    for (let attempt = 1; attempt < MAX_DELIVERY_ATTEMPTS; attempt += 1) {
      for (let i = 0; i < 200; i += 1) {
        const delay = nextRetryDelayMs(attempt, { retryAfterMs: null })!;
        expect(delay).toBeGreaterThanOrEqual(RETRY_SCHEDULE_MS[attempt - 1]!);
        expect(delay).toBeLessThanOrEqual(RETRY_SCHEDULE_MS[attempt]!);
        expect(Number.isInteger(delay)).toBe(true);
      }
    }
  });

  it('clamps a random source that leaves [0, 1)', () => {
    expect(nextRetryDelayMs(2, { retryAfterMs: null, random: () => 5 })).toBe(30_000);
    expect(nextRetryDelayMs(2, { retryAfterMs: null, random: () => -1 })).toBe(10_000);
  });

  it('is exhausted (dead letter) after the last attempt', () => {
    expect(nextRetryDelayMs(MAX_DELIVERY_ATTEMPTS - 1, { retryAfterMs: null, random: low })).toBe(1_800_000);
    expect(nextRetryDelayMs(MAX_DELIVERY_ATTEMPTS, { retryAfterMs: null, random: low })).toBeNull();
    expect(nextRetryDelayMs(MAX_DELIVERY_ATTEMPTS + 5, { retryAfterMs: 1000, random: low })).toBeNull();
  });

  it.each([0, -1, 1.5, NaN])('refuses attempt %j', (attempt) => {
    expect(() => nextRetryDelayMs(attempt, { retryAfterMs: null })).toThrow(RangeError);
  });

  describe('Retry-After', () => {
    it('lengthens the delay when it asks for more than the backoff', () => {
      expect(nextRetryDelayMs(1, { retryAfterMs: 120_000, random: low })).toBe(120_000);
      expect(nextRetryDelayMs(1, { retryAfterMs: 1_500.2, random: low })).toBe(1_501);
    });

    it('never shortens the backoff', () => {
      expect(nextRetryDelayMs(4, { retryAfterMs: 1_000, random: mid })).toBe(195_000);
      expect(nextRetryDelayMs(4, { retryAfterMs: 0, random: low })).toBe(90_000);
    });

    it('is capped at the longest scheduled delay', () => {
      expect(nextRetryDelayMs(1, { retryAfterMs: 24 * 3_600_000, random: low })).toBe(3_600_000);
    });

    it.each([-5_000, NaN, Infinity])('ignores a nonsensical value %j', (retryAfterMs) => {
      expect(nextRetryDelayMs(2, { retryAfterMs, random: low })).toBe(10_000);
    });
  });
});

describe('createRetrySchedule', () => {
  it('runs a short schedule for tests', () => {
    const schedule = createRetrySchedule([0, 10, 20]);
    expect(schedule.maxAttempts).toBe(3);
    expect(schedule.maxDelayMs).toBe(20);
    expect(schedule.nextRetryDelayMs(1, { retryAfterMs: null, random: mid })).toBe(5);
    expect(schedule.nextRetryDelayMs(2, { retryAfterMs: 1_000, random: low })).toBe(20);
    expect(schedule.nextRetryDelayMs(3, { retryAfterMs: null, random: low })).toBeNull();
  });

  it('with one entry never retries', () => {
    expect(createRetrySchedule([0]).nextRetryDelayMs(1, { retryAfterMs: null })).toBeNull();
  });

  it('copies its input', () => {
    const delays = [0, 100];
    const schedule = createRetrySchedule(delays);
    delays[1] = 1;
    expect(schedule.nextRetryDelayMs(1, { retryAfterMs: null, random: high })).toBe(99);
  });

  it.each([[[]], [[0, -1]], [[0, 1.5]], [[0, 20, 10]], [[0, Infinity]]])('refuses %j', (delays) => {
    expect(() => createRetrySchedule(delays)).toThrow(RangeError);
  });
});
