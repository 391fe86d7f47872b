import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Topics } from '../domain/messages/topics.js';
import { CHANNELS } from '../domain/alerting.js';
import { PlainHistogram, type HistogramSeries } from './plain-histogram.js';
import { RequestTally } from './request-tally.js';

/**
 * The service's own metrics, exactly as docs/metrics.md lists them (the Prometheus rules and the
 * Grafana dashboard are written against that table: a name or label changes there first).
 *
 * No label carries an app, account, customer or event name: every label value comes from a small
 * fixed set (route templates, status codes, reasons, channels, topics without their prefix).
 */

/** Why the events of a request were not accepted (eas_events_rejected_total). */
export const EVENT_REJECTION_REASONS = ['validation', 'schema', 'payload_too_large', 'unauthenticated', 'rate_limited', 'unavailable', 'conflict'] as const;
export type EventRejectionReason = (typeof EVENT_REJECTION_REASONS)[number];

export const TRIGGER_OUTCOMES = ['fired', 'again', 'cooldown', 'counted', 'seen', 'late'] as const;
export const DELIVERY_OUTCOMES = ['succeeded', 'retry', 'failed'] as const;
export type DeliveryOutcomeLabel = (typeof DELIVERY_OUTCOMES)[number];
/** A delivery whose destination was deleted has no channel left to name. */
export const UNKNOWN_CHANNEL = 'unknown';

export interface ServiceMetrics {
  /** eas_http_requests_total and eas_http_request_duration_seconds. */
  readonly httpRequests: RequestTally;
  readonly eventsAccepted: Counter;
  readonly eventsRejected: Counter<'reason'>;
  readonly kafkaProduceDuration: Histogram<'topic'>;
  readonly kafkaProduceMessages: Counter<'topic'>;
  readonly kafkaProduceErrors: Counter<'topic'>;
  readonly kafkaConsumerLag: Gauge<'topic' | 'group' | 'partition'>;
  readonly kafkaConsumerReplacements: Counter<'topic' | 'group'>;
  readonly clickhouseInsertRows: Counter;
  readonly clickhouseInsertBatches: Counter;
  readonly clickhouseInsertDuration: Histogram;
  readonly clickhouseInsertErrors: Counter;
  readonly eventDaysDropped: Counter;
  readonly eventDaysCompacted: Counter;
  readonly eventDaysRolledUp: Counter;
  readonly eventUpkeepErrors: Counter;
  readonly eventsDeadLettered: Counter;
  readonly ruleEvaluations: Counter;
  readonly ruleTriggers: Counter<'outcome'>;
  readonly deliveries: Counter<'channel' | 'outcome'>;
  readonly deliveryDuration: Histogram<'channel'>;
  readonly deliveryDeadLetters: Counter<'channel'>;
  readonly dependencyUp: Gauge<'dependency'>;
  readonly credentialLookups: Counter<'result'>;
  /** Observed once per stored event: a PlainHistogram's one series. */
  readonly eventStoredLatency: HistogramSeries;
  readonly alertDeliveredLatency: Histogram<'channel'>;
  readonly buildInfo: Gauge<'version' | 'node_version' | 'mode'>;
}

/**
 * Bucket bounds, in seconds, each chosen for what the operation normally costs and where it gives up
 * (HTTP's are in request-tally.ts). A produce with acks=-1 takes milliseconds; a call is cut off
 * after 5 s (kafka-bus.ts).
 */
const PRODUCE_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** An INSERT of a batch: milliseconds to a few seconds for a large one on a busy server. */
const INSERT_BUCKETS = [0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** One alert: a receiver's round trip; the outbound client stops at 10 s, SMTP at 30 s. */
const DELIVERY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * From an event's acceptance (its 202) to a later moment of its life: stored, or its alert delivered.
 * Under a second normally, so the bounds are close below one (a half-second objective, and the tail
 * of a busy store before it, are readable); the fetch wait, a store outage or a receiver's retries
 * stretch it to minutes.
 */
const EVENT_AGE_BUCKETS = [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 10, 30, 60, 300, 1800];

/**
 * The metrics of one registry. Idempotent per registry: a metric already registered under its name is
 * reused, so the container and the HTTP edge (which is handed only the registry it serves) record
 * into the same objects, while two containers in one process (tests) keep separate ones.
 */
export function createServiceMetrics(registry: Registry): ServiceMetrics {
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> =>
    (registry.getSingleMetric(name) as Counter<L> | undefined) ?? new Counter<L>({ name, help, labelNames, registers: [registry] });
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []): Gauge<L> =>
    (registry.getSingleMetric(name) as Gauge<L> | undefined) ?? new Gauge<L>({ name, help, labelNames, registers: [registry] });
  const histogram = <L extends string>(name: string, help: string, buckets: number[], labelNames: readonly L[] = []): Histogram<L> =>
    (registry.getSingleMetric(name) as Histogram<L> | undefined) ?? new Histogram<L>({ name, help, labelNames, buckets, registers: [registry] });

  const metrics: ServiceMetrics = {
    httpRequests: RequestTally.register(registry),
    eventsAccepted: counter('eas_events_accepted_total', 'Events answered with 202 (durable)'),
    eventsRejected: counter('eas_events_rejected_total', 'Events of ingest requests that were not accepted, by reason', ['reason']),
    kafkaProduceDuration: histogram('eas_kafka_produce_duration_seconds', 'One Kafka produce call, from send to acknowledgement', PRODUCE_BUCKETS, ['topic']),
    kafkaProduceMessages: counter('eas_kafka_produce_messages_total', 'Messages produced to Kafka and acknowledged', ['topic']),
    kafkaProduceErrors: counter('eas_kafka_produce_errors_total', 'Kafka produce calls that failed, including ones refused by the open circuit breaker', ['topic']),
    kafkaConsumerLag: gauge('eas_kafka_consumer_lag', 'Messages behind the log end, per consumer group and partition this process consumes', ['topic', 'group', 'partition']),
    kafkaConsumerReplacements: counter('eas_kafka_consumer_replacements_total', 'Kafka consumers that crashed and were replaced by a new one', ['topic', 'group']),
    clickhouseInsertRows: counter('eas_clickhouse_insert_rows_total', 'Rows inserted into the events table'),
    clickhouseInsertBatches: counter('eas_clickhouse_insert_batches_total', 'INSERT statements into the events table'),
    clickhouseInsertDuration: histogram('eas_clickhouse_insert_duration_seconds', 'One INSERT into the events table', INSERT_BUCKETS),
    clickhouseInsertErrors: counter('eas_clickhouse_insert_errors_total', 'Failed INSERTs into the events table (the batch is retried)'),
    eventDaysDropped: counter('eas_event_partitions_dropped_total', 'Days of events deleted from the event store for being past the retention'),
    eventDaysCompacted: counter('eas_event_partitions_compacted_total', 'Past days of the event store merged into one part (which also removes repeated copies of an event)'),
    eventDaysRolledUp: counter('eas_event_partitions_rolled_up_total', 'Past days of the event store whose counts were rolled up for the counting reads'),
    eventUpkeepErrors: counter('eas_event_upkeep_errors_total', 'Rounds of event store upkeep (retention, compaction) that failed; the next interval retries'),
    eventsDeadLettered: counter('eas_events_dead_lettered_total', 'Event messages or entries sent to the events dead-letter topic'),
    ruleEvaluations: counter('eas_rule_evaluations_total', "(rule, event) pairs evaluated: events of a watched name times that name's enabled rules"),
    ruleTriggers: counter('eas_rule_triggers_total', 'Rule matches, by outcome: fired, again (redelivered event), cooldown, counted (toward a threshold or an absence clock), seen (redelivered, counted before), late (a threshold event more than a window older than the newest of its group)', ['outcome']),
    deliveries: counter('eas_deliveries_total', 'Alert delivery attempts, by channel and outcome', ['channel', 'outcome']),
    deliveryDuration: histogram('eas_delivery_duration_seconds', 'One alert delivery attempt', DELIVERY_BUCKETS, ['channel']),
    deliveryDeadLetters: counter('eas_delivery_dead_letters_total', 'Alert deliveries dead-lettered (failed for good)', ['channel']),
    dependencyUp: gauge('eas_dependency_up', 'Whether the dependency answered the last readiness check (1) or not (0)', ['dependency']),
    credentialLookups: counter('eas_credential_lookups_total', 'API keys and client secrets looked up in the metadata database because the in-process cache could not answer, by result (found, unknown)', ['result']),
    eventStoredLatency: PlainHistogram.register(registry, 'eas_event_stored_latency_seconds', 'From an event being accepted (202) to the end of the INSERT that stored it', EVENT_AGE_BUCKETS).series(),
    alertDeliveredLatency: histogram(
      'eas_alert_delivered_latency_seconds',
      'From the acceptance of the event that triggered an alert to the alert delivered, retries included (absence alerts have no such event)',
      EVENT_AGE_BUCKETS,
      ['channel'],
    ),
    // The same in every thread of a process: merged expositions keep one value instead of the sum.
    buildInfo:
      (registry.getSingleMetric('eas_build_info') as Gauge<'version' | 'node_version' | 'mode'> | undefined) ??
      new Gauge({ name: 'eas_build_info', help: 'The running build: always 1, its labels are the facts', labelNames: ['version', 'node_version', 'mode'], aggregator: 'first', registers: [registry] }),
  };

  // Series of the small fixed label sets exist from the start, at 0: a rate() or an alert over them
  // then sees the first increment instead of a series that appears out of nowhere.
  for (const reason of EVENT_REJECTION_REASONS) metrics.eventsRejected.inc({ reason }, 0);
  for (const outcome of TRIGGER_OUTCOMES) metrics.ruleTriggers.inc({ outcome }, 0);
  for (const result of ['found', 'unknown']) metrics.credentialLookups.inc({ result }, 0);
  for (const channel of CHANNELS) {
    for (const outcome of DELIVERY_OUTCOMES) metrics.deliveries.inc({ channel, outcome }, 0);
    metrics.deliveryDeadLetters.inc({ channel }, 0);
  }
  return metrics;
}

/** What the Kafka bus reports; topics arrive with their deployment prefix and leave without it. */
export interface KafkaBusMetrics {
  /** A produce call acknowledged after `seconds`. */
  produced(topic: string, messages: number, seconds: number): void;
  /** A produce call failed, or was refused before it reached Kafka. */
  produceFailed(topic: string): void;
  /** Messages of a partition behind the log end for a consumer group, as of the batch just fetched. */
  consumerLag(topic: string, group: string, partition: number, lag: number): void;
  /** The partitions of `topic` this process's member of `group` now consumes; the lag of the others is no longer its to report. */
  partitionsAssigned(topic: string, group: string, partitions: readonly number[]): void;
  /** A consumer of `topic` in `group` crashed; a new one is being started in its place. */
  consumerReplaced(topic: string, group: string): void;
}

export function kafkaBusMetrics(metrics: ServiceMetrics, topics: Topics): KafkaBusMetrics {
  const label = nameLabeller(topics);
  /** The partitions whose lag was reported, per topic and group (by `groupLabels`'s key). */
  const lagReported = new Map<string, Set<number>>();
  const groupLabels = (topic: string, group: string) => {
    const labels = { topic: label(topic), group: label(group) };
    return { labels, key: `${labels.topic}\u0000${labels.group}` };
  };
  for (const topic of [topics.events, topics.deliveries, topics.eventsDeadLetter, topics.deliveriesDeadLetter]) {
    metrics.kafkaProduceMessages.inc({ topic: label(topic) }, 0);
    metrics.kafkaProduceErrors.inc({ topic: label(topic) }, 0);
  }
  for (const [topic, group] of [
    [topics.events, topics.workerGroup],
    [topics.events, topics.rulesGroup],
    [topics.deliveries, topics.deliveryGroup],
  ] as const) {
    metrics.kafkaConsumerReplacements.inc(groupLabels(topic, group).labels, 0);
  }
  return {
    produced(topic, messages, seconds) {
      const labels = { topic: label(topic) };
      metrics.kafkaProduceDuration.observe(labels, seconds);
      metrics.kafkaProduceMessages.inc(labels, messages);
    },
    produceFailed(topic) {
      metrics.kafkaProduceErrors.inc({ topic: label(topic) });
    },
    consumerLag(topic, group, partition, lag) {
      const { labels, key } = groupLabels(topic, group);
      metrics.kafkaConsumerLag.set({ ...labels, partition: String(partition) }, Math.max(0, lag));
      let reported = lagReported.get(key);
      if (!reported) lagReported.set(key, (reported = new Set()));
      reported.add(partition);
    },
    consumerReplaced(topic, group) {
      metrics.kafkaConsumerReplacements.inc(groupLabels(topic, group).labels);
    },
    partitionsAssigned(topic, group, partitions) {
      const { labels, key } = groupLabels(topic, group);
      const reported = lagReported.get(key);
      if (!reported) return;
      const kept = new Set(partitions);
      for (const partition of reported) {
        if (kept.has(partition)) continue;
        metrics.kafkaConsumerLag.remove({ ...labels, partition: String(partition) });
        reported.delete(partition);
      }
    },
  };
}

/**
 * `events`, `deliveries`, `worker`, … for the deployment's own topics and consumer groups; `other` for
 * anything else, so that a name never adds series without bound.
 */
function nameLabeller(topics: Topics): (name: string) => string {
  const prefix = topics.events.slice(0, topics.events.length - 'events'.length);
  const names = [topics.events, topics.eventsDeadLetter, topics.deliveries, topics.deliveriesDeadLetter, topics.workerGroup, topics.rulesGroup, topics.deliveryGroup];
  const known = new Map<string, string>(names.map((name) => [name, name.slice(prefix.length)]));
  return (name) => known.get(name) ?? 'other';
}
