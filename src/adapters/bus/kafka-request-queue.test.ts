import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import { KAFKAJS_REQUEST_QUEUE_MODULE, kafkaRequestQueueIdleCheck, type KafkajsRequestQueue } from './kafka-request-queue.js';
import './kafka-bus.js';

const require = createRequire(import.meta.url);
/** kafkajs's own request queue class, as its connections construct it. */
const RequestQueue = require(KAFKAJS_REQUEST_QUEUE_MODULE) as new (options: Record<string, unknown>) => KafkajsRequestQueue;

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

function newQueue(): KafkajsRequestQueue {
  return new RequestQueue({ maxInFlightRequests: 1, requestTimeout: 30_000, enforceRequestTimeout: true, clientId: 'test', broker: '127.0.0.1:9', logger: silent });
}

describe("kafkajs's request queue once the Kafka bus is loaded", () => {
  const queues: KafkajsRequestQueue[] = [];
  afterEach(() => {
    for (const queue of queues.splice(0)) clearTimeout(queue.throttleCheckTimeoutId as NodeJS.Timeout);
  });

  it('schedules no check when nothing waits and no throttle is in force', () => {
    expect(kafkaRequestQueueIdleCheck).toBe(true);
    const queue = newQueue();
    queues.push(queue);
    // What kafkajs does after every response: with the loop, this left a 1 ms timer behind each time.
    queue.checkPendingRequests();
    expect(queue.throttleCheckTimeoutId).toBeNull();
  });

  it('still schedules a check for requests that wait, and for the end of a throttle', () => {
    const waiting = newQueue();
    queues.push(waiting);
    waiting.pending.push({});
    waiting.throttledUntil = Date.now() + 60_000;
    waiting.scheduleCheckPendingRequests();
    expect(waiting.throttleCheckTimeoutId).not.toBeNull();

    const throttled = newQueue();
    queues.push(throttled);
    throttled.throttledUntil = Date.now() + 60_000;
    throttled.scheduleCheckPendingRequests();
    expect(throttled.throttleCheckTimeoutId).not.toBeNull();
  });
});
