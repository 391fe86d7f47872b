import type { ConsumedBatch, MessageBus, Subscription } from '../ports/message-bus.js';
import type { AttemptMeasurement, AttemptToClaim, ClaimedDelivery, DeliveryOutcome, DeliveryStore, FinishedAttempt } from '../ports/metadata.js';
import type { RetrySchedule } from '../domain/retry-schedule.js';
import type { Logger } from '../observability/logger.js';
import type { DestinationRef, DestinationTargets } from '../services/destination-target.js';
import { GatheredCalls } from '../lib/gathered-calls.js';
import { UNKNOWN_CHANNEL, type DeliveryOutcomeLabel, type ServiceMetrics } from '../observability/service-metrics.js';
import { EVENT_PARTITIONS, type Topics } from '../domain/messages/topics.js';
import type { AlertSender, DeliveryAttemptResult, DestinationTarget } from '../ports/alert-sender.js';
import { alertContentSchema } from '../domain/alerting.js';
import { decodeDeliveryJob } from '../domain/messages/delivery-job.js';
import { uuidv7Millis } from '../domain/uuid.js';

/**
 * How long one attempt owns its delivery. Longer than a send can take (the outbound client gives up
 * after 10 s, SMTP after at most 30 s idle): another worker takes the delivery over only when its
 * owner died mid-attempt, and that attempt counts as made.
 */
const LEASE_MS = 60_000;
/** How often the poller looks for due retries; a retry is late by at most this much. */
const POLL_INTERVAL_MS = 500;
const POLL_BATCH = 100;
/**
 * Attempts in flight per worker, across the deliveries topic's partitions and the poller: enough that
 * one slow receiver does not hold up the others, few enough that a crash cuts off a bounded number of
 * attempts (each is sent again after its lease; see docs/decisions/0010).
 */
export const CONCURRENT_ATTEMPTS = 32;

export interface DeliveryWorkerDeps {
  readonly bus: MessageBus;
  readonly topics: Topics;
  readonly store: DeliveryStore;
  readonly destinations: DestinationTargets;
  readonly sender: AlertSender;
  readonly schedule: RetrySchedule;
  readonly logger: Logger;
  readonly now?: () => number;
  readonly metrics?: Pick<ServiceMetrics, 'deliveries' | 'deliveryDuration' | 'deliveryDeadLetters' | 'alertDeliveredLatency'>;
}

/**
 * Sends alerts. First attempts come as jobs on the deliveries topic; retries and orphaned first
 * attempts are due rows, found by a poller. Either way an attempt starts by claiming the delivery row
 * (a conditional update on its attempt count and lease, see DeliveryStore.claim), so two workers, or
 * a job and the poller, never make the same attempt; a redelivered job for a delivery already
 * attempted finds nothing to claim.
 *
 * Outcomes: success → succeeded. A retriable failure (network, timeout, 408, 429, 5xx) → due again
 * after the schedule's next delay (longer if the receiver sent Retry-After); the last one, or a
 * failure that retrying cannot fix (other 4xx, a refused address, a deleted destination) → failed,
 * and a record goes to the deliveries dead-letter topic.
 *
 * Every attempt is recorded with the delivery: the claim lists it as in progress, and the outcome
 * comes with when the attempt started, how long it took (destination lookup and send) and the
 * receiver's HTTP status. An attempt whose worker died is marked abandoned by the claim that takes
 * the delivery over once the lease has run out.
 *
 * The metadata database's work per attempt (the claim, the destination, the outcome) is shared by the
 * attempts in progress at the same moment (GatheredCalls): one statement each for all the attempts
 * that asked while the previous one was out, instead of a few statements per attempt.
 */
export class DeliveryWorker {
  readonly #deps: DeliveryWorkerDeps;
  readonly #now: () => number;
  readonly #claims: GatheredCalls<AttemptToClaim, ClaimedDelivery | null>;
  readonly #targets: GatheredCalls<DestinationRef, DestinationTarget | null>;
  readonly #finishes: GatheredCalls<FinishedAttempt, boolean>;
  readonly #inFlight = new Set<Promise<void>>();
  /** Slots of CONCURRENT_ATTEMPTS taken; a freed slot passes straight to the first waiter. */
  #slotsTaken = 0;
  readonly #waiting: Array<() => void> = [];
  #subscription: Subscription | undefined;
  #poller: NodeJS.Timeout | undefined;
  #polling: Promise<void> | undefined;
  #stopped = false;

  constructor(deps: DeliveryWorkerDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
    this.#claims = new GatheredCalls(async (wanted) => {
      const now = this.#now();
      return handOut(wanted, await deps.store.claim(wanted, new Date(now), new Date(now + LEASE_MS)));
    });
    this.#targets = new GatheredCalls((refs) => deps.destinations.targets(refs));
    this.#finishes = new GatheredCalls(async (attempts) => {
      const recorded = await deps.store.finish(attempts);
      return attempts.map(({ id }) => recorded.has(id));
    });
  }

  async start(): Promise<void> {
    const { bus, topics } = this.#deps;
    await bus.ensureTopic(topics.deliveries, EVENT_PARTITIONS);
    await bus.ensureTopic(topics.deliveriesDeadLetter, EVENT_PARTITIONS);
    this.#subscription = await bus.subscribe({
      groupId: topics.deliveryGroup,
      topic: topics.deliveries,
      handler: (batch) => this.#handleJobs(batch),
      fromBeginning: true,
      batching: 'latency',
    });
    this.#poller = setInterval(() => {
      this.#polling ??= this.#poll().finally(() => (this.#polling = undefined));
    }, POLL_INTERVAL_MS);
  }

  /** Stops taking work and waits for the attempts in progress to be recorded. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#poller);
    await this.#subscription?.stop();
    this.#subscription = undefined;
    await this.#polling;
    await Promise.allSettled([...this.#inFlight]);
  }

  async #handleJobs(batch: ConsumedBatch): Promise<void> {
    const ids: string[] = [];
    for (const message of batch.messages) {
      const id = decodeDeliveryJob(message.value);
      // Nothing to dead-letter: the delivery, if any, is a row the poller still finds when due.
      if (id === null) this.#deps.logger.warn({ topic: message.topic, partition: message.partition, offset: message.offset }, 'unreadable delivery job skipped');
      else ids.push(id);
    }
    // A job is always a first attempt; a delivery attempted already (a redelivered job) is not claimed.
    await this.#attemptAll(ids.map((id) => ({ id, attempts: 0 })));
  }

  async #poll(): Promise<void> {
    if (this.#stopped) return;
    try {
      const due = await this.#deps.store.due(new Date(this.#now()), POLL_BATCH);
      await this.#attemptAll(due);
    } catch (err) {
      this.#deps.logger.warn({ err }, 'delivery poll failed; trying again shortly');
    }
  }

  async #attemptAll(deliveries: ReadonlyArray<{ id: string; attempts: number }>): Promise<void> {
    await Promise.all(deliveries.map(({ id, attempts }) => this.#inSlot(id, attempts)));
  }

  /** One attempt, once a slot is free: the batch handlers of every partition and the poller share them. */
  async #inSlot(id: string, attemptsMade: number): Promise<void> {
    if (this.#slotsTaken < CONCURRENT_ATTEMPTS) this.#slotsTaken += 1;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    const attempt = this.#attempt(id, attemptsMade);
    this.#inFlight.add(attempt);
    try {
      await attempt;
    } catch (err) {
      // The metadata database failed around the attempt. Nothing is lost: the row is still
      // pending, and once its lease (if it got one) runs out the poller finds it due.
      this.#deps.logger.warn({ err, deliveryId: id }, 'delivery attempt could not be recorded; the poller will retry it');
    } finally {
      this.#inFlight.delete(attempt);
      const next = this.#waiting.shift();
      if (next) next();
      else this.#slotsTaken -= 1;
    }
  }

  async #attempt(id: string, attemptsMade: number): Promise<void> {
    const claimed = await this.#claims.call({ id, attemptsMade });
    if (!claimed) return;
    const { result, channel, measured, eventAcceptedAt } = await this.#measured(claimed);
    const finish = (outcome: DeliveryOutcome): Promise<boolean> => this.#finishes.call({ id, attempts: claimed.attempts, outcome, measured });
    const counted = (outcome: DeliveryOutcomeLabel): void => this.#deps.metrics?.deliveries.inc({ channel, outcome });
    const log = { deliveryId: id, appId: claimed.appId, ruleId: claimed.ruleId, attempt: claimed.attempts, status: result.status };
    if (result.ok) {
      await finish({ status: 'succeeded', lastError: null, nextAttemptAt: null });
      counted('succeeded');
      if (eventAcceptedAt !== undefined) this.#deps.metrics?.alertDeliveredLatency.observe({ channel }, Math.max(0, this.#now() - eventAcceptedAt) / 1000);
      this.#deps.logger.info(log, 'alert delivered');
      return;
    }
    const delay = result.retriable ? this.#deps.schedule.nextRetryDelayMs(claimed.attempts, { retryAfterMs: result.retryAfterMs }) : null;
    if (delay !== null) {
      await finish({ status: 'pending', lastError: result.error, nextAttemptAt: new Date(this.#now() + delay) });
      counted('retry');
      this.#deps.logger.warn({ ...log, error: result.error, retryInMs: delay }, 'alert delivery failed; will retry');
      return;
    }
    await finish({ status: 'failed', lastError: result.error, nextAttemptAt: null });
    counted('failed');
    await this.#deps.bus.produce(this.#deps.topics.deliveriesDeadLetter, [
      {
        key: id,
        value: Buffer.from(JSON.stringify({ v: 1, deliveryId: id, appId: claimed.appId, ruleId: claimed.ruleId, eventId: claimed.eventId, attempts: claimed.attempts, error: result.error })),
      },
    ]);
    this.#deps.metrics?.deliveryDeadLetters.inc({ channel });
    this.#deps.logger.warn({ ...log, error: result.error, retriable: result.retriable }, 'alert delivery failed for good; dead-lettered');
  }

  /**
   * #send, timed: the start on the worker's clock, the duration on a monotonic one (a clock step
   * cannot make it negative), and the receiver's HTTP status from the result.
   */
  async #measured(delivery: ClaimedDelivery): Promise<{ result: DeliveryAttemptResult; channel: string; measured: AttemptMeasurement; eventAcceptedAt?: number }> {
    const startedAt = new Date(this.#now());
    const started = process.hrtime.bigint();
    const sent = await this.#send(delivery);
    const durationMs = Math.round(Number(process.hrtime.bigint() - started) / 1e6);
    return { ...sent, measured: { startedAt, durationMs, httpStatus: sent.result.status } };
  }

  /**
   * One attempt, the channel it went through (for the metrics; `unknown` when the destination is
   * gone) and, for an alert triggered by an event, when that event was accepted: the instant of its id,
   * a UUIDv7 the edge made then. An absence alert has no such event.
   */
  async #send(delivery: ClaimedDelivery): Promise<{ result: DeliveryAttemptResult; channel: string; eventAcceptedAt?: number }> {
    const destination = await this.#targets.call({ appId: delivery.appId, destinationId: delivery.destinationId });
    if (!destination) {
      return { channel: UNKNOWN_CHANNEL, result: { ok: false, retriable: false, status: null, error: 'the destination no longer exists', retryAfterMs: null } };
    }
    const channel = destination.type;
    const alert = alertContentSchema.safeParse(safeJson(delivery.payload));
    if (!alert.success) return { channel, result: { ok: false, retriable: false, status: null, error: 'the stored alert is unreadable', retryAfterMs: null } };
    const eventAcceptedAt = alert.data.kind === 'absence' ? undefined : uuidv7Millis(alert.data.eventId);
    const started = process.hrtime.bigint();
    try {
      return { channel, eventAcceptedAt, result: await this.#deps.sender.send(destination, alert.data, delivery.id) };
    } catch (err) {
      // Senders report failures as results; a throw is a bug, retried like a network error.
      this.#deps.logger.error({ err, deliveryId: delivery.id }, 'alert sender threw');
      return { channel, result: { ok: false, retriable: true, status: null, error: 'unexpected error while sending', retryAfterMs: null } };
    } finally {
      this.#deps.metrics?.deliveryDuration.observe({ channel }, Number(process.hrtime.bigint() - started) / 1e9);
    }
  }
}

/**
 * Each claimed delivery to the first of the callers that asked for exactly that attempt; null to every
 * other caller. The same attempt asked for twice at once (its job and the poller) is still made once.
 */
export function handOut(wanted: readonly AttemptToClaim[], claimed: readonly ClaimedDelivery[]): Array<ClaimedDelivery | null> {
  const unclaimed = new Map(claimed.map((delivery) => [delivery.id, delivery]));
  return wanted.map(({ id, attemptsMade }) => {
    const delivery = unclaimed.get(id);
    if (delivery?.attempts !== attemptsMade + 1) return null;
    unclaimed.delete(id);
    return delivery;
  });
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
