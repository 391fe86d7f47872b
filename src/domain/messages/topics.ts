/**
 * Topic and consumer group names, all under the deployment's prefix (KAFKA_TOPIC_PREFIX) so that
 * several deployments can share one Kafka cluster.
 */
export interface Topics {
  /** Accepted events, keyed by app id. */
  readonly events: string;
  /** Event messages the worker could not understand, with the reason in a header. */
  readonly eventsDeadLetter: string;
  /** The consumer group of the workers that store events. */
  readonly workerGroup: string;
  /** The consumer group of the workers that evaluate events against rules and queue the alerts. */
  readonly rulesGroup: string;
  /** Alert deliveries to attempt, keyed by delivery id (see pipeline/delivery-worker.ts). */
  readonly deliveries: string;
  /** Deliveries that failed for good (exhausted retries or refused), for the record. */
  readonly deliveriesDeadLetter: string;
  /** The consumer group of the workers that send alerts. */
  readonly deliveryGroup: string;
}

/**
 * Partitions of the events topic: the upper bound on worker processes that share the load. Twelve
 * divides evenly among 1, 2, 3, 4 or 6 workers; more partitions can be added later (keys then move,
 * which only matters for in-flight ordering during the change).
 */
export const EVENT_PARTITIONS = 12;

export function topicsFor(prefix: string): Topics {
  return {
    events: `${prefix}events`,
    eventsDeadLetter: `${prefix}events.dead-letter`,
    workerGroup: `${prefix}worker`,
    rulesGroup: `${prefix}rules`,
    deliveries: `${prefix}deliveries`,
    deliveriesDeadLetter: `${prefix}deliveries.dead-letter`,
    deliveryGroup: `${prefix}delivery`,
  };
}
