import type { AccountRecord, AccountRepository, Page } from '../../../ports/metadata.js';
import { AccountEntity } from '../entities/account.entity.js';
import { toAccountRecord } from '../records.js';
import { createRow, DETACHED, inCreationOrder, lockOptions, type EntityManagerSource } from '../unit-of-work.js';

export class OrmAccountRepository implements AccountRepository {
  constructor(private readonly em: EntityManagerSource) {}

  async create(input: { readonly name: string }): Promise<AccountRecord> {
    return createRow(this.em(), AccountEntity, { name: input.name }, toAccountRecord);
  }

  async findById(id: string): Promise<AccountRecord | null> {
    const account = await this.em().findOne(AccountEntity, { id }, DETACHED);
    return account && toAccountRecord(account);
  }

  async findOldestByName(name: string): Promise<AccountRecord | null> {
    const account = await this.em().findOne(AccountEntity, { name }, { ...DETACHED, orderBy: { createdAt: 'asc' } });
    return account && toAccountRecord(account);
  }

  async list(page: Page): Promise<AccountRecord[]> {
    return (await this.em().find(AccountEntity, {}, inCreationOrder(page))).map(toAccountRecord);
  }

  /**
   * `SELECT … FOR UPDATE` on PostgreSQL. On SQLite the clause is dropped; there a transaction that has
   * already written holds the single writer lock, which serialises just as well.
   */
  async lock(id: string): Promise<AccountRecord | null> {
    const account = await this.em().findOne(AccountEntity, { id }, lockOptions('update'));
    return account && toAccountRecord(account);
  }
}
