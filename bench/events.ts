import { randomUUID } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';
import { encodeEventMessages } from '../src/domain/messages/event-message.js';

/**
 * What the benchmark sends. One realistic event (a name, a customer, a small payload, one metadata
 * pair): small enough that per-request costs dominate single-event requests, large enough that
 * JSON work is not free. Every request of a step carries the same bytes, which is fine: the service
 * gives each event its own id and nothing deduplicates on content.
 */
export const SAMPLE_EVENT = {
  event: 'order.created',
  level: 'info',
  customer_id: 'cus_4f9a21c7',
  data: { orderId: 'ord_81724', amount: 42.5, currency: 'EUR', items: 3, coupon: null, channel: 'web' },
  metadata: { source: 'bench', region: 'eu-west-1' },
} as const;

export const BATCH_SIZE = 100;

export type RequestShape = 'single' | 'batch';

export const SHAPES: readonly RequestShape[] = ['single', 'batch'];

export function eventsPerRequest(shape: RequestShape): number {
  return shape === 'single' ? 1 : BATCH_SIZE;
}

/** The request body of a shape, as autocannon sends it. */
export function requestBody(shape: RequestShape): string {
  return JSON.stringify(shape === 'single' ? SAMPLE_EVENT : Array.from({ length: BATCH_SIZE }, () => SAMPLE_EVENT));
}

/**
 * Bytes of the Kafka record value the edge produces for SAMPLE_EVENT alone, computed by the service's
 * own encoder (src/pipeline/event-message.ts) over an event shaped like IngestService makes it, so
 * kafka-producer-perf-test writes one record per event of the same size: the ceiling of a producer
 * that sends every event as its own record. (The edge packs each produce call's events of one app
 * into one record, so its records are larger and fewer.) The key (the app id, 36 bytes) is not
 * included: perf-test sends records without keys.
 */
export function eventMessageBytes(): number {
  const now = new Date();
  const [message] = encodeEventMessages([{
    id: uuidv7(),
    appId: randomUUID(),
    event: SAMPLE_EVENT.event,
    customerId: SAMPLE_EVENT.customer_id,
    level: SAMPLE_EVENT.level,
    data: SAMPLE_EVENT.data,
    metadata: SAMPLE_EVENT.metadata,
    timestamp: now,
    ingestedAt: now,
  }]);
  return message!.value.length;
}
