import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { encodeEventMessages } from '../domain/messages/event-message.js';
import { SqlEventStore } from '../adapters/event-store/sql-event-store.js';
import type { ClickHouseTransport } from '../adapters/event-store/clickhouse-transport.js';
import { instrumentEventStore } from '../observability/event-store-metrics.js';
import { createServiceMetrics } from '../observability/service-metrics.js';
import { APP_A, APP_B, consumedBatch, storedEvent } from '../../test/helpers/pipeline-fixtures.js';
import { storeEventsStep } from './steps/store-events.js';
import { alertChain, storeChain, type EventSteps } from './event-worker.js';

/** Steps that record the order they ran in; `failAt` makes that step throw; only `withRules` have rules. */
function recordingSteps(options: { failAt?: keyof EventSteps; withRules?: readonly string[] } = {}) {
  const ran: string[] = [];
  const evaluated: Array<Parameters<EventSteps['evaluate']>[0]> = [];
  const withRules = new Set(options.withRules ?? [APP_A, APP_B]);
  const run = <T>(name: keyof EventSteps, outcome: T): Promise<T> => {
    ran.push(name);
    return name === options.failAt ? Promise.reject(new Error(`${name} failed`)) : Promise.resolve(outcome);
  };
  const steps: EventSteps = {
    deadLetter: (dead) => run('deadLetter', { step: 'dead-lettered', count: dead.length }),
    store: (decoded) => run('store', { step: 'stored', inserted: decoded.events.length }),
    hasRules: (appId) => run('hasRules', withRules.has(appId)),
    evaluate: (byApp) => (evaluated.push(byApp), run('evaluate', { step: 'evaluated', jobs: [], evaluations: 0, triggers: { fired: 0, again: 0, cooldown: 0, counted: 0, seen: 0, late: 0 } })),
    enqueue: (jobs) => run('enqueue', { step: 'enqueued', count: jobs.length }),
  };
  return { steps, ran, evaluated };
}

const batch = consumedBatch([...encodeEventMessages([storedEvent(APP_A, 'x')]), { key: APP_A, value: Buffer.from('nope') }]);

describe('storeChain', () => {
  it('dead-letters first, then stores, and returns each outcome', async () => {
    const { steps, ran } = recordingSteps();
    const outcomes = await storeChain(steps)(batch);
    expect(ran).toEqual(['deadLetter', 'store']);
    expect(outcomes.map((o) => o.step)).toEqual(['decoded', 'dead-lettered', 'stored']);
    expect(outcomes[1].count).toBe(1);
    expect(outcomes[2].inserted).toBe(1);
  });

  it('rejects when the store fails, so the batch is consumed again', async () => {
    const { steps } = recordingSteps({ failAt: 'store' });
    await expect(storeChain(steps)(batch)).rejects.toThrow('store failed');
  });

  it('keeps none of the decoded events alive while their insert is on its way', async () => {
    // A full collection on demand: the flag exposes gc() to contexts made after it is set.
    setFlagsFromString('--expose-gc');
    const collectGarbage = runInNewContext('gc') as () => void;
    const statements: string[] = [];
    let answer = (): void => undefined;
    const transport: ClickHouseTransport = {
      exec: (sql) => {
        statements.push(sql);
        return new Promise<void>((resolve) => (answer = resolve));
      },
      select: () => Promise.resolve([]),
      ping: () => Promise.resolve(),
      close: () => Promise.resolve(),
    };
    // The chain as the worker builds it: the store step, the measured store, the SQL store, a server that has not answered yet.
    const store = storeEventsStep({ events: instrumentEventStore(new SqlEventStore(transport, { database: 'events' }), createServiceMetrics(new Registry())) });
    let decodedEvents: Array<WeakRef<object>> = [];
    const { steps } = recordingSteps();
    const chain = storeChain({
      ...steps,
      store: (decoded) => {
        decodedEvents = decoded.events.map((event) => new WeakRef(event));
        return store(decoded);
      },
    });
    const events = Array.from({ length: 50 }, (_, i) => storedEvent(APP_A, `e${i}`));
    const outcomes = chain(consumedBatch(encodeEventMessages(events)));
    await vi.waitFor(() => expect(statements).toHaveLength(1));
    // A WeakRef keeps its target until the end of the job that made or read it.
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    expect(decodedEvents).toHaveLength(50);
    expect(decodedEvents.filter((ref) => ref.deref() !== undefined)).toHaveLength(0);
    answer();
    const [tally, , stored] = await outcomes;
    expect(tally).toEqual({ step: 'decoded', events: 50, deadLetters: 0 });
    expect(stored.inserted).toBe(50);
    expect(statements[0]).toContain(events[49]!.id);
  });

  it('does not store after dead-lettering fails', async () => {
    const { steps, ran } = recordingSteps({ failAt: 'deadLetter' });
    await expect(storeChain(steps)(batch)).rejects.toThrow('deadLetter failed');
    expect(ran).toEqual(['deadLetter']);
  });
});

describe('alertChain', () => {
  it('evaluates every event of the batch by app, in partition order, then enqueues what fired', async () => {
    const first = storedEvent(APP_A, 'x');
    const second = storedEvent(APP_A, 'y');
    const { steps, ran, evaluated } = recordingSteps();
    const outcomes = await alertChain(steps)(consumedBatch([...encodeEventMessages([first]), ...encodeEventMessages([second])]));
    expect(evaluated).toEqual([new Map([[APP_A, [first, second]]])]);
    expect(ran).toEqual(['hasRules', 'evaluate', 'enqueue']);
    expect(outcomes.map((o) => o.step)).toEqual(['decoded', 'evaluated', 'enqueued']);
  });

  it('leaves what cannot be decoded to the storing group: nothing is dead-lettered twice', async () => {
    const { steps, ran } = recordingSteps();
    const [decoded] = await alertChain(steps)(batch);
    expect(decoded.dead).toHaveLength(1);
    expect(ran).not.toContain('deadLetter');
  });

  it('skips the messages of apps without rules, undecoded, and evaluates the rest', async () => {
    const ofA = storedEvent(APP_A, 'x');
    const ofB = storedEvent(APP_B, 'y');
    const { steps, evaluated } = recordingSteps({ withRules: [APP_B] });
    // The message of APP_A would be a dead letter if it were decoded.
    const [decoded] = await alertChain(steps)(consumedBatch([...encodeEventMessages([ofB]), { key: APP_A, value: Buffer.from('nope') }, ...encodeEventMessages([ofA])]));
    expect(decoded.dead).toEqual([]);
    expect(evaluated).toEqual([new Map([[APP_B, [ofB]]])]);
  });

  it('decodes a message whose key is not an app id, and evaluates its events by their app', async () => {
    const ofA = storedEvent(APP_A, 'x');
    const { steps, evaluated } = recordingSteps();
    const [message] = encodeEventMessages([ofA]);
    await alertChain(steps)(consumedBatch([{ ...message!, key: 'not-an-app' }]));
    expect(evaluated).toEqual([new Map([[APP_A, [ofA]]])]);
  });

  it('enqueues nothing when evaluation fails, and rejects so the batch is consumed again', async () => {
    const { steps, ran } = recordingSteps({ failAt: 'evaluate' });
    await expect(alertChain(steps)(batch)).rejects.toThrow('evaluate failed');
    expect(ran).not.toContain('enqueue');
  });
});
