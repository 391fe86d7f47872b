import type { MessageBus } from '../ports/message-bus.js';
import type { DeliveryStore } from '../ports/metadata.js';
import type { Topics } from '../domain/messages/topics.js';
import { encodeDeliveryJob } from '../domain/messages/delivery-job.js';
import type { AlertContent } from '../domain/alerting.js';

/**
 * How long a new delivery waits for its job on the deliveries topic before the retry poller takes
 * it as due anyway: the first attempt normally starts within milliseconds through the topic; the
 * poller covers a job that was never produced (a crash between creating the row and producing) or
 * lost with a crashed delivery worker. Long enough that the poller never races a healthy queue.
 */
export const FIRST_ATTEMPT_RECOVERY_MS = 30_000;

/** One alert to deliver: a rule's action for an event, with the alert's content. */
export interface NewDeliveryJob {
  readonly appId: string;
  readonly ruleId: string;
  readonly actionId: string;
  readonly destinationId: string;
  readonly eventId: string;
  readonly alert: AlertContent;
}

export interface DeliveryQueue {
  /**
   * Creates the deliveries that do not exist yet (one per rule action and event) and queues their
   * first attempt. Durable when it resolves: the rows are committed, and a row whose job is lost is
   * still attempted (by the retry poller).
   */
  enqueue(jobs: readonly NewDeliveryJob[]): Promise<void>;
}

/**
 * Deliveries are rows in the metadata database (the record the API lists, with attempts and the next
 * due time) and jobs on the deliveries topic (Kafka in distributed mode), keyed by delivery id so the
 * delivery workers share them. The topic carries first attempts with no polling delay; retries are
 * due times in the rows, which the delivery workers' poller picks up (a Kafka topic cannot hold a
 * message back for minutes without holding up its whole partition).
 */
export function busDeliveryQueue(deps: { bus: MessageBus; topics: Topics; store: DeliveryStore; now?: () => number }): DeliveryQueue {
  const now = deps.now ?? Date.now;
  return {
    async enqueue(jobs) {
      if (jobs.length === 0) return;
      const created = await deps.store.createMany(
        jobs.map(({ alert, ...job }) => ({ ...job, payload: JSON.stringify(alert) })),
        new Date(now() + FIRST_ATTEMPT_RECOVERY_MS),
      );
      if (created.length > 0) await deps.bus.produce(deps.topics.deliveries, created.map(encodeDeliveryJob));
    },
  };
}
