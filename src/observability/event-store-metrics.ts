import type { EventStore } from '../ports/event-store.js';
import type { ServiceMetrics } from './service-metrics.js';

type InsertMetrics = Pick<ServiceMetrics, 'clickhouseInsertRows' | 'clickhouseInsertBatches' | 'clickhouseInsertDuration' | 'clickhouseInsertErrors' | 'eventStoredLatency'>;

/**
 * The event store with its INSERTs measured, whatever the engine (a ClickHouse server or chDB): rows,
 * statements and latency of those that succeeded, and the failures (which the caller retries: the
 * pipeline's batch is delivered again), and how long after its acceptance each event was stored (on
 * this process's clock against the accepting one's; a clock behind counts as no time). Everything
 * else passes through.
 */
export function instrumentEventStore(store: EventStore, metrics: InsertMetrics, now: () => number = Date.now): EventStore {
  return {
    migrate: () => store.migrate(),
    insert(events) {
      // The store does nothing for an empty batch: no statement to count.
      if (events.length === 0) return store.insert(events);
      const started = process.hrtime.bigint();
      // What the measurement needs after the INSERT, taken now: the events themselves are not kept
      // while it is on its way (the store's insert says why).
      const acceptedAt = Float64Array.from(events, (event) => event.ingestedAt.getTime());
      return measured(store.insert(events), started, acceptedAt);
    },
    query: (query) => store.query(query),
    counts: (query) => store.counts(query),
    top: (query) => store.top(query),
    upkeep: () => store.upkeep(),
    deleteApp: (appId) => store.deleteApp(appId),
    ping: () => store.ping(),
    close: () => store.close(),
  };

  async function measured(inserting: Promise<void>, started: bigint, acceptedAt: Float64Array): Promise<void> {
    try {
      await inserting;
    } catch (err) {
      metrics.clickhouseInsertErrors.inc();
      throw err;
    }
    metrics.clickhouseInsertDuration.observe(Number(process.hrtime.bigint() - started) / 1e9);
    metrics.clickhouseInsertBatches.inc();
    metrics.clickhouseInsertRows.inc(acceptedAt.length);
    const stored = now();
    for (const at of acceptedAt) metrics.eventStoredLatency.observe(Math.max(0, stored - at) / 1000);
  }
}
