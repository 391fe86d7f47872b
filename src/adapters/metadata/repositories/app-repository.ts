import type { AppChanges, AppRecord, AppRepository, NewApp, Page } from '../../../ports/metadata.js';
import { AppEntity } from '../entities/app.entity.js';
import { toAppRecord } from '../records.js';
import { createRow, DETACHED, inCreationOrder, updateById, type EntityManagerSource } from '../unit-of-work.js';

export class OrmAppRepository implements AppRepository {
  constructor(private readonly em: EntityManagerSource) {}

  async create(input: NewApp): Promise<AppRecord> {
    const { accountId, defaultMetadata, ...fields } = input;
    return createRow(this.em(), AppEntity, { ...fields, account: accountId, defaultMetadata: { ...defaultMetadata } }, toAppRecord);
  }

  async findById(id: string): Promise<AppRecord | null> {
    return this.#one({ id });
  }

  async findInAccount(accountId: string, id: string): Promise<AppRecord | null> {
    return this.#one({ id, account: accountId });
  }

  async findBySlug(accountId: string, slug: string): Promise<AppRecord | null> {
    return this.#one({ slug, account: accountId });
  }

  async findByApiKeyDigest(apiKeyDigest: string): Promise<AppRecord | null> {
    return this.#one({ apiKeyDigest });
  }

  async list(accountId: string, page: Page): Promise<AppRecord[]> {
    return (await this.em().find(AppEntity, { account: accountId }, inCreationOrder(page))).map(toAppRecord);
  }

  async takenSlugs(accountId: string, slugs: readonly string[]): Promise<string[]> {
    const rows = await this.em().find(AppEntity, { account: accountId, slug: { $in: [...slugs] } }, { ...DETACHED, fields: ['slug'] });
    return rows.map((row) => row.slug);
  }

  async update(id: string, changes: AppChanges): Promise<AppRecord | null> {
    return updateById(this.em(), AppEntity, id, changes, toAppRecord);
  }

  /** One statement; the database cascades to the app's schemas, rules, destinations and deliveries. */
  async delete(id: string): Promise<boolean> {
    return (await this.em().nativeDelete(AppEntity, { id })) > 0;
  }

  async #one(where: { id?: string; account?: string; slug?: string; apiKeyDigest?: string }): Promise<AppRecord | null> {
    const app = await this.em().findOne(AppEntity, where, DETACHED);
    return app && toAppRecord(app);
  }
}
