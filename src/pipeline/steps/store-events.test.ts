import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../domain/events.js';
import { storedEvent } from '../../../test/helpers/pipeline-fixtures.js';
import { eventsByApp, storeEventsStep } from './store-events.js';

function recordingStore() {
  const inserts: Array<readonly StoredEvent[]> = [];
  return { inserts, insert: (events: readonly StoredEvent[]) => Promise.resolve(void inserts.push(events)) };
}

describe('storeEventsStep', () => {
  it('inserts the batch once', async () => {
    const events = [storedEvent('a', 'x'), storedEvent('b', 'x'), storedEvent('a', 'y')];
    const store = recordingStore();
    const outcome = await storeEventsStep({ events: store })({ step: 'decoded', events, dead: [] });
    expect(store.inserts).toEqual([events]);
    expect(outcome.step).toBe('stored');
    expect(outcome.inserted).toBe(3);
  });

  it('does not call the store for a batch without events', async () => {
    const store = recordingStore();
    await storeEventsStep({ events: store })({ step: 'decoded', events: [], dead: [] });
    expect(store.inserts).toEqual([]);
  });
});

describe('eventsByApp', () => {
  it('groups the events by app in partition order', () => {
    const events = [storedEvent('a', 'x'), storedEvent('b', 'x'), storedEvent('a', 'y')];
    const byApp = eventsByApp(events);
    expect([...byApp.keys()]).toEqual(['a', 'b']);
    expect(byApp.get('a')!.map((e) => e.event)).toEqual(['x', 'y']);
    expect(eventsByApp([]).size).toBe(0);
  });
});
