import { describe, expect, it } from 'vitest';
import { encodeEventMessages } from '../../domain/messages/event-message.js';
import { APP_A, APP_B, consumedBatch, storedEvent } from '../../../test/helpers/pipeline-fixtures.js';
import { decodeBatch } from './decode-batch.js';

describe('decodeBatch', () => {
  it('returns the events of every message in partition order', () => {
    const a = [storedEvent(APP_A, 'signup'), storedEvent(APP_A, 'login')];
    const b = [storedEvent(APP_B, 'signup')];
    const outcome = decodeBatch(consumedBatch([...encodeEventMessages(a), ...encodeEventMessages(b)]));
    expect(outcome.step).toBe('decoded');
    expect(outcome.events.map((e) => e.id)).toEqual([...a, ...b].map((e) => e.id));
    expect(outcome.events[0]).toEqual(a[0]);
    expect(outcome.dead).toEqual([]);
  });

  it('dead-letters a message that does not parse, with its reason, and keeps the others', () => {
    const good = storedEvent(APP_A, 'signup');
    const batch = consumedBatch([{ key: APP_A, value: Buffer.from('{not json') }, ...encodeEventMessages([good])]);
    const outcome = decodeBatch(batch);
    expect(outcome.events.map((e) => e.id)).toEqual([good.id]);
    expect(outcome.dead).toHaveLength(1);
    expect(outcome.dead[0]!.message.offset).toBe('100');
    expect(outcome.dead[0]!.reason).toMatch(/\S/);
  });
});
