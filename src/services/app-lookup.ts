import type { AppRecord, AppRepository } from '../ports/metadata.js';
import { DomainError } from '../domain/errors.js';
import { isValidSlug } from '../domain/slug.js';
import { isUuid } from '../domain/uuid.js';

/** The message of every 404. */
export const NOT_FOUND_MESSAGE = 'Resource not found';

export function notFound(): DomainError {
  return new DomainError('not_found', NOT_FOUND_MESSAGE);
}

/** What resolving an app needs of the apps repository. */
export type AppFinder = Pick<AppRepository, 'findById' | 'findInAccount' | 'findBySlug'>;

/**
 * Resolves the `{appId}` of a path: the app UUID, or the app slug, always inside the caller's
 * account. A slug can never have the form of a UUID (see domain/slug.ts), so the form alone says
 * which one was meant. Another account's app is "not found", exactly like a missing one (no existence
 * leaks).
 *
 * `accountId` null is for operator tools acting outside any account (the CLI's key rotation): slugs
 * are unique only per account, so there only the UUID identifies an app.
 */
export async function requireApp(apps: AppFinder, accountId: string | null, appIdOrSlug: string): Promise<AppRecord> {
  const app = await findApp(apps, accountId, appIdOrSlug);
  if (!app) throw notFound();
  return app;
}

async function findApp(apps: AppFinder, accountId: string | null, appIdOrSlug: string): Promise<AppRecord | null> {
  if (isUuid(appIdOrSlug)) {
    // Ids are stored in lower case; SQLite compares text exactly, PostgreSQL's uuid type does not care.
    const id = appIdOrSlug.toLowerCase();
    return accountId === null ? apps.findById(id) : apps.findInAccount(accountId, id);
  }
  if (accountId === null) {
    throw new DomainError('validation_failed', 'Give the app by its id: a slug names an app only within its account');
  }
  // Anything that cannot be a slug names no app; it never reaches the database (PostgreSQL would
  // reject a NUL byte in the parameter with an error, turning a 404 into a 500).
  return isValidSlug(appIdOrSlug) ? apps.findBySlug(accountId, appIdOrSlug) : null;
}

/**
 * The row of an app-scoped resource named by a path id. Not a UUID means no such row, and is never
 * looked up (PostgreSQL's uuid column would turn the lookup into a 500); ids are stored in lower case.
 */
export async function requireById<T>(id: string, find: (id: string) => Promise<T | null>): Promise<T> {
  const row = isUuid(id) ? await find(id.toLowerCase()) : null;
  if (!row) throw notFound();
  return row;
}

/** Deletes the row a path id names, as requireById finds it; 404 when there was none. */
export async function deleteById(id: string, remove: (id: string) => Promise<boolean>): Promise<void> {
  if (!(isUuid(id) && (await remove(id.toLowerCase())))) throw notFound();
}
