import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { SettingRepository } from '../../../ports/metadata.js';
import { ServiceSettingEntity } from '../entities/service-setting.entity.js';
import type { EntityManagerSource } from '../unit-of-work.js';

export class OrmSettingRepository implements SettingRepository {
  constructor(private readonly em: EntityManagerSource) {}

  /** When processes race to create the setting, the primary key lets exactly one insert win. */
  async getOrCreate(name: string, create: () => string): Promise<string> {
    const existing = await this.em().findOne(ServiceSettingEntity, { name });
    if (existing) return existing.value;
    try {
      await this.em().insert(ServiceSettingEntity, { name, value: create(), createdAt: new Date() });
    } catch (err) {
      if (!(err instanceof UniqueConstraintViolationException)) throw err;
    }
    const row = await this.em().findOneOrFail(ServiceSettingEntity, { name });
    return row.value;
  }
}
