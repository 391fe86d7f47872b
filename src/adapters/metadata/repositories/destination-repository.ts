import type { DestinationChanges, DestinationRecord, DestinationRepository, NewDestination, Page, RowLock } from '../../../ports/metadata.js';
import { DestinationEntity } from '../entities/destination.entity.js';
import { toDestinationRecord } from '../records.js';
import { createRow, DETACHED, inCreationOrder, lockOptions, updateById, type EntityManagerSource } from '../unit-of-work.js';

export class OrmDestinationRepository implements DestinationRepository {
  constructor(private readonly em: EntityManagerSource) {}

  async create(input: NewDestination): Promise<DestinationRecord> {
    const { appId, ...fields } = input;
    return createRow(this.em(), DestinationEntity, { ...fields, app: appId, verifiedAt: null }, toDestinationRecord);
  }

  async findById(appId: string, id: string, lock?: RowLock): Promise<DestinationRecord | null> {
    const destination = await this.em().findOne(DestinationEntity, { id, app: appId }, lockOptions(lock));
    return destination && toDestinationRecord(destination);
  }

  async findByIds(appId: string, ids: readonly string[], lock?: 'share'): Promise<DestinationRecord[]> {
    if (ids.length === 0) return [];
    return (await this.em().find(DestinationEntity, { app: appId, id: { $in: [...ids] } }, lockOptions(lock))).map(toDestinationRecord);
  }

  async list(appId: string, page: Page): Promise<DestinationRecord[]> {
    return (await this.em().find(DestinationEntity, { app: appId }, inCreationOrder(page))).map(toDestinationRecord);
  }

  async listAll(appId: string): Promise<DestinationRecord[]> {
    return (await this.em().find(DestinationEntity, { app: appId }, DETACHED)).map(toDestinationRecord);
  }

  async update(id: string, changes: DestinationChanges): Promise<DestinationRecord | null> {
    return updateById(this.em(), DestinationEntity, id, changes, toDestinationRecord);
  }

  /** One conditional statement, so a change of url or email that lands during the test wins. */
  async markVerified(id: string, tested: Pick<DestinationRecord, 'url' | 'email'>, at: Date): Promise<DestinationRecord | null> {
    const em = this.em();
    const marked = await em.nativeUpdate(DestinationEntity, { id, url: tested.url, email: tested.email }, { verified: true, verifiedAt: at, updatedAt: at });
    if (marked === 0) return null;
    const destination = await em.findOne(DestinationEntity, { id }, DETACHED);
    return destination && toDestinationRecord(destination);
  }

  async delete(appId: string, id: string): Promise<boolean> {
    return (await this.em().nativeDelete(DestinationEntity, { id, app: appId })) > 0;
  }
}
