import { describe, expect, it } from 'vitest';
import type { NewDeliveryJob } from '../delivery-queue.js';
import { enqueueDeliveriesStep } from './enqueue-deliveries.js';

describe('enqueueDeliveriesStep', () => {
  const job = { appId: 'a', ruleId: 'r', actionId: 'x', destinationId: 'd', eventId: 'e' } as unknown as NewDeliveryJob;

  it('hands the jobs to the queue and counts them', async () => {
    const enqueued: Array<readonly NewDeliveryJob[]> = [];
    const outcome = await enqueueDeliveriesStep({ enqueue: (jobs) => Promise.resolve(void enqueued.push(jobs)) })([job, job]);
    expect(outcome).toEqual({ step: 'enqueued', count: 2 });
    expect(enqueued).toEqual([[job, job]]);
  });

  it('leaves the queue alone when nothing fired', async () => {
    let calls = 0;
    const outcome = await enqueueDeliveriesStep({ enqueue: () => Promise.resolve(void calls++) })([]);
    expect(outcome).toEqual({ step: 'enqueued', count: 0 });
    expect(calls).toBe(0);
  });

  it('fails when the deliveries cannot be created, so the batch is consumed again', async () => {
    await expect(enqueueDeliveriesStep({ enqueue: () => Promise.reject(new Error('database down')) })([job])).rejects.toThrow('database down');
  });
});
