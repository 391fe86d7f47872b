import type { ClientSecretRecord, ClientSecretRepository, NewClientSecret, Page } from '../../../ports/metadata.js';
import { ClientSecretEntity } from '../entities/client-secret.entity.js';
import { toClientSecretRecord } from '../records.js';
import { createRow, DETACHED, inCreationOrder, type EntityManagerSource } from '../unit-of-work.js';

export class OrmClientSecretRepository implements ClientSecretRepository {
  constructor(private readonly em: EntityManagerSource) {}

  async create(input: NewClientSecret): Promise<ClientSecretRecord> {
    const { accountId, scopes, ...fields } = input;
    return createRow(this.em(), ClientSecretEntity, { ...fields, account: accountId, scopes: [...scopes], lastUsedAt: null, revokedAt: null }, toClientSecretRecord);
  }

  async findById(id: string): Promise<ClientSecretRecord | null> {
    return this.#one({ id });
  }

  async findInAccount(accountId: string, id: string): Promise<ClientSecretRecord | null> {
    return this.#one({ id, account: accountId });
  }

  async findByDigest(digest: string): Promise<ClientSecretRecord | null> {
    return this.#one({ digest });
  }

  async findActiveByDigest(digest: string): Promise<ClientSecretRecord | null> {
    return this.#one({ digest, revokedAt: null });
  }

  async list(accountId: string, page: Page): Promise<ClientSecretRecord[]> {
    return (await this.em().find(ClientSecretEntity, { account: accountId }, inCreationOrder(page))).map(toClientSecretRecord);
  }

  async countActive(accountId: string): Promise<number> {
    return this.em().count(ClientSecretEntity, { account: accountId, revokedAt: null });
  }

  async countActiveByAccount(accountIds: readonly string[]): Promise<Map<string, number>> {
    const counts = new Map(accountIds.map((id) => [id, 0]));
    if (accountIds.length === 0) return counts;
    // The rows themselves (their ids and accounts only): an account has a handful of secrets.
    const active = await this.em().find(ClientSecretEntity, { account: { $in: [...accountIds] }, revokedAt: null }, { ...DETACHED, fields: ['account'] });
    for (const secret of active) counts.set(secret.account.id, (counts.get(secret.account.id) ?? 0) + 1);
    return counts;
  }

  async revokeActive(input: { readonly accountId: string; readonly id: string; readonly at: Date }): Promise<boolean> {
    const changed = await this.em().nativeUpdate(ClientSecretEntity, { id: input.id, account: input.accountId, revokedAt: null }, { revokedAt: input.at });
    return changed > 0;
  }

  async reactivate(id: string): Promise<void> {
    await this.em().nativeUpdate(ClientSecretEntity, { id }, { revokedAt: null });
  }

  async recordUse(id: string, at: Date): Promise<void> {
    await this.em().nativeUpdate(ClientSecretEntity, { id }, { lastUsedAt: at });
  }

  async #one(where: { id?: string; account?: string; digest?: string; revokedAt?: null }): Promise<ClientSecretRecord | null> {
    const secret = await this.em().findOne(ClientSecretEntity, where, DETACHED);
    return secret && toClientSecretRecord(secret);
  }
}
