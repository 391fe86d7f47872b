import { LockMode, type EntityManager } from '@mikro-orm/core';
import { type Account, AccountEntity } from '../entities/account.entity.js';

export async function createAccount(em: EntityManager, input: { name: string }): Promise<Account> {
  const account = em.create(AccountEntity, { name: input.name });
  await em.flush();
  return account;
}

export async function findAccountById(em: EntityManager, id: string): Promise<Account | null> {
  return em.findOne(AccountEntity, { id });
}

/**
 * Takes a row lock on the account until the surrounding transaction ends (`SELECT … FOR UPDATE` on
 * PostgreSQL), so that checks over all of an account's rows, such as "some other client secret is
 * still active", are serialised per account. SQLite has no row locks (the clause is dropped); there a
 * transaction that has already written holds the single writer lock, which serialises just as well.
 * Must run inside `em.transactional`.
 */
export async function lockAccount(em: EntityManager, id: string): Promise<Account | null> {
  return em.findOne(AccountEntity, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
}
