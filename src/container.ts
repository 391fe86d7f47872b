import path from 'node:path';
import type { Registry } from 'prom-client';
import type { Config, DistributedConfig } from './config.js';
import type { MessageBus } from './adapters/bus/message-bus.js';
import { KafkaBus } from './adapters/bus/kafka-bus.js';
import { MemoryBus } from './adapters/bus/memory-bus.js';
import type { EventStore } from './adapters/event-store/event-store.js';
import { ClickHouseEventStore } from './adapters/event-store/clickhouse-event-store.js';
import type { StateStore } from './adapters/state/state-store.js';
import { RedisStateStore } from './adapters/state/redis-state-store.js';
import { MemoryStateStore } from './adapters/state/memory-state-store.js';
import type { RateLimiter } from './adapters/rate-limit/rate-limiter.js';
import { RedisRateLimiter } from './adapters/rate-limit/redis-rate-limiter.js';
import { MemoryRateLimiter } from './adapters/rate-limit/memory-rate-limiter.js';
import { createPostgresMetadataStore, createSqliteMetadataStore, type MetadataStore } from './adapters/metadata/metadata-store.js';
import type { Logger } from './observability/logger.js';
import { instrumentEventStore } from './observability/event-store-metrics.js';
import { createMetricsRegistry } from './observability/metrics.js';
import { createServiceMetrics, kafkaBusMetrics, type KafkaBusMetrics } from './observability/service-metrics.js';
import { createAlertSender } from './delivery/channel-senders.js';
import type { AlertSender } from './delivery/delivery-types.js';
import { createSmtpMailer } from './delivery/mailer.js';
import { createOutboundHttp } from './delivery/outbound-http.js';
import { DeliveryRepository } from './adapters/metadata/repositories/delivery-repository.js';
import { createRetrySchedule } from './domain/retry-schedule.js';
import { busDeliveryQueue } from './pipeline/delivery-queue.js';
import { DeliveryWorker } from './pipeline/delivery-worker.js';
import { EventPipeline } from './pipeline/event-pipeline.js';
import { RuleEvaluator } from './pipeline/rule-evaluator.js';
import { destinationTargets } from './services/destination-target.js';
import { EVENT_PARTITIONS, topicsFor, type Topics } from './pipeline/topics.js';
import { Authenticator } from './services/authenticator.js';
import { ensureBootstrapSecret } from './services/bootstrap.js';
import { kafkaEventSink, storeFirstEventSink, type EventSink } from './services/event-sink.js';
import { IngestConfigCache } from './services/ingest-config.js';
import { RuleSetCache } from './services/rule-set-cache.js';
import { VersionReads } from './services/versioned-cache.js';
import type { DependencyCheck } from './services/readiness.js';

/**
 * The one wiring module (dependencies arrive as arguments; every external part has a real and an
 * in-process adapter): it picks the adapter of each port for the mode, starts them in order and stops
 * them in reverse. Nothing else constructs an adapter or looks at the mode.
 */
export interface Container {
  readonly config: Config;
  readonly logger: Logger;
  readonly metrics: Registry;
  readonly metadata: MetadataStore;
  readonly events: EventStore;
  readonly bus: MessageBus;
  readonly state: StateStore;
  readonly authenticator: Authenticator;
  /** Per-account request budgets (RATE_LIMIT_POINTS per RATE_LIMIT_DURATION_S), shared by every API process. */
  readonly rateLimiter: RateLimiter;
  readonly topics: Topics;
  readonly sink: EventSink;
  readonly ingestConfig: IngestConfigCache;
  /** Sends alerts and destination tests: guarded outbound HTTP, and SMTP when configured. */
  readonly alertSender: AlertSender;
  /** Each app's enabled rules with their destinations, cached per process (rules:version). */
  readonly ruleSets: RuleSetCache;
  /** What /readyz checks: every dependency of this process's role, named as an operator knows it. */
  readonly checks: readonly DependencyCheck[];
  /** Stops every part in reverse start order; safe to call twice. */
  stop(): Promise<void>;
}

interface Adapters {
  metadata: MetadataStore;
  events: EventStore;
  bus: MessageBus;
  state: StateStore;
  checks: DependencyCheck[];
}

/** Where embedded mode keeps its files; the service and the CLI must open the very same ones. */
function embeddedPaths(config: Config): { metadata: string; chdb: string } {
  return { metadata: path.join(config.dataDir, 'metadata.sqlite'), chdb: path.join(config.dataDir, 'chdb') };
}

async function embeddedAdapters(config: Config, logger: Logger): Promise<Adapters> {
  // Loaded only in embedded mode: chDB is a native engine with binaries for few platforms, and a
  // distributed deployment (say on linux-arm64) must not need it.
  const { ChdbEventStore } = await import('./adapters/event-store/chdb-event-store.js');
  const metadata = createSqliteMetadataStore({ path: embeddedPaths(config).metadata });
  const events = new ChdbEventStore({ path: embeddedPaths(config).chdb, database: config.clickhouseDatabase });
  // The in-process bus and state cannot fail independently of the process, so readiness skips them.
  return {
    metadata,
    events,
    bus: new MemoryBus({ logger: logger.child({ component: 'bus' }) }),
    state: new MemoryStateStore(),
    checks: [
      { name: 'sqlite', ping: () => metadata.ping() },
      { name: 'chdb', ping: () => events.ping() },
    ],
  };
}

function distributedAdapters(d: DistributedConfig, logger: Logger, busMetrics: KafkaBusMetrics | undefined): Adapters {
  const metadata = createPostgresMetadataStore({ url: d.databaseUrl });
  const events = new ClickHouseEventStore({ url: d.clickhouseUrl, database: d.clickhouseDatabase });
  const bus = new KafkaBus({ brokers: [...d.kafkaBrokers], clientId: 'event-alerting', logger: logger.child({ component: 'kafka' }), metrics: busMetrics });
  const state = new RedisStateStore({ url: d.redisUrl, logger: logger.child({ component: 'redis' }) });
  // Both roles use every dependency: the API produces to Kafka, reads events from ClickHouse, checks
  // keys in PostgreSQL and limits in Redis; the worker consumes, stores, and keeps rule state.
  return {
    metadata,
    events,
    bus,
    state,
    checks: [
      { name: 'kafka', ping: () => bus.ping() },
      { name: 'clickhouse', ping: () => events.ping() },
      { name: 'redis', ping: () => state.ping() },
      { name: 'postgres', ping: () => metadata.ping() },
    ],
  };
}

export async function createContainer(config: Config, logger: Logger): Promise<Container> {
  const topics = topicsFor(config.topicPrefix);
  // One registry per process; every part records into it and GET /metrics serves it (docs/metrics.md).
  const registry = createMetricsRegistry();
  const serviceMetrics = createServiceMetrics(registry);
  // Kafka's series exist in distributed mode only: embedded mode has no Kafka to report on.
  const busMetrics = config.distributed ? kafkaBusMetrics(serviceMetrics, topics) : undefined;
  const adapters = config.distributed ? distributedAdapters(config.distributed, logger, busMetrics) : await embeddedAdapters(config, logger);
  const { metadata, bus, state } = adapters;
  const events = instrumentEventStore(adapters.events, serviceMetrics);
  const checks = adapters.checks.map((check) => ({
    ...check,
    observe: (up: boolean) => serviceMetrics.dependencyUp.set({ dependency: check.name }, up ? 1 : 0),
  }));

  // Stopped in reverse: nothing produces or consumes after the stores it writes to are closed.
  const stoppers: Array<{ name: string; stop: () => Promise<void> }> = [];
  const stopAll = async (): Promise<void> => {
    while (stoppers.length > 0) {
      const part = stoppers.pop()!;
      try {
        await part.stop();
      } catch (err) {
        logger.warn({ err, part: part.name }, 'error while stopping');
      }
    }
  };

  // No connection is opened until the first message: building it costs nothing for a role that never sends.
  const { smtp } = config;
  const mailer = smtp.url && smtp.from ? createSmtpMailer({ url: smtp.url, from: smtp.from }) : null;
  if (mailer) stoppers.push({ name: 'mailer', stop: () => mailer.close() });
  const alertSender = createAlertSender({
    http: createOutboundHttp({ allowPrivate: config.outbound.allowPrivate, logger: logger.child({ component: 'outbound' }) }),
    mailer,
    logger: logger.child({ component: 'alerts' }),
  });
  // One reader for the version keys of every cache in this process: concurrent requests share its reads.
  const versions = new VersionReads(state);
  const ruleSets = new RuleSetCache({ metadata, state, versions, logger });
  // Only API processes consult it; a worker's (idle) Redis connection costs nothing worth a special case.
  const rateLimiter: RateLimiter = config.distributed
    ? new RedisRateLimiter({ url: config.distributed.redisUrl, policy: config.rateLimit })
    : new MemoryRateLimiter(config.rateLimit);
  stoppers.push({ name: 'rate limiter', stop: () => rateLimiter.close() });

  try {
    // Migrations are numbered and idempotent, and safe when several processes start at once.
    stoppers.push({ name: 'metadata', stop: () => metadata.close() });
    await metadata.migrate();
    stoppers.push({ name: 'events', stop: () => events.close() });
    await events.migrate();
    await ensureBootstrapSecret(metadata, logger, config.bootstrap);
    stoppers.push({ name: 'state', stop: () => state.close() });
    stoppers.push({ name: 'bus', stop: () => bus.close() });
    // Every role produces to or consumes from the events topic; creating it is idempotent.
    await bus.ensureTopic(topics.events, EVENT_PARTITIONS);
    if (config.role !== 'api') {
      const deliveryStore = new DeliveryRepository(metadata);
      const deliveryWorker = new DeliveryWorker({
        bus,
        topics,
        store: deliveryStore,
        destinations: destinationTargets(metadata),
        sender: alertSender,
        schedule: createRetrySchedule(config.deliveryRetryScheduleMs),
        logger: logger.child({ component: 'delivery' }),
        metrics: serviceMetrics,
      });
      stoppers.push({ name: 'delivery worker', stop: () => deliveryWorker.stop() });
      await deliveryWorker.start();
      const evaluator = new RuleEvaluator({
        ruleSets,
        state,
        deliveries: busDeliveryQueue({ bus, topics, store: deliveryStore }),
        logger: logger.child({ component: 'rules' }),
        metrics: serviceMetrics,
      });
      const pipeline = new EventPipeline({
        bus,
        events,
        topics,
        logger: logger.child({ component: 'pipeline' }),
        metrics: serviceMetrics,
        afterStored: (eventsByApp) => evaluator.evaluate(eventsByApp),
      });
      // Pushed last, so stopped first: the batch in progress is stored, evaluated and committed (its
      // deliveries queued) before the delivery worker, the bus and the stores close under it.
      stoppers.push({ name: 'pipeline', stop: () => pipeline.stop() });
      await pipeline.start();
    }
  } catch (err) {
    await stopAll();
    throw err;
  }
  // Pushed last, so stopped first (HTTP has drained by then): the produce calls of requests already
  // accepted into it finish, and their callers get their answers, while the bus and the stores are open.
  const sink = config.distributed ? kafkaEventSink(bus, topics, busMetrics) : storeFirstEventSink(events, bus, topics);
  stoppers.push({ name: 'event sink', stop: () => sink.close() });

  let stopping: Promise<void> | undefined;
  return {
    config,
    logger,
    metrics: registry,
    metadata,
    events,
    bus,
    state,
    authenticator: new Authenticator({ metadata, state, versions, logger, cacheTtlMs: authCacheTtlMs(config) }),
    rateLimiter,
    topics,
    sink,
    ingestConfig: new IngestConfigCache({ metadata, state, versions, logger }),
    alertSender,
    ruleSets,
    checks,
    stop: () => (stopping ??= stopAll()),
  };
}

/**
 * How long a process trusts a credential it has checked. Distributed mode: the authenticator's
 * default, since Redis carries every revocation to every process at once. Embedded mode: no cache.
 * There the shared version lives in the service's memory, where the CLI (another process, writing
 * the same SQLite file) cannot bump it; `revoke-secret` or `rotate-key` must still take effect on the
 * next request, and a lookup in a local SQLite file costs well under a millisecond.
 */
function authCacheTtlMs(config: Config): number | undefined {
  return config.distributed ? undefined : 0;
}

/**
 * What the operator CLI (src/cli.ts) needs, without starting the service: the metadata store
 * (migrated), the shared state with an authenticator over it, so that a revocation reaches running
 * API processes, and, only when asked for, the event store. No bus, no pipeline, no bootstrap
 * secret. chDB is opened only on request because in embedded mode a running service holds its
 * directory.
 */
export interface OperatorContext {
  readonly metadata: MetadataStore;
  readonly authenticator: Authenticator;
  readonly events: EventStore | null;
  close(): Promise<void>;
}

export async function createOperatorContext(config: Config, logger: Logger, options: { events: boolean }): Promise<OperatorContext> {
  const d = config.distributed;
  const metadata = d ? createPostgresMetadataStore({ url: d.databaseUrl }) : createSqliteMetadataStore({ path: embeddedPaths(config).metadata });
  const state: StateStore = d ? new RedisStateStore({ url: d.redisUrl, logger: logger.child({ component: 'redis' }) }) : new MemoryStateStore();
  let events: EventStore | null = null;
  const close = async (): Promise<void> => {
    await Promise.allSettled([metadata.close(), state.close(), events?.close()]);
  };
  try {
    if (options.events) {
      if (d) {
        events = new ClickHouseEventStore({ url: d.clickhouseUrl, database: d.clickhouseDatabase });
      } else {
        const { ChdbEventStore } = await import('./adapters/event-store/chdb-event-store.js');
        events = new ChdbEventStore({ path: embeddedPaths(config).chdb, database: config.clickhouseDatabase });
      }
    }
    // As at service start: an operator may run the CLI before the service ever started.
    await metadata.migrate();
  } catch (err) {
    await close();
    throw err;
  }
  return { metadata, authenticator: new Authenticator({ metadata, state, logger, cacheTtlMs: authCacheTtlMs(config) }), events, close };
}
