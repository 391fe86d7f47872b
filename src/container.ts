import path from 'node:path';
import type { Registry } from 'prom-client';
import type { Config } from './config.js';
import type { MessageBus } from './ports/message-bus.js';
import { KafkaBus } from './adapters/bus/kafka-bus.js';
import { MemoryBus } from './adapters/bus/memory-bus.js';
import { SqliteBusJournal } from './adapters/bus/sqlite-journal.js';
import type { EventStore } from './ports/event-store.js';
import { ClickHouseEventStore } from './adapters/event-store/clickhouse-event-store.js';
import type { StateStore } from './ports/state-store.js';
import { RedisStateStore } from './adapters/state/redis-state-store.js';
import { PushedVersions } from './services/pushed-versions.js';
import { MemoryStateStore } from './adapters/state/memory-state-store.js';
import type { RateLimiter } from './ports/rate-limiter.js';
import { RedisRateLimiter } from './adapters/rate-limit/redis-rate-limiter.js';
import { MemoryRateLimiter } from './adapters/rate-limit/memory-rate-limiter.js';
import { createPostgresMetadataStore, createSqliteMetadataStore } from './adapters/metadata/metadata-store.js';
import type { MetadataStore } from './ports/metadata.js';
import type { Logger } from './observability/logger.js';
import { instrumentEventStore } from './observability/event-store-metrics.js';
import { createMetricsRegistry } from './observability/metrics.js';
import { VERSION } from './build-info.js';
import { createServiceMetrics, kafkaBusMetrics, type KafkaBusMetrics } from './observability/service-metrics.js';
import { createAlertSender } from './delivery/channel-senders.js';
import { createSmtpMailer } from './delivery/mailer.js';
import { createOutboundHttp } from './delivery/outbound-http.js';
import { createRetrySchedule } from './domain/retry-schedule.js';
import { busDeliveryQueue } from './pipeline/delivery-queue.js';
import { DeliveryWorker } from './pipeline/delivery-worker.js';
import { EventWorker } from './pipeline/event-worker.js';
import { AbsenceWatcher } from './pipeline/absence-watcher.js';
import { EventStoreUpkeep } from './pipeline/event-store-upkeep.js';
import { destinationTargets } from './services/destination-target.js';
import { EVENT_PARTITIONS, topicsFor, type Topics } from './domain/messages/topics.js';
import { busEventSink, type EventSink } from './services/event-sink.js';
import type { DependencyCheck } from './services/readiness.service.js';
import { createOperatorServices, createServices, type OperatorServices, type ServiceSettings, type Services } from './services/services.js';
import type { AlertSender } from './ports/alert-sender.js';

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
  /** Every use case, built once; the HTTP edge and the worker call these. */
  readonly services: Services;
  /** Per-account request budgets (RATE_LIMIT_POINTS per RATE_LIMIT_DURATION_S), shared by every API process. */
  readonly rateLimiter: RateLimiter;
  readonly topics: Topics;
  readonly sink: EventSink;
  /** Sends alerts and destination tests: guarded outbound HTTP, and SMTP when configured. */
  readonly alertSender: AlertSender;
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

/**
 * What embedded mode's bus may hold per topic that its worker has not finished: about 650,000 events
 * of the benchmark's size, minutes of ingest at a steady rate. Past it (chDB down for long), ingest
 * answers 503 with Retry-After until the worker catches up, instead of the process filling its memory
 * (the bus keeps a copy of the journal in memory) and failing again at every restart.
 */
const EMBEDDED_BUS_MAX_RETAINED_BYTES = 256 * 1024 * 1024;

/**
 * How long embedded mode's worker lets a batch fill before storing it (see MemoryBusOptions.fetchWait):
 * the in-process counterpart of the Kafka consumer's fetch wait, shorter because embedded mode promises
 * events readable sooner. Without it a steady trickle of single events became an INSERT every few
 * milliseconds, each a part for chDB to merge on the cores the edge needs.
 */
const EMBEDDED_BUS_FETCH_WAIT = { minBytes: 1024 * 1024, maxWaitMs: 100 };
/**
 * How long embedded mode's rule evaluation and alert sending let a batch gather more (see
 * MemoryBusOptions.latencyWaitMs): without it a busy edge's every produce call was a batch of its own,
 * and a commit to the journal, for each of them.
 */
const EMBEDDED_BUS_LATENCY_WAIT_MS = 5;

/**
 * Least time between two batches of rule evaluation, and of alert sending, from Kafka (see
 * KafkaBusOptions.latencyGapMs): without it a busy edge's every produce call was a fetch and an
 * offset commit of its own for each of them, whose CPU, on a host the edge shares, came out of the
 * edge's throughput (bench/NOTES.md). An alert waits at most this much more, and only while its
 * group's batches follow one another at the head of the stream; 25 ms bought the edge more but put
 * the alerts' p99 up several times over.
 */
const KAFKA_LATENCY_GAP_MS = 10;

/** Where embedded mode keeps its files; the service and the CLI must open the very same ones. */
function embeddedPaths(config: Config): { metadata: string; chdb: string; bus: string } {
  return { metadata: path.join(config.dataDir, 'metadata.sqlite'), chdb: path.join(config.dataDir, 'chdb'), bus: path.join(config.dataDir, 'bus.sqlite') };
}

/**
 * The adapter of each store for the mode: the one choice of the service and the operator CLI alike,
 * so the CLI always opens exactly what the service uses.
 */
function openMetadata(config: Config): MetadataStore {
  const d = config.distributed;
  return d ? createPostgresMetadataStore({ url: d.databaseUrl }) : createSqliteMetadataStore({ path: embeddedPaths(config).metadata });
}

function openState(config: Config, logger: Logger): StateStore {
  const d = config.distributed;
  return d ? new RedisStateStore({ url: d.redisUrl, keyPrefix: d.redisKeyPrefix, logger: logger.child({ component: 'redis' }) }) : new MemoryStateStore();
}

/**
 * Distributed mode's caches trust versions pushed through Redis (no read per request); embedded mode's
 * read them from memory and SQLite's write mark (services.ts), so it needs nothing here.
 */
function openVersions(config: Config, state: StateStore, logger: Logger): PushedVersions | undefined {
  return config.distributed ? new PushedVersions(state, logger.child({ component: 'cache-versions' })) : undefined;
}

async function openEvents(config: Config): Promise<EventStore> {
  const d = config.distributed;
  const retentionDays = config.events.retentionDays;
  if (d) return new ClickHouseEventStore({ urls: d.clickhouseUrls, database: d.clickhouseDatabase, cluster: d.clickhouseCluster ?? undefined, retentionDays });
  // Loaded only in embedded mode: chDB is a native engine published for linux-x64 only, and a
  // distributed deployment (on linux-arm64, or from the slim image, which leaves it out) must not need it.
  let chdb: typeof import('./adapters/event-store/chdb-event-store.js');
  try {
    chdb = await import('./adapters/event-store/chdb-event-store.js');
  } catch (err) {
    if (!isMissingPackage(err, 'chdb')) throw err;
    throw new Error(
      'embedded mode needs chDB, which this installation does not have (the slim image carries distributed mode only, and chDB is published for linux-x64 only): set KAFKA_BROKERS and the other distributed settings, or run the full image',
      { cause: err },
    );
  }
  return new chdb.ChdbEventStore({ path: embeddedPaths(config).chdb, database: config.clickhouseDatabase, retentionDays });
}

/** Whether `err` says that `name` (or a module of it) could not be found. */
function isMissingPackage(err: unknown, name: string): boolean {
  if (!(err instanceof Error) || !('code' in err) || (err.code !== 'ERR_MODULE_NOT_FOUND' && err.code !== 'MODULE_NOT_FOUND')) return false;
  return err.message.includes(`'${name}'`) || err.message.includes(`"${name}"`) || err.message.includes(`/${name}/`);
}

async function openAdapters(config: Config, logger: Logger, busMetrics: KafkaBusMetrics | undefined): Promise<Adapters> {
  const metadata = openMetadata(config);
  const events = await openEvents(config);
  const state = openState(config, logger);
  const d = config.distributed;
  if (!d) {
    // The in-process bus and state cannot fail independently of the process, so readiness skips them.
    return {
      metadata,
      events,
      bus: new MemoryBus({
        journal: new SqliteBusJournal(embeddedPaths(config).bus),
        maxRetainedBytesPerTopic: EMBEDDED_BUS_MAX_RETAINED_BYTES,
        fetchWait: EMBEDDED_BUS_FETCH_WAIT,
        latencyWaitMs: EMBEDDED_BUS_LATENCY_WAIT_MS,
        logger: logger.child({ component: 'bus' }),
      }),
      state,
      checks: [
        { name: 'sqlite', ping: () => metadata.ping() },
        { name: 'chdb', ping: () => events.ping() },
      ],
    };
  }
  const bus = new KafkaBus({
    brokers: [...d.kafkaBrokers],
    clientId: 'event-alerting',
    fetch: d.kafkaFetch,
    latencyGapMs: KAFKA_LATENCY_GAP_MS,
    logger: logger.child({ component: 'kafka' }),
    metrics: busMetrics,
  });
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

/**
 * Builds every part of the configured role and starts the pipeline's consumers (roles all and worker).
 * `processMetrics: false` leaves the process-wide defaults out of the registry: for a container that
 * runs in a worker thread beside another that reports them.
 */
export async function createContainer(config: Config, logger: Logger, options: { processMetrics?: boolean } = {}): Promise<Container> {
  const topics = topicsFor(config.topicPrefix);
  // One registry per container; every part records into it and GET /metrics serves it (docs/metrics.md).
  const registry = createMetricsRegistry({ processDefaults: options.processMetrics ?? true });
  const serviceMetrics = createServiceMetrics(registry);
  serviceMetrics.buildInfo.set({ version: VERSION, node_version: process.version, mode: config.distributed ? 'distributed' : 'embedded' }, 1);
  // Kafka's series exist in distributed mode only: embedded mode has no Kafka to report on.
  const busMetrics = config.distributed ? kafkaBusMetrics(serviceMetrics, topics) : undefined;
  const adapters = await openAdapters(config, logger, busMetrics);
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
  // Built here, but its stopper is pushed last (below), so that it stops first.
  const sink = busEventSink(bus, topics, busMetrics);
  const versions = openVersions(config, state, logger);
  const services = createServices({
    metadata,
    events,
    state,
    versions,
    sink,
    alertSender,
    logger,
    checks,
    settings: serviceSettings(config),
    credentialLookups: serviceMetrics.credentialLookups,
  });
  const { ruleSets } = services;
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
    await services.accounts.ensureBootstrapSecret(config.bootstrap);
    stoppers.push({ name: 'state', stop: () => state.close() });
    if (versions) stoppers.push({ name: 'cache versions', stop: () => versions.close() });
    stoppers.push({ name: 'bus', stop: () => bus.close() });
    // Every role produces to or consumes from the events topic; creating it is idempotent.
    await bus.ensureTopic(topics.events, EVENT_PARTITIONS);
    if (config.role !== 'api') {
      const deliveryStore = metadata.deliveries;
      const deliveryWorker = new DeliveryWorker({
        bus,
        topics,
        store: deliveryStore,
        destinations: destinationTargets(metadata.destinations),
        sender: alertSender,
        schedule: createRetrySchedule(config.deliveryRetryScheduleMs),
        logger: logger.child({ component: 'delivery' }),
        metrics: serviceMetrics,
      });
      stoppers.push({ name: 'delivery worker', stop: () => deliveryWorker.stop() });
      await deliveryWorker.start();
      const deliveries = busDeliveryQueue({ bus, topics, store: deliveryStore });
      const absenceWatcher = new AbsenceWatcher({ state, ruleSets, deliveries, logger: logger.child({ component: 'rules' }) });
      stoppers.push({ name: 'absence watcher', stop: () => absenceWatcher.stop() });
      absenceWatcher.start();
      const upkeep = new EventStoreUpkeep({
        events,
        intervalMs: config.events.upkeepIntervalMs,
        logger: logger.child({ component: 'events' }),
        metrics: serviceMetrics,
      });
      stoppers.push({ name: 'event store upkeep', stop: () => upkeep.stop() });
      upkeep.start();
      const eventWorker = new EventWorker({ bus, events, state, topics, ruleSets, deliveries, logger, metrics: serviceMetrics });
      // Pushed last, so stopped first: the batches in progress are stored, or evaluated with their
      // deliveries queued, and committed before the delivery worker, the bus and the stores close.
      stoppers.push({ name: 'event worker', stop: () => eventWorker.stop() });
      await eventWorker.start();
    }
  } catch (err) {
    await stopAll();
    throw err;
  }
  // Pushed last, so stopped first (HTTP has drained by then): the produce calls of requests already
  // accepted into it finish, and their callers get their answers, while the bus and the stores are open.
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
    services,
    rateLimiter,
    topics,
    sink,
    alertSender,
    stop: () => (stopping ??= stopAll()),
  };
}

/** The configuration values the services act on, handed down as plain values. */
function serviceSettings(config: Config): ServiceSettings {
  return {
    idempotencyKeysPerApp: config.idempotencyKeysPerApp,
    allowPrivateAddresses: config.outbound.allowPrivate,
    emailConfigured: config.smtp.url !== null && config.smtp.from !== null,
  };
}

/**
 * What the operator CLI (src/cli.ts) needs, without starting the service: the account and credential
 * services over the metadata store (migrated) and the shared state, so that a revocation reaches
 * running API processes, and, only when asked for, the event store. No bus, no pipeline, no bootstrap
 * secret. chDB is opened only on request because in embedded mode a running service holds its
 * directory.
 */
export interface OperatorContext {
  readonly services: OperatorServices;
  readonly events: EventStore | null;
  close(): Promise<void>;
}

export async function createOperatorContext(config: Config, logger: Logger, options: { events: boolean }): Promise<OperatorContext> {
  const metadata = openMetadata(config);
  const state = openState(config, logger);
  const versions = openVersions(config, state, logger);
  let events: EventStore | null = null;
  const close = async (): Promise<void> => {
    await versions?.close();
    await Promise.allSettled([metadata.close(), state.close(), events?.close()]);
  };
  try {
    if (options.events) events = await openEvents(config);
    // As at service start: an operator may run the CLI before the service ever started.
    await metadata.migrate();
  } catch (err) {
    await close();
    throw err;
  }
  return { services: createOperatorServices({ metadata, state, versions, logger }), events, close };
}
