import { raw, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/knex';
import { v7 as uuidv7 } from 'uuid';
import type {
  AttemptToClaim,
  ClaimedDelivery,
  DeliveryListQuery,
  DeliveryOutcome,
  DeliveryRecord,
  DeliveryRepository,
  DeliveryRetryResult,
  DeliveryWithAttempts,
  FinishedAttempt,
  NewDelivery,
} from '../../../ports/metadata.js';
import { DeliveryEntity } from '../entities/delivery.entity.js';
import { DeliveryAttemptEntity, type DeliveryAttempt } from '../entities/delivery-attempt.entity.js';
import { toDeliveryAttemptRecord, toDeliveryRecord } from '../records.js';
import { DETACHED, type EntityManagerSource } from '../unit-of-work.js';
import { entryOf } from '../../../lib/map-entry.js';

/** The error of an attempt whose lease ran out before its worker recorded how it went. */
export const ABANDONED_ATTEMPT_ERROR = 'no outcome was recorded before the attempt lease ran out (its worker stopped); attempted again';

/**
 * Deliveries, for the worker (created once per rule action and event, attempts claimed and recorded)
 * and the API (list, one with its attempts, retry). Creation is a short statement or two of its own,
 * never part of a transaction: it settles races by letting an insert fail, which would abort a
 * PostgreSQL transaction. A claim and a finish each write the delivery and its attempt rows in one
 * short transaction of their own; nothing in them can fail by design.
 */
export class OrmDeliveryRepository implements DeliveryRepository {
  constructor(private readonly em: EntityManagerSource) {}

  /**
   * The unique index on (rule_id, action_id, event_id) makes creation idempotent: an event processed
   * twice (the pipeline is at-least-once), even by two workers at once, yields one delivery each.
   * Existing rows are looked up first, so a redelivered batch costs no failed insert; should another
   * worker insert the same rows in between, each row is retried on its own. The lookup goes by event id
   * (its own index, see migration 0004), which reads only the deliveries of these events whatever a
   * rule's history; their other rules' rows are simply not matched below.
   */
  async createMany(rows: readonly NewDelivery[], firstAttemptDue: Date): Promise<string[]> {
    if (rows.length === 0) return [];
    const existing = await this.em().find(
      DeliveryEntity,
      { eventId: { $in: [...new Set(rows.map((row) => row.eventId))] } },
      { fields: ['ruleId', 'actionId', 'eventId'], disableIdentityMap: true },
    );
    const known = new Set(existing.map(uniqueKey));
    const missing = rows.filter((row) => !known.has(uniqueKey(row)));
    const fresh = missing.map((row) => newRow(row, firstAttemptDue));
    try {
      if (fresh.length > 0) await this.em().insertMany(DeliveryEntity, fresh);
      return fresh.map((row) => row.id);
    } catch (err) {
      if (!(err instanceof UniqueConstraintViolationException)) throw err;
      const outcomes = await Promise.all(missing.map((row) => this.createIfAbsent(row, firstAttemptDue)));
      return outcomes.filter((o) => o.created).map((o) => o.delivery.id);
    }
  }

  /** One delivery, created pending when absent; `created` false when it existed (the winner's row). */
  async createIfAbsent(input: NewDelivery, firstAttemptDue: Date): Promise<{ delivery: DeliveryRecord; created: boolean }> {
    const row = newRow(input, firstAttemptDue);
    try {
      // One statement outside any transaction, so a violation aborts nothing else on PostgreSQL.
      await this.em().insert(DeliveryEntity, row);
    } catch (err) {
      if (!(err instanceof UniqueConstraintViolationException)) throw err;
      const { ruleId, actionId, eventId } = input;
      return { delivery: toDeliveryRecord(await this.em().findOneOrFail(DeliveryEntity, { ruleId, actionId, eventId })), created: false };
    }
    return { delivery: toDeliveryRecord(await this.em().findOneOrFail(DeliveryEntity, { id: row.id })), created: true };
  }

  async due(now: Date, limit: number): Promise<Array<{ id: string; attempts: number }>> {
    const rows = await this.em().find(
      DeliveryEntity,
      { status: 'pending', nextAttemptAt: { $lte: now } },
      { fields: ['id', 'attempts'], orderBy: { nextAttemptAt: 'asc' }, limit, disableIdentityMap: true },
    );
    return rows.map(({ id, attempts }) => ({ id, attempts }));
  }

  /**
   * A conditional update decides who makes an attempt: a delivery matches only while it is pending
   * with exactly `attemptsMade` attempts and (past the first) due. It counts the attempt and pushes the
   * due time to the lease's end, so the poller takes the delivery over only if this worker dies. Two
   * workers asking for the same attempt at once: the database lets one update the row, and for the
   * other the row no longer matches. RETURNING (PostgreSQL and SQLite alike) hands back what was taken.
   */
  async claim(attempts: readonly AttemptToClaim[], now: Date, leaseUntil: Date): Promise<ClaimedDelivery[]> {
    if (attempts.length === 0) return [];
    return this.em().transactional(async (em) => {
      const rows: unknown = await em
        .createQueryBuilder(DeliveryEntity)
        .update({ attempts: raw('attempts + 1'), nextAttemptAt: leaseUntil, updatedAt: now })
        .where({
          status: 'pending',
          $or: attempts.map(({ id, attemptsMade }) => ({ id, attempts: attemptsMade, ...(attemptsMade === 0 ? {} : { nextAttemptAt: { $lte: now } }) })),
        })
        .returning(['id', 'app', 'ruleId', 'actionId', 'destinationId', 'eventId', 'attempts', 'earlierAttempts', 'payload'])
        .execute('all');
      const claimed = (rows as ClaimedRow[]).map(({ app, attempts: made, earlierAttempts, ...row }) => ({
        delivery: { ...row, appId: app, attempts: Number(made) },
        number: Number(earlierAttempts) + Number(made),
      }));
      if (claimed.length === 0) return [];
      // Past the first attempt of a schedule, the one before may have lost its lease: still in
      // progress, its worker never finished it. (The last attempt before a retry by hand always
      // finished: only a finish makes a delivery failed.)
      const followUps = claimed.filter(({ delivery }) => delivery.attempts > 1).map(({ delivery }) => delivery.id);
      if (followUps.length > 0) {
        await em
          .createQueryBuilder(DeliveryAttemptEntity)
          .update({ outcome: 'abandoned', error: ABANDONED_ATTEMPT_ERROR })
          .where({ deliveryId: { $in: followUps }, outcome: 'in_progress' })
          .execute();
      }
      await em.insertMany(
        DeliveryAttemptEntity,
        claimed.map(({ delivery, number }) => ({
          deliveryId: delivery.id,
          number,
          appId: delivery.appId,
          startedAt: now,
          durationMs: null,
          outcome: 'in_progress' as const,
          httpStatus: null,
          error: null,
        })),
      );
      return claimed.map(({ delivery }) => delivery);
    });
  }

  async finish(attempts: readonly FinishedAttempt[]): Promise<Set<string>> {
    if (attempts.length === 0) return new Set();
    const updatedAt = new Date();
    return this.em().transactional(async (em) => {
      // The attempts whose claim still held, by delivery id and attempt count: one batch may hold two
      // attempts of one delivery, an abandoned one's late outcome and the one that took over.
      const recorded = new Map<string, { appId: string; earlierAttempts: number }>();
      const key = (id: string, attempts: number | string) => `${id}/${Number(attempts)}`;
      for (const { outcome, attempts: same } of groupByOutcome(attempts)) {
        const rows: unknown = await em
          .createQueryBuilder(DeliveryEntity)
          .update({ ...outcome, updatedAt })
          .where({ status: 'pending', $or: same.map(({ id, attempts: count }) => ({ id, attempts: count })) })
          .returning(['id', 'app', 'attempts', 'earlierAttempts'])
          .execute('all');
        for (const row of rows as FinishedRow[]) recorded.set(key(row.id, row.attempts), { appId: row.app, earlierAttempts: Number(row.earlierAttempts) });
      }
      const held = attempts.filter(({ id, attempts: count }) => recorded.has(key(id, count)));
      const row = (attempt: FinishedAttempt): DeliveryAttempt => {
        const { appId, earlierAttempts } = recorded.get(key(attempt.id, attempt.attempts))!;
        return {
          deliveryId: attempt.id,
          number: earlierAttempts + attempt.attempts,
          appId,
          outcome: attempt.outcome.status === 'succeeded' ? 'succeeded' : 'failed',
          error: attempt.outcome.lastError,
          startedAt: attempt.measured?.startedAt ?? updatedAt,
          durationMs: attempt.measured?.durationMs ?? null,
          httpStatus: attempt.measured?.httpStatus ?? null,
        };
      };
      await completeAttempts(em, held.filter((a) => a.measured !== undefined).map(row), ['startedAt', 'durationMs', 'httpStatus', 'outcome', 'error']);
      await completeAttempts(em, held.filter((a) => a.measured === undefined).map(row), ['outcome', 'error']);
      return new Set(held.map(({ id }) => id));
    });
  }

  async get(id: string): Promise<DeliveryRecord | null> {
    const delivery = await this.em().findOne(DeliveryEntity, { id });
    return delivery && toDeliveryRecord(delivery);
  }

  async findWithAttempts(appId: string, id: string): Promise<DeliveryWithAttempts | null> {
    const em = this.em();
    const delivery = await em.findOne(DeliveryEntity, { id, app: appId }, DETACHED);
    if (!delivery) return null;
    // The primary key (delivery_id, number) reads them in order.
    const attempts = await em.find(DeliveryAttemptEntity, { deliveryId: id }, { ...DETACHED, orderBy: { number: 'asc' } });
    return { delivery: toDeliveryRecord(delivery), attempts: attempts.map(toDeliveryAttemptRecord) };
  }

  /**
   * The conditional update decides: only a failed delivery of this app changes, so two retries at
   * once, or a retry racing anything else, change it at most once. Due at `now`, it is found by the
   * workers' poller (every half second) like any due retry; `lastError` stays until the next attempt
   * has an outcome.
   */
  async retry(appId: string, id: string, now: Date): Promise<DeliveryRetryResult> {
    const rows: unknown = await this.em()
      .createQueryBuilder(DeliveryEntity)
      // Both databases evaluate every right-hand side on the row as it was: earlier_attempts takes
      // the attempts made before they start over at 0.
      .update({ status: 'pending', earlierAttempts: raw('earlier_attempts + attempts'), attempts: 0, nextAttemptAt: now, updatedAt: now })
      .where({ id, app: appId, status: 'failed' })
      .returning(['id'])
      .execute('all');
    const retried = (rows as unknown[]).length > 0;
    const delivery = await this.em().findOne(DeliveryEntity, { id, app: appId }, DETACHED);
    if (!delivery) return { outcome: 'not_found' };
    return { outcome: retried ? 'retried' : 'not_failed', delivery: toDeliveryRecord(delivery) };
  }

  /**
   * A page of an app's deliveries, newest first. Ids are UUIDv7, so id order is creation order and
   * "after the last row of the previous page" is a plain `id <` on the (app_id, id) index: a page
   * never repeats or skips a delivery while new ones are created.
   */
  async list(appId: string, query: DeliveryListQuery): Promise<DeliveryRecord[]> {
    const deliveries = await this.em().find(
      DeliveryEntity,
      {
        app: appId,
        ...(query.ruleId === undefined ? {} : { ruleId: query.ruleId }),
        ...(query.status === undefined ? {} : { status: query.status }),
        ...(query.after === undefined ? {} : { id: { $lt: query.after } }),
      },
      { orderBy: { id: 'desc' }, limit: query.limit },
    );
    return deliveries.map(toDeliveryRecord);
  }
}

function uniqueKey(row: { ruleId: string; actionId: string; eventId: string }): string {
  return `${row.ruleId}/${row.actionId}/${row.eventId}`;
}

function newRow(input: NewDelivery, firstAttemptDue: Date) {
  const now = new Date();
  const { appId, ...rest } = input;
  return { ...rest, id: uuidv7(), app: appId, status: 'pending' as const, attempts: 0, earlierAttempts: 0, lastError: null, nextAttemptAt: firstAttemptDue, createdAt: now, updatedAt: now };
}

/** A claimed row as RETURNING gives it, mapped to property names (the app is its id). */
interface ClaimedRow {
  id: string;
  app: string;
  ruleId: string;
  actionId: string;
  destinationId: string;
  eventId: string;
  attempts: number | string;
  earlierAttempts: number | string;
  payload: string;
}

/** A delivery whose finish was recorded, as RETURNING gives it. */
interface FinishedRow {
  id: string;
  app: string;
  attempts: number | string;
  earlierAttempts: number | string;
}

/**
 * Writes the outcomes of finished attempts onto their rows, in one statement. The claim inserted each
 * row, so this is an update; written as an upsert only so that it is one statement for rows that each
 * get their own values. Should a row be missing (an attempt claimed by a worker that recorded no
 * attempts, during a rolling upgrade), it is created; its delivery exists, since its finish just
 * updated it in this transaction. Only the columns in `merge` are written to an existing row.
 */
async function completeAttempts(em: SqlEntityManager, rows: readonly DeliveryAttempt[], merge: Array<keyof DeliveryAttempt & string>): Promise<void> {
  if (rows.length === 0) return;
  await em.createQueryBuilder(DeliveryAttemptEntity).insert([...rows]).onConflict(['deliveryId', 'number']).merge(merge).execute();
}

/** Attempts with the same outcome (every success has the same one) share one statement. */
function groupByOutcome(attempts: readonly FinishedAttempt[]): Array<{ outcome: DeliveryOutcome; attempts: FinishedAttempt[] }> {
  const groups = new Map<string, { outcome: DeliveryOutcome; attempts: FinishedAttempt[] }>();
  for (const attempt of attempts) {
    const { status, lastError, nextAttemptAt } = attempt.outcome;
    const key = JSON.stringify([status, lastError, nextAttemptAt?.getTime() ?? null]);
    entryOf(groups, key, () => ({ outcome: attempt.outcome, attempts: [] })).attempts.push(attempt);
  }
  return [...groups.values()];
}
