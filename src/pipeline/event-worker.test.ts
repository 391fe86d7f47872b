import { describe, expect, it } from 'vitest';
import { encodeEventMessages } from '../domain/messages/event-message.js';
import { APP_A, consumedBatch, storedEvent } from '../../test/helpers/pipeline-fixtures.js';
import { eventChain, type EventSteps } from './event-worker.js';

/** Steps that record the order they ran in; `failAt` makes that step throw. */
function recordingSteps(failAt?: keyof EventSteps) {
  const ran: string[] = [];
  const evaluated: Array<Parameters<EventSteps['evaluate']>[0]> = [];
  const run = <T>(name: keyof EventSteps, outcome: T): Promise<T> => {
    ran.push(name);
    return name === failAt ? Promise.reject(new Error(`${name} failed`)) : Promise.resolve(outcome);
  };
  const steps: EventSteps = {
    deadLetter: (dead) => run('deadLetter', { step: 'dead-lettered', count: dead.length }),
    store: (decoded) => run('store', { step: 'stored', inserted: decoded.events.length }),
    evaluate: (byApp) => (evaluated.push(byApp), run('evaluate', { step: 'evaluated', jobs: [], evaluations: 0, triggers: { fired: 0, again: 0, cooldown: 0, counted: 0, seen: 0, late: 0 } })),
    enqueue: (jobs) => run('enqueue', { step: 'enqueued', count: jobs.length }),
  };
  return { steps, ran, evaluated };
}

describe('eventChain', () => {
  const batch = consumedBatch([...encodeEventMessages([storedEvent(APP_A, 'x')]), { key: APP_A, value: Buffer.from('nope') }]);

  it('dead-letters first, then stores alongside evaluate and enqueue, and returns each outcome', async () => {
    const { steps, ran } = recordingSteps();
    const outcomes = await eventChain(steps)(batch);
    expect(ran[0]).toBe('deadLetter');
    expect(ran.indexOf('evaluate')).toBeLessThan(ran.indexOf('enqueue'));
    expect([...ran].sort()).toEqual(['deadLetter', 'enqueue', 'evaluate', 'store']);
    expect(outcomes.map((o) => o.step)).toEqual(['decoded', 'dead-lettered', 'stored', 'evaluated', 'enqueued']);
    expect(outcomes[1].count).toBe(1);
    expect(outcomes[2].inserted).toBe(1);
  });

  it('evaluates every event of the batch by app, in partition order', async () => {
    const first = storedEvent(APP_A, 'x');
    const second = storedEvent(APP_A, 'y');
    const { steps, evaluated } = recordingSteps();
    await eventChain(steps)(consumedBatch([...encodeEventMessages([first]), ...encodeEventMessages([second])]));
    expect(evaluated).toEqual([new Map([[APP_A, [first, second]]])]);
  });

  it('rejects when the store fails, after the alerts were enqueued, so the batch is consumed again', async () => {
    const { steps, ran } = recordingSteps('store');
    await expect(eventChain(steps)(batch)).rejects.toThrow('store failed');
    expect([...ran].sort()).toEqual(['deadLetter', 'enqueue', 'evaluate', 'store']);
  });

  it('enqueues nothing when evaluation fails, and rejects once the store has settled', async () => {
    let storeSettled = false;
    const { steps, ran } = recordingSteps('evaluate');
    const slowStore: EventSteps = {
      ...steps,
      store: async (decoded) => {
        const outcome = await steps.store(decoded);
        await new Promise<void>((resolve) => setImmediate(resolve));
        storeSettled = true;
        return outcome;
      },
    };
    await expect(eventChain(slowStore)(batch)).rejects.toThrow('evaluate failed');
    expect(storeSettled).toBe(true);
    expect(ran).not.toContain('enqueue');
  });

  it('does not run a step after dead-lettering fails', async () => {
    const { steps, ran } = recordingSteps('deadLetter');
    await expect(eventChain(steps)(batch)).rejects.toThrow('deadLetter failed');
    expect(ran).toEqual(['deadLetter']);
  });
});
