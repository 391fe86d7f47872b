import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import { ServiceSettingEntity } from '../entities/service-setting.entity.js';

/**
 * The setting's value, creating it with `create()` if it does not exist yet. When processes race to
 * create it, the primary key lets exactly one insert win and everyone reads the winner's value.
 */
export async function getOrCreateSetting(em: EntityManager, name: string, create: () => string): Promise<string> {
  const existing = await em.findOne(ServiceSettingEntity, { name });
  if (existing) return existing.value;
  try {
    await em.insert(ServiceSettingEntity, { name, value: create(), createdAt: new Date() });
  } catch (err) {
    if (!(err instanceof UniqueConstraintViolationException)) throw err;
  }
  const row = await em.fork().findOneOrFail(ServiceSettingEntity, { name });
  return row.value;
}
