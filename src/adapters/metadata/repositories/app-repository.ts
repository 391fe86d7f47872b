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

/** The app with this id in this account, or null; `id` must have the form of a UUID. */
export async function findAppInAccountById(em: EntityManager, accountId: string, id: string): Promise<App | null> {
  return em.findOne(AppEntity, { id, account: accountId });
}

export async function findAppInAccountBySlug(em: EntityManager, accountId: string, slug: string): Promise<App | null> {
  return em.findOne(AppEntity, { slug, account: accountId });
}

/** Any account's app with this id, for operator tools that act outside an account. */
export async function findAppById(em: EntityManager, id: string): Promise<App | null> {
  return em.findOne(AppEntity, { id });
}

/**
 * A page of an account's apps in creation order (id breaks ties within a millisecond). Creation order
 * keeps offset paging stable while apps are added: a new app lands on the last page.
 */
export async function listAppsOfAccount(em: EntityManager, accountId: string, page: { limit: number; offset: number }): Promise<App[]> {
  return em.find(AppEntity, { account: accountId }, { orderBy: { createdAt: 'asc', id: 'asc' }, limit: page.limit, offset: page.offset });
}

/** Which of `slugs` the account already uses. */
export async function findTakenSlugs(em: EntityManager, accountId: string, slugs: readonly string[]): Promise<string[]> {
  const rows = await em.find(AppEntity, { account: accountId, slug: { $in: [...slugs] } }, { fields: ['slug'] });
  return rows.map((row) => row.slug);
}

/**
 * Deletes the app row; the database cascades to its schemas (and to later per-app tables). True
 * when a row was deleted.
 */
export async function deleteAppById(em: EntityManager, id: string): Promise<boolean> {
  return (await em.nativeDelete(AppEntity, { id })) > 0;
}
