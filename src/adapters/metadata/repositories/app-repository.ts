import type { EntityManager } from '@mikro-orm/core';
import { type App, AppEntity, type MetadataValue } from '../entities/app.entity.js';

export interface NewApp {
  accountId: string;
  name: string;
  slug: string;
  /** SHA-256 hex of the full API key; the caller hashes, this layer never sees the key. */
  apiKeyDigest: string;
  apiKeyPrefix: string;
  defaultMetadata?: Record<string, MetadataValue>;
}

/** Throws MikroORM's UniqueConstraintViolationException when the slug is taken in the account. */
export async function createApp(em: EntityManager, input: NewApp): Promise<App> {
  const app = em.create(AppEntity, {
    account: input.accountId,
    name: input.name,
    slug: input.slug,
    apiKeyDigest: input.apiKeyDigest,
    apiKeyPrefix: input.apiKeyPrefix,
    defaultMetadata: input.defaultMetadata ?? {},
  });
  await em.flush();
  return app;
}

/** The app an ingest request's key belongs to, or null. After rotation the old digest finds nothing. */
export async function findAppByApiKeyDigest(em: EntityManager, apiKeyDigest: string): Promise<App | null> {
  return em.findOne(AppEntity, { apiKeyDigest });
}
