import { createRequire } from 'node:module';

/**
 * kafkajs 2.2.4 keeps a timer running on every broker connection for as long as the connection
 * lives: after each response its request queue schedules a check of its pending requests, and with
 * nothing pending and no throttle in force the delay it computes is negative, so Node fires it after
 * 1 ms, the check schedules the next one, and so on, about a thousand callbacks a second per
 * connection (kafkajs issues 1556 and 1704, fixes proposed upstream and not released). A worker holds
 * several connections, so that loop was a tenth of a core on an idle worker here (bench/NOTES.md).
 *
 * The check is needed only when requests wait (for a free in-flight slot or for a broker's throttle
 * to end) or when a throttle is in force; kafkajs also checks the queue whenever a response arrives,
 * and whenever a request is pushed it either sends it at once or schedules the check itself. So the
 * scheduling is skipped when nothing waits and no throttle is in force, and otherwise left to kafkajs.
 * Like kafka-checksum.ts, this changes kafkajs's own module before any client of this process uses it.
 */

const require = createRequire(import.meta.url);

/** kafkajs's per-connection request queue (kafkajs 2.x). */
export const KAFKAJS_REQUEST_QUEUE_MODULE = 'kafkajs/src/network/requestQueue/index.js';

/** The fields of kafkajs's request queue that decide whether a check is needed. */
export interface KafkajsRequestQueue {
  pending: unknown[];
  throttledUntil: number;
  throttleCheckTimeoutId: unknown;
  scheduleCheckPendingRequests: (this: KafkajsRequestQueue) => void;
  checkPendingRequests: (this: KafkajsRequestQueue) => void;
}

type RequestQueueClass = { prototype: KafkajsRequestQueue };

const PATCHED = Symbol.for('event-alerting.kafkajs.requestQueue.idleCheck');

/** Whether the request queue's idle timer loop is stopped in this process (false if kafkajs moved the module). */
export const kafkaRequestQueueIdleCheck: boolean = stopIdleCheckLoop();

function stopIdleCheckLoop(): boolean {
  let queue: RequestQueueClass;
  try {
    queue = require(KAFKAJS_REQUEST_QUEUE_MODULE) as RequestQueueClass;
  } catch {
    return false;
  }
  const proto = queue.prototype as KafkajsRequestQueue & { [PATCHED]?: true };
  if (typeof proto.scheduleCheckPendingRequests !== 'function') return false;
  if (proto[PATCHED]) return true;
  const schedule = proto.scheduleCheckPendingRequests;
  proto.scheduleCheckPendingRequests = function scheduleWhenNeeded(this: KafkajsRequestQueue): void {
    if (this.pending.length === 0 && this.throttledUntil <= Date.now()) return;
    schedule.call(this);
  };
  proto[PATCHED] = true;
  return true;
}
