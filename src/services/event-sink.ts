import type { MessageBus } from '../ports/message-bus.js';
import { encodeEventEntry, messagesByApp, type PendingEntry } from '../domain/messages/event-message.js';
import type { Topics } from '../domain/messages/topics.js';
import type { KafkaBusMetrics } from '../observability/service-metrics.js';
import { CircuitBreaker, CircuitOpenError } from '../lib/circuit-breaker.js';
import { ProduceBatcher } from '../lib/produce-batcher.js';
import type { StoredEvent } from '../domain/events.js';

/**
 * Where accepted events go. When `publish` resolves, the events are durable and the edge may answer
 * 202, and not before: a 202 means the events are durable.
 */
export interface EventSink {
  publish(events: readonly StoredEvent[]): Promise<void>;
  /**
   * At shutdown: finishes every publish already started (each caller gets its real answer) and
   * refuses new ones. Called before the bus and the store close.
   */
  close(): Promise<void>;
}


/**
 * Bytes of messages per shared produce call. A broker refuses a record batch over its
 * `message.max.bytes`; one app's events share a partition, so a call's bytes bound its largest batch.
 * The local stack and docker-compose.yml set the broker limit to 8 MiB, so one full 1 MiB request
 * (never split) always fits, and 1 MiB per call keeps produce latency low.
 */
const MAX_PRODUCE_BYTES = 1024 * 1024;
/**
 * Under load a produce call waits up to a millisecond for the callers the previous call answered to
 * come back with their next requests (ProduceBatcher's linger), once a call carried this many callers.
 */
const PRODUCE_LINGER = { ms: 1, busyCallers: 8 } as const;
/**
 * Produce calls outstanding at once. With one, the requests that arrived during a call waited for its
 * acknowledgement before theirs could go, and the edge sat idle in the meantime; a second call lets them
 * go at once (single events at 128 connections 1.13 times as fast, CPU per request 0.94; decision 0029).
 * Two concurrent calls may reach a partition in either order, but their requests were concurrent too:
 * a client's request answered before its next one was sent is still written before it.
 */
const PRODUCE_CALLS_IN_FLIGHT = 2;
/** How long ingest fails fast after Kafka failed, before one request probes it again. */
const BUS_COOLDOWN_MS = 2_000;

/**
 * Events are durable once the bus has them: in distributed mode when Kafka acknowledged with acks=-1
 * (all in-sync replicas), in embedded mode when the in-process bus committed them to its journal
 * (sqlite-journal.ts). Concurrent requests share produce calls (in embedded mode one journal commit
 * serves them all), and within a call each app's events travel as one record (see event-message.ts); while
 * the bus fails, requests fail at once (a fast 503) instead of each waiting out a timeout.
 */
export function busEventSink(bus: MessageBus, topics: Topics, metrics?: Pick<KafkaBusMetrics, 'produceFailed'>): EventSink {
  const breaker = new CircuitBreaker({ cooldownMs: BUS_COOLDOWN_MS });
  // Each event is serialised once, when it is queued; a call joins its events' entries per app.
  const send = (pending: PendingEntry[]): Promise<void> => {
    const messages = messagesByApp(pending);
    return breaker.run(() => bus.produce(topics.events, messages)).catch((err: unknown) => {
      // A call the breaker refused never reached the bus, which counts the ones that did.
      if (err instanceof CircuitOpenError) metrics?.produceFailed(topics.events);
      throw err;
    });
  };
  const batcher = new ProduceBatcher<PendingEntry>(send, { maxWeight: MAX_PRODUCE_BYTES, weight: (p) => p.entry.length, linger: PRODUCE_LINGER, maxInFlight: PRODUCE_CALLS_IN_FLIGHT });
  return {
    publish: (events) => {
      // Refused now rather than queued behind the call in flight (a probe may take the produce
      // timeout to fail), so that a client gets its 503 at once while Kafka is down.
      if (breaker.refusing) {
        metrics?.produceFailed(topics.events);
        return Promise.reject(breaker.refusal());
      }
      return batcher.add(events.map((event) => ({ appId: event.appId, entry: encodeEventEntry(event) })));
    },
    close: () => batcher.stop(),
  };
}
