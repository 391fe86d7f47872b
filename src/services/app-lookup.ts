import type { EntityManager } from '@mikro-orm/core';
import type { App } from '../adapters/metadata/entities/app.entity.js';
import { findAppById, findAppInAccountById, findAppInAccountBySlug } from '../adapters/metadata/repositories/app-repository.js';
import { DomainError } from '../domain/errors.js';
import { isValidSlug } from '../domain/slug.js';
import { isUuid } from '../domain/uuid.js';

/** The message of every 404. */
export const NOT_FOUND_MESSAGE = 'Resource not found';

export function notFound(): DomainError {
  return new DomainError('not_found', NOT_FOUND_MESSAGE);
}

/**
 * Resolves the `{appId}` of a path: the app UUID, or the app slug, always inside the caller's
 * account. A slug can never have the form of a UUID (see domain/slug.ts), so the form alone says
 * which one was meant. Another account's app is "not found", exactly like a missing one (no existence
 * leaks).
 *
 * `accountId` null is for operator tools acting outside any account (the CLI's key rotation): slugs
 * are unique only per account, so there only the UUID identifies an app.
 */
export async function requireApp(em: EntityManager, accountId: string | null, appIdOrSlug: string): Promise<App> {
  const app = await findApp(em, accountId, appIdOrSlug);
  if (!app) throw notFound();
  return app;
}

async function findApp(em: EntityManager, accountId: string | null, appIdOrSlug: string): Promise<App | null> {
  if (isUuid(appIdOrSlug)) {
    // Ids are stored in lower case; SQLite compares text exactly, PostgreSQL's uuid type does not care.
    const id = appIdOrSlug.toLowerCase();
    return accountId === null ? findAppById(em, id) : findAppInAccountById(em, accountId, id);
  }
  if (accountId === null) {
    throw new DomainError('validation_failed', 'Give the app by its id: a slug names an app only within its account');
  }
  // Anything that cannot be a slug names no app; it never reaches the database (PostgreSQL would
  // reject a NUL byte in the parameter with an error, turning a 404 into a 500).
  return isValidSlug(appIdOrSlug) ? findAppInAccountBySlug(em, accountId, appIdOrSlug) : null;
}
