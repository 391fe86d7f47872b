import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './cursor.js';
import { DomainError } from './errors.js';

const key = randomBytes(32);
const scope = { appId: '0190f5a0-0000-7000-8000-000000000001', filters: { level: 'error', type: undefined } };
const position = { timestamp: new Date('2026-11-22T10:00:00.123Z'), id: '0190f5a0-0000-7000-8000-0000000000aa' };

function rejection(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    return err as DomainError;
  }
  throw new Error('expected a rejection');
}

describe('event list cursor', () => {
  it('round-trips a position, opaque and URL-safe', () => {
    const token = encodeCursor(position, scope, key);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(decodeCursor(token, scope, key)).toEqual(position);
  });

  it('ignores filter order and unset filters when binding', () => {
    const token = encodeCursor(position, scope, key);
    expect(decodeCursor(token, { appId: scope.appId, filters: { level: 'error' } }, key)).toEqual(position);
  });

  it('refuses a cursor signed with another key', () => {
    const token = encodeCursor(position, scope, randomBytes(32));
    const err = rejection(() => decodeCursor(token, scope, key));
    expect(err.code).toBe('validation_failed');
    expect(err.message).toBe('cursor: not a cursor issued by this service');
  });

  it('refuses an edited payload', () => {
    const [payload, signature] = encodeCursor(position, scope, key).split('.') as [string, string];
    const edited = JSON.parse(Buffer.from(payload, 'base64url').toString());
    edited.t -= 1000;
    const forged = `${Buffer.from(JSON.stringify(edited)).toString('base64url')}.${signature}`;
    expect(rejection(() => decodeCursor(forged, scope, key)).message).toContain('not a cursor issued');
  });

  it('refuses a cursor of another app or other filters', () => {
    const token = encodeCursor(position, scope, key);
    expect(rejection(() => decodeCursor(token, { ...scope, appId: '0190f5a0-0000-7000-8000-000000000002' }, key)).message).toContain('another app or other filters');
    expect(rejection(() => decodeCursor(token, { ...scope, filters: { level: 'info' } }, key)).message).toContain('another app or other filters');
  });

  it.each(['', 'abc', 'a.b.c', '....', '💥.💥', 'x'.repeat(600), "'; DROP TABLE events; --", '%00.%00'])('refuses garbage %j', (token) => {
    expect(rejection(() => decodeCursor(token, scope, key)).code).toBe('validation_failed');
  });
});
