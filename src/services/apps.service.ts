import { randomBytes } from 'node:crypto';
import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import type { EventStore } from '../adapters/event-store/event-store.js';
import type { App } from '../adapters/metadata/entities/app.entity.js';
import type { MetadataStore } from '../adapters/metadata/metadata-store.js';
import { createApp as insertApp, deleteAppById, findTakenSlugs, listAppsOfAccount, type NewApp } from '../adapters/metadata/repositories/app-repository.js';
import { digestCredential, generateApiKey, maskedHint, shownPrefix } from '../domain/credentials.js';
import { DomainError } from '../domain/errors.js';
import { slugCandidates, slugFromName, slugWithSuffix } from '../domain/slug.js';
import type { Logger } from '../observability/logger.js';
import { requireApp } from './app-lookup.js';
import type { Authenticator } from './authenticator.js';
import type { RuleSetCache } from './rule-set-cache.js';
import { conflictOnDuplicate } from './unique-violation.js';

/**
 * Apps and their API keys.
 *
 * An app is shown the same way everywhere: `apiKeyPrefix` and `apiKeyHint` are always present (both
 * are derived from the first 12 characters, which identify a key to a human but carry too few random
 * bits to matter), and the full key only in the `apiKey` field of the create and rotate responses.
 */
export interface AppView {
  readonly id: string;
  readonly accountId: string;
  readonly name: string;
  readonly slug: string;
  readonly apiKeyPrefix: string;
  readonly apiKeyHint: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** The create and rotate responses: the only places the full key ever appears. */
export interface AppWithKey {
  readonly app: AppView;
  readonly apiKey: string;
}

export interface AppsDeps {
  readonly metadata: MetadataStore;
  readonly authenticator: Authenticator;
}

/** Renames and deletions reach the worker's cached rules (alerts carry the app name). */
export interface AppChangeDeps extends AppsDeps {
  readonly ruleSets: Pick<RuleSetCache, 'invalidate'>;
}

export interface AppDeletionDeps extends AppChangeDeps {
  readonly events: EventStore;
  readonly logger: Logger;
}

/** `shop`, `shop-2` … `shop-20` are tried in order; after that a random suffix. */
const NUMBERED_SLUG_CANDIDATES = 20;
/**
 * Creating with a generated slug retries when another request took the chosen slug between our look
 * and our insert. The first attempts take the first free numbered slug; should those keep colliding
 * (a burst of same-named creates all pick the same one), later attempts take a random suffix, which
 * does not collide, so the last attempt practically never fails.
 */
const NUMBERED_SLUG_ATTEMPTS = 2;
const GENERATED_SLUG_ATTEMPTS = 5;

export function toAppView(app: App): AppView {
  return {
    id: app.id,
    accountId: app.account.id,
    name: app.name,
    slug: app.slug,
    apiKeyPrefix: app.apiKeyPrefix,
    apiKeyHint: maskedHint(app.apiKeyPrefix),
    createdAt: app.createdAt.toISOString(),
    updatedAt: app.updatedAt.toISOString(),
  };
}

/**
 * Creates an app with a fresh API key. An explicit slug that the account already uses is a 409; a
 * generated one (from the name) is made unique with a suffix instead.
 */
export async function createApp(deps: AppsDeps, accountId: string, input: { name: string; slug?: string | undefined }): Promise<AppWithKey> {
  const apiKey = generateApiKey();
  const row = { accountId, name: input.name, apiKeyDigest: digestCredential(apiKey), apiKeyPrefix: shownPrefix(apiKey) };
  const explicitSlug = input.slug;
  const app =
    explicitSlug === undefined
      ? await insertWithGeneratedSlug(deps, row, slugFromName(input.name))
      : await conflictOnDuplicate(() => insertApp(deps.metadata.em(), { ...row, slug: explicitSlug }), slugTaken(explicitSlug));
  return { app: toAppView(app), apiKey };
}

async function insertWithGeneratedSlug(deps: AppsDeps, row: Omit<NewApp, 'slug'>, base: string): Promise<App> {
  const candidates = slugCandidates(base, NUMBERED_SLUG_CANDIDATES);
  for (let attempt = 1; ; attempt++) {
    // A fresh unit of work per attempt: a failed flush leaves the entity behind in the old one.
    const em = deps.metadata.em();
    const free = attempt <= NUMBERED_SLUG_ATTEMPTS ? await firstFreeSlug(em, row.accountId, candidates) : undefined;
    const slug = free ?? slugWithSuffix(base, randomBytes(4).toString('hex'));
    try {
      return await insertApp(em, { ...row, slug });
    } catch (err) {
      // The only unique constraint a new row can hit is the slug's: the key digest is 256 random bits.
      if (!(err instanceof UniqueConstraintViolationException)) throw err;
      if (attempt >= GENERATED_SLUG_ATTEMPTS) {
        throw new DomainError('conflict', 'Could not find a free slug for this name; retry, or give a slug', { cause: err });
      }
    }
  }
}

async function firstFreeSlug(em: EntityManager, accountId: string, candidates: readonly string[]): Promise<string | undefined> {
  const taken = new Set(await findTakenSlugs(em, accountId, candidates));
  return candidates.find((candidate) => !taken.has(candidate));
}

/** The account's apps, oldest first. */
export async function listApps(deps: AppsDeps, accountId: string, page: { limit: number; offset: number }): Promise<AppView[]> {
  const apps = await listAppsOfAccount(deps.metadata.em(), accountId, page);
  return apps.map(toAppView);
}

export async function getApp(deps: AppsDeps, accountId: string, appIdOrSlug: string): Promise<AppView> {
  return toAppView(await requireApp(deps.metadata.em(), accountId, appIdOrSlug));
}

/**
 * Renames an app and/or changes its slug. Renaming keeps the slug: it is part of the URLs and
 * configuration clients already use, so only an explicit `slug` changes it.
 */
export async function updateApp(
  deps: AppChangeDeps,
  accountId: string,
  appIdOrSlug: string,
  input: { name?: string | undefined; slug?: string | undefined },
): Promise<AppView> {
  const em = deps.metadata.em();
  const app = await requireApp(em, accountId, appIdOrSlug);
  const name = input.name ?? app.name;
  const slug = input.slug ?? app.slug;
  // Only a real change is written, so `updatedAt` means "last changed", not "last PATCHed".
  if (name === app.name && slug === app.slug) return toAppView(app);
  app.name = name;
  app.slug = slug;
  await conflictOnDuplicate(() => em.flush(), slugTaken(slug));
  await deps.ruleSets.invalidate();
  return toAppView(app);
}

/**
 * Deletes an app. The row goes first, in one statement, and the database cascades to its schemas,
 * rules, destinations and deliveries; its key fails from that moment on every process. Then its
 * events are removed from the event store.
 *
 * A failure of that last step does not fail the request: the app is already gone and its id is never
 * reused, so its remaining events can no longer be read through the API, and a retried DELETE could
 * only answer 404. ClickHouse also carries on with a removal that timed out. The failure is logged
 * with the app id so an operator can finish the job.
 */
export async function deleteApp(deps: AppDeletionDeps, accountId: string, appIdOrSlug: string): Promise<void> {
  const em = deps.metadata.em();
  const app = await requireApp(em, accountId, appIdOrSlug);
  await deleteAppById(em, app.id);
  await deps.authenticator.revoked();
  // Events of the app still in the pipeline must not fire its (now deleted) rules.
  await deps.ruleSets.invalidate();
  try {
    await deps.events.deleteApp(app.id);
  } catch (err) {
    deps.logger.error({ err, appId: app.id }, 'app deleted, but removing its events failed; they are unreachable but still stored');
  }
}

/**
 * Replaces the app's API key: the new key is returned once, the old one fails with 401 from the
 * moment this resolves, on every API process (`authenticator.revoked()` completes before the caller
 * answers). Also used by the CLI, which acts outside any account: `accountId` null then takes the
 * app's UUID only (see app-lookup.ts).
 */
export async function rotateApiKey(deps: AppsDeps, accountId: string | null, appIdOrSlug: string): Promise<AppWithKey> {
  const em = deps.metadata.em();
  const app = await requireApp(em, accountId, appIdOrSlug);
  const apiKey = generateApiKey();
  // Overwriting the digest is the revocation: exactly one key per app, and the old one matches nothing.
  app.apiKeyDigest = digestCredential(apiKey);
  app.apiKeyPrefix = shownPrefix(apiKey);
  await em.flush();
  await deps.authenticator.revoked();
  return { app: toAppView(app), apiKey };
}

function slugTaken(slug: string): string {
  return `slug "${slug}" is already used by another app of this account`;
}
