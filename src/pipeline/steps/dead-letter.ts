import type { MessageBus } from '../../ports/message-bus.js';
import { DEAD_LETTER_REASON_HEADER } from '../../domain/messages/event-message.js';
import type { Logger } from '../../observability/logger.js';
import type { ServiceMetrics } from '../../observability/service-metrics.js';
import type { DeadLetter } from './decode-batch.js';

export interface DeadLettered {
  readonly step: 'dead-lettered';
  readonly count: number;
}

export interface DeadLetterDeps {
  readonly bus: Pick<MessageBus, 'produce'>;
  /** The events dead-letter topic. */
  readonly topic: string;
  readonly logger: Logger;
  readonly metrics?: Pick<ServiceMetrics, 'eventsDeadLettered'>;
}

/**
 * Produces what the worker could not understand to the dead-letter topic, as it arrived plus the
 * reason and where it came from. Once they are durable there, committing past them loses nothing; a
 * failure throws, and the whole batch is consumed again.
 */
export function deadLetterStep(deps: DeadLetterDeps): (dead: readonly DeadLetter[]) => Promise<DeadLettered> {
  return async (dead) => {
    if (dead.length === 0) return { step: 'dead-lettered', count: 0 };
    await deps.bus.produce(
      deps.topic,
      dead.map(({ message, reason }) => ({
        key: message.key,
        value: message.value,
        headers: {
          ...message.headers,
          [DEAD_LETTER_REASON_HEADER]: reason,
          'x-original-topic': message.topic,
          'x-original-partition': String(message.partition),
          'x-original-offset': message.offset,
        },
      })),
    );
    deps.metrics?.eventsDeadLettered.inc(dead.length);
    for (const { message, reason } of dead) {
      deps.logger.warn({ topic: message.topic, partition: message.partition, offset: message.offset, reason }, 'event message dead-lettered');
    }
    return { step: 'dead-lettered', count: dead.length };
  };
}
