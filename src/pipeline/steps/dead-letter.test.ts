import { describe, expect, it } from 'vitest';
import { DEAD_LETTER_REASON_HEADER } from '../../domain/messages/event-message.js';
import type { OutgoingMessage } from '../../domain/messages/outgoing-message.js';
import { APP_A, consumedBatch, quietLogger } from '../../../test/helpers/pipeline-fixtures.js';
import { deadLetterStep } from './dead-letter.js';

function recordingBus(fail = false) {
  const produced: Array<{ topic: string; messages: readonly OutgoingMessage[] }> = [];
  return {
    produced,
    produce: (topic: string, messages: readonly OutgoingMessage[]): Promise<void> => {
      if (fail) return Promise.reject(new Error('broker unavailable'));
      produced.push({ topic, messages });
      return Promise.resolve();
    },
  };
}

describe('deadLetterStep', () => {
  const batch = consumedBatch([{ key: APP_A, value: Buffer.from('garbage'), headers: { 'x-trace': 't1' } }]);
  const dead = [{ message: batch.messages[0]!, reason: 'not JSON' }];

  it('produces each dead letter as it arrived, with the reason and where it came from', async () => {
    const bus = recordingBus();
    const outcome = await deadLetterStep({ bus, topic: 'events.dead-letter', logger: quietLogger })(dead);
    expect(outcome).toEqual({ step: 'dead-lettered', count: 1 });
    expect(bus.produced).toHaveLength(1);
    const [message] = bus.produced[0]!.messages;
    expect(bus.produced[0]!.topic).toBe('events.dead-letter');
    expect(message!.key).toBe(APP_A);
    expect(message!.value.toString()).toBe('garbage');
    expect(message!.headers).toEqual({
      'x-trace': 't1',
      [DEAD_LETTER_REASON_HEADER]: 'not JSON',
      'x-original-topic': 'events',
      'x-original-partition': '3',
      'x-original-offset': '100',
    });
  });

  it('produces nothing when nothing is dead', async () => {
    const bus = recordingBus();
    expect(await deadLetterStep({ bus, topic: 'dlq', logger: quietLogger })([])).toEqual({ step: 'dead-lettered', count: 0 });
    expect(bus.produced).toEqual([]);
  });

  it('fails when the dead letters cannot be made durable, so the batch is not committed', async () => {
    await expect(deadLetterStep({ bus: recordingBus(true), topic: 'dlq', logger: quietLogger })(dead)).rejects.toThrow('broker unavailable');
  });
});
