import { LockMode, UniqueConstraintViolationException, type EntityName, type FilterQuery, type RequiredEntityData } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/knex';
import { DuplicateRecordError, type Page, type RowLock } from '../../ports/metadata.js';
import { definedOnly } from '../../lib/defined-only.js';

/**
 * Where a repository gets its EntityManager for each call: outside a transaction a fresh fork (its own
 * identity map and unit of work), inside one the transaction's. Both drivers are SQL drivers, so a
 * repository can also build queries the ORM's own methods cannot express.
 */
export type EntityManagerSource = () => SqlEntityManager;

/**
 * Finder options of every read: the rows are not kept in the unit of work, so no later flush in the
 * same transaction (another repository's write, the commit) can write them back. That matters on
 * SQLite, where the ORM takes a loaded row's timestamps for changed.
 */
export const DETACHED = { disableIdentityMap: true } as const;

/**
 * Finder options of a list in creation order; the id (a UUIDv7) breaks ties within a millisecond.
 * Creation order keeps offset paging stable while rows are added: a new row lands on the last page.
 */
export function inCreationOrder(page?: Page) {
  return { ...DETACHED, orderBy: { createdAt: 'asc', id: 'asc' }, ...(page && { limit: page.limit, offset: page.offset }) } as const;
}

/** An entity with a UUID primary key named `id`, as every updatable entity here has. */
interface WithId {
  id: string;
}

/**
 * Runs a write and turns the database's unique-constraint violation into the port's error. The
 * driver's message is not repeated: it quotes the statement, whose parameters may be digests.
 */
export async function translateDuplicates<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw new DuplicateRecordError('a unique value is already taken', { cause: err });
    throw err;
  }
}

/** Writes what the unit of work holds; a unique violation becomes DuplicateRecordError. */
export function flush(em: SqlEntityManager): Promise<void> {
  return translateDuplicates(() => em.flush());
}

/**
 * Finder options of a read that may take a row lock. SQLite has no row locks and the clause is dropped there; its
 * transactions are serialised by the single writer lock instead.
 */
export function lockOptions(lock: RowLock | undefined): { disableIdentityMap: true; lockMode?: LockMode.PESSIMISTIC_READ | LockMode.PESSIMISTIC_WRITE } {
  if (lock === undefined) return DETACHED;
  return { ...DETACHED, lockMode: lock === 'share' ? LockMode.PESSIMISTIC_READ : LockMode.PESSIMISTIC_WRITE };
}

/** Inserts a new row (the entity's defaults fill ids and timestamps) and returns its record. */
export async function createRow<E extends object, R>(em: SqlEntityManager, entity: EntityName<E>, data: RequiredEntityData<E>, toRecord: (row: E) => R): Promise<R> {
  const row = em.create(entity, data);
  await flush(em);
  return toRecord(row);
}

/**
 * Loads the row, applies the changes given (a key whose value is undefined is left alone) and flushes,
 * which moves `updatedAt` when something changed; null when no row has this id. Only the columns that
 * changed are written.
 */
export async function updateById<E extends WithId, R>(
  em: SqlEntityManager,
  entity: EntityName<E>,
  id: string,
  changes: object,
  toRecord: (row: E) => R,
): Promise<R | null> {
  const row = await em.findOne(entity, { id } as FilterQuery<E>);
  if (!row) return null;
  Object.assign(row, definedOnly(changes));
  await flush(em);
  return toRecord(row);
}
