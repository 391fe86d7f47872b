import type { EventStore } from '../ports/event-store.js';
import type { Logger } from '../observability/logger.js';
import type { ServiceMetrics } from '../observability/service-metrics.js';

export interface EventStoreUpkeepDeps {
  readonly events: Pick<EventStore, 'upkeep'>;
  readonly intervalMs: number;
  readonly logger: Logger;
  readonly metrics: Pick<ServiceMetrics, 'eventDaysDropped' | 'eventDaysCompacted' | 'eventDaysRolledUp' | 'eventUpkeepErrors'>;
}

/**
 * Runs the event store's upkeep (EventStore.upkeep: retention, compaction, rollups) every interval, in each
 * worker: several workers doing it at once is harmless, and one left running is enough. The first
 * round runs at start, so that a retention just shortened takes effect on disk without waiting.
 */
export class EventStoreUpkeep {
  readonly #deps: EventStoreUpkeepDeps;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;

  constructor(deps: EventStoreUpkeepDeps) {
    this.#deps = deps;
  }

  start(): void {
    const tick = () => {
      this.#running ??= this.#round().finally(() => (this.#running = undefined));
    };
    this.#timer = setInterval(tick, this.#deps.intervalMs);
    tick();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
  }

  async #round(): Promise<void> {
    const { events, logger, metrics } = this.#deps;
    try {
      const done = await events.upkeep();
      metrics.eventDaysDropped.inc(done.dropped.length);
      metrics.eventDaysCompacted.inc(done.compacted.length);
      metrics.eventDaysRolledUp.inc(done.rolledUp.length);
      if (done.dropped.length > 0) logger.info({ days: done.dropped }, 'events past the retention deleted');
      if (done.compacted.length > 0 || done.rolledUp.length > 0) logger.debug({ compacted: done.compacted, rolledUp: done.rolledUp }, 'event days compacted and rolled up');
    } catch (err) {
      metrics.eventUpkeepErrors.inc();
      logger.warn({ err }, 'event store upkeep failed; retrying at the next interval');
    }
  }
}
