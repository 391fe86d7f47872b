import type { EntityManager } from '@mikro-orm/core';
import { type Account, AccountEntity } from '../entities/account.entity.js';

export async function createAccount(em: EntityManager, input: { name: string }): Promise<Account> {
  const account = em.create(AccountEntity, { name: input.name });
  await em.flush();
  return account;
}

export async function findAccountById(em: EntityManager, id: string): Promise<Account | null> {
  return em.findOne(AccountEntity, { id });
}
