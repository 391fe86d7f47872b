import { describe, expect, it } from 'vitest';
import { encodeEventMessages } from '../domain/messages/event-message.js';
import { APP_A, consumedBatch, storedEvent } from '../../test/helpers/pipeline-fixtures.js';
import { eventChain, type EventSteps } from './event-worker.js';

/** Steps that record the order they ran in; `failAt` makes that step throw. */
function recordingSteps(failAt?: keyof EventSteps) {
  const ran: string[] = [];
  const run = <T>(name: keyof EventSteps, outcome: T): Promise<T> => {
    ran.push(name);
    return name === failAt ? Promise.reject(new Error(`${name} failed`)) : Promise.resolve(outcome);
  };
  const steps: EventSteps = {
    deadLetter: (dead) => run('deadLetter', { step: 'dead-lettered', count: dead.length }),
    store: (decoded) => run('store', { step: 'stored', byApp: new Map([[APP_A, decoded.events]]), inserted: decoded.events.length }),
    evaluate: () => run('evaluate', { step: 'evaluated', jobs: [], evaluations: 0, triggers: { fired: 0, again: 0, cooldown: 0, counted: 0, seen: 0, late: 0 } }),
    enqueue: (jobs) => run('enqueue', { step: 'enqueued', count: jobs.length }),
  };
  return { steps, ran };
}

describe('eventChain', () => {
  const batch = consumedBatch([...encodeEventMessages([storedEvent(APP_A, 'x')]), { key: APP_A, value: Buffer.from('nope') }]);

  it('runs decode, dead-letter, store, evaluate and enqueue in that order and returns each outcome', async () => {
    const { steps, ran } = recordingSteps();
    const outcomes = await eventChain(steps)(batch);
    expect(ran).toEqual(['deadLetter', 'store', 'evaluate', 'enqueue']);
    expect(outcomes.map((o) => o.step)).toEqual(['decoded', 'dead-lettered', 'stored', 'evaluated', 'enqueued']);
    expect(outcomes[1].count).toBe(1);
    expect(outcomes[2].inserted).toBe(1);
  });

  it('stops at the first step that fails and rejects, so the batch is not committed', async () => {
    const { steps, ran } = recordingSteps('store');
    await expect(eventChain(steps)(batch)).rejects.toThrow('store failed');
    expect(ran).toEqual(['deadLetter', 'store']);
  });
});
