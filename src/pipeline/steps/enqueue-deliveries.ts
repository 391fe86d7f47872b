import type { DeliveryQueue, NewDeliveryJob } from '../delivery-queue.js';

export interface Enqueued {
  readonly step: 'enqueued';
  /** Jobs handed to the queue; the queue creates only the deliveries that do not exist yet. */
  readonly count: number;
}

/**
 * Creates the deliveries of the batch's triggers and queues their first attempt. Durable when it
 * resolves, so before the batch's offsets are committed: a crash before that consumes the batch
 * again, and evaluation finds the triggers already recorded and re-creates only missing deliveries.
 */
export function enqueueDeliveriesStep(queue: DeliveryQueue): (jobs: readonly NewDeliveryJob[]) => Promise<Enqueued> {
  return async (jobs) => {
    if (jobs.length > 0) await queue.enqueue(jobs);
    return { step: 'enqueued', count: jobs.length };
  };
}
