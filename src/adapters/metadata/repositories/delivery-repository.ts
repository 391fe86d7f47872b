import { raw, UniqueConstraintViolationException } from '@mikro-orm/core';
import { v7 as uuidv7 } from 'uuid';
import type {
  AttemptToClaim,
  ClaimedDelivery,
  DeliveryListQuery,
  DeliveryOutcome,
  DeliveryRecord,
  DeliveryRepository,
  FinishedAttempt,
  NewDelivery,
} from '../../../ports/metadata.js';
import { DeliveryEntity } from '../entities/delivery.entity.js';
import { toDeliveryRecord } from '../records.js';
import type { EntityManagerSource } from '../unit-of-work.js';

/**
 * Deliveries, for the worker (created once per rule action and event, attempts claimed and recorded)
 * and the API (list). Every call is a short statement or two of its own, never part of a transaction:
 * creation settles races by letting an insert fail, which would abort a PostgreSQL transaction.
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
    const rows: unknown = await this.em()
      .createQueryBuilder(DeliveryEntity)
      .update({ attempts: raw('attempts + 1'), nextAttemptAt: leaseUntil, updatedAt: now })
      .where({
        status: 'pending',
        $or: attempts.map(({ id, attemptsMade }) => ({ id, attempts: attemptsMade, ...(attemptsMade === 0 ? {} : { nextAttemptAt: { $lte: now } }) })),
      })
      .returning(['id', 'app', 'ruleId', 'actionId', 'destinationId', 'eventId', 'attempts', 'payload'])
      .execute('all');
    return (rows as ClaimedRow[]).map(({ app, attempts: made, ...row }) => ({ ...row, appId: app, attempts: Number(made) }));
  }

  async finish(attempts: readonly FinishedAttempt[]): Promise<Set<string>> {
    const recorded = new Set<string>();
    const updatedAt = new Date();
    await Promise.all(
      groupByOutcome(attempts).map(async ({ outcome, attempts: same }) => {
        const rows: unknown = await this.em()
          .createQueryBuilder(DeliveryEntity)
          .update({ ...outcome, updatedAt })
          .where({ status: 'pending', $or: same.map(({ id, attempts: count }) => ({ id, attempts: count })) })
          .returning(['id'])
          .execute('all');
        for (const { id } of rows as Array<{ id: string }>) recorded.add(id);
      }),
    );
    return recorded;
  }

  async get(id: string): Promise<DeliveryRecord | null> {
    const delivery = await this.em().findOne(DeliveryEntity, { id });
    return delivery && toDeliveryRecord(delivery);
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
  return { ...rest, id: uuidv7(), app: appId, status: 'pending' as const, attempts: 0, lastError: null, nextAttemptAt: firstAttemptDue, createdAt: now, updatedAt: now };
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
  payload: string;
}

/** Attempts with the same outcome (every success has the same one) share one statement. */
function groupByOutcome(attempts: readonly FinishedAttempt[]): Array<{ outcome: DeliveryOutcome; attempts: FinishedAttempt[] }> {
  const groups = new Map<string, { outcome: DeliveryOutcome; attempts: FinishedAttempt[] }>();
  for (const attempt of attempts) {
    const { status, lastError, nextAttemptAt } = attempt.outcome;
    const key = JSON.stringify([status, lastError, nextAttemptAt?.getTime() ?? null]);
    const group = groups.get(key);
    if (group) group.attempts.push(attempt);
    else groups.set(key, { outcome: attempt.outcome, attempts: [attempt] });
  }
  return [...groups.values()];
}
