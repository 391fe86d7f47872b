import { v7 as uuidv7 } from 'uuid';
import { describe, expect, it, vi } from 'vitest';
import type { ClaimedDelivery, DeliveryStore, FinishedAttempt } from '../ports/metadata.js';
import type { AlertSender } from '../ports/alert-sender.js';
import { MemoryBus } from '../adapters/bus/memory-bus.js';
import { failed, succeeded } from '../delivery/delivery-outcome.js';
import { encodeDeliveryJob } from '../domain/messages/delivery-job.js';
import { topicsFor } from '../domain/messages/topics.js';
import { createRetrySchedule } from '../domain/retry-schedule.js';
import { destination, sampleAlert } from '../../test/helpers/alerts.js';
import { quietLogger } from '../../test/helpers/pipeline-fixtures.js';
import { DeliveryWorker, handOut } from './delivery-worker.js';

const claimed = (id: string, attempts: number): ClaimedDelivery => ({ id, appId: 'app', ruleId: 'rule', actionId: 'action', destinationId: 'dest', eventId: 'event', attempts, payload: '{}' });

describe('handOut (the claims of one shared statement, to their askers)', () => {
  it('gives each claimed delivery to its asker, in the order asked, and null to those not claimed', () => {
    const a = claimed('a', 1);
    const c = claimed('c', 3);
    expect(handOut([{ id: 'a', attemptsMade: 0 }, { id: 'b', attemptsMade: 0 }, { id: 'c', attemptsMade: 2 }], [c, a])).toEqual([a, null, c]);
  });

  it('makes an attempt asked for twice at once (its job and the poller) only once: the first asker gets it', () => {
    const a = claimed('a', 1);
    expect(handOut([{ id: 'a', attemptsMade: 0 }, { id: 'a', attemptsMade: 0 }], [a])).toEqual([a, null]);
  });

  it('gives a claim only to the asker of that very attempt', () => {
    // The row moved on to attempt 3: an asker who saw 0 attempts made did not win it.
    expect(handOut([{ id: 'a', attemptsMade: 0 }], [claimed('a', 3)])).toEqual([null]);
  });
});

/** A delivery store holding claimable deliveries in memory, recording what the worker finishes. */
function fakeStore(ids: readonly string[]) {
  const finished: FinishedAttempt[] = [];
  const store: DeliveryStore = {
    createMany: () => Promise.resolve([]),
    due: () => Promise.resolve([]),
    claim: (wanted) => Promise.resolve(wanted.filter(({ id }) => ids.includes(id)).map(({ id, attemptsMade }) => ({ ...claimed(id, attemptsMade + 1), payload: JSON.stringify(sampleAlert()) }))),
    finish: (attempts) => {
      finished.push(...attempts);
      return Promise.resolve(new Set(attempts.map((a) => a.id)));
    },
  };
  return { store, finished };
}

describe('DeliveryWorker (what it records of each attempt)', () => {
  const START = Date.parse('2026-03-04T05:06:07.089Z');

  /** One delivery's first attempt, from its job to its recorded outcome. */
  async function attemptOnce(send: AlertSender['send'], destinationFound = true): Promise<FinishedAttempt> {
    const id = uuidv7();
    const bus = new MemoryBus();
    const topics = topicsFor('worker-test.');
    const { store, finished } = fakeStore([id]);
    const worker = new DeliveryWorker({
      bus,
      topics,
      store,
      destinations: { targets: (refs) => Promise.resolve(refs.map(() => (destinationFound ? destination({ type: 'webhook', url: 'https://example.com/in', signingSecret: 'whsec_x' }) : null))) },
      sender: { send },
      schedule: createRetrySchedule([0, 60_000]),
      logger: quietLogger,
      now: () => START,
    });
    await worker.start();
    try {
      await bus.produce(topics.deliveries, [encodeDeliveryJob(id)]);
      await vi.waitFor(() => expect(finished).toHaveLength(1));
    } finally {
      await worker.stop();
      await bus.close();
    }
    return finished[0]!;
  }

  it('records when the attempt started, how long it took and the HTTP status the receiver answered', async () => {
    const slow: AlertSender['send'] = () => new Promise((resolve) => setTimeout(() => resolve(failed('receiver answered HTTP 503', true, 503)), 25));
    const attempt = await attemptOnce(slow);
    expect(attempt).toMatchObject({ attempts: 1, outcome: { status: 'pending', lastError: 'receiver answered HTTP 503' } });
    expect(attempt.measured).toEqual({ startedAt: new Date(START), durationMs: expect.any(Number), httpStatus: 503 });
    // Timers may fire a little early, never much; the duration is whole milliseconds.
    expect(attempt.measured!.durationMs).toBeGreaterThanOrEqual(20);
    expect(Number.isInteger(attempt.measured!.durationMs)).toBe(true);

    const ok = await attemptOnce(() => Promise.resolve(succeeded(204)));
    expect(ok).toMatchObject({ outcome: { status: 'succeeded', lastError: null }, measured: { httpStatus: 204 } });
    expect(ok.measured!.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('records no HTTP status when no response came: nothing sent, or a sender that threw', async () => {
    const gone = await attemptOnce(() => Promise.reject(new Error('never called')), false);
    expect(gone).toMatchObject({ outcome: { status: 'failed', lastError: 'the destination no longer exists' }, measured: { httpStatus: null } });
    const threw = await attemptOnce(() => Promise.reject(new Error('bug')));
    expect(threw).toMatchObject({ outcome: { status: 'pending', lastError: 'unexpected error while sending' }, measured: { httpStatus: null } });
  });
});
