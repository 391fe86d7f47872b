import { randomBytes } from 'node:crypto';
import type { EventStore } from '../ports/event-store.js';
import { DuplicateRecordError, type AppRecord, type MetadataStore, type NewApp } from '../ports/metadata.js';
import { digestCredential, generateApiKey, maskedHint, shownPrefix } from '../domain/credentials.js';
import { DomainError } from '../domain/errors.js';
import { slugCandidates, slugFromName, slugWithSuffix } from '../domain/slug.js';
import type { Logger } from '../observability/logger.js';
import { notFound, requireApp } from './app-lookup.js';
import type { Authenticator } from './authenticator.js';
import type { RuleSetCache } from './rule-set-cache.js';
import { conflictOnDuplicate } from './unique-violation.js';

/**
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
  readonly events: EventStore;
  readonly authenticator: Authenticator;
  /** Told about renames and deletions: alerts carry the app name, and a deleted app's rules must stop. */
  readonly ruleSets: Pick<RuleSetCache, 'invalidate'>;
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

export function toAppView(app: AppRecord): AppView {
  return {
    id: app.id,
    accountId: app.accountId,
    name: app.name,
    slug: app.slug,
    apiKeyPrefix: app.apiKeyPrefix,
    apiKeyHint: maskedHint(app.apiKeyPrefix),
    createdAt: app.createdAt.toISOString(),
    updatedAt: app.updatedAt.toISOString(),
  };
}

/** Apps of an account: create, list, read, rename, delete. Their keys: app-keys.service.ts. */
export class AppsService {
  constructor(private readonly deps: AppsDeps) {}

  /**
   * Creates an app with a fresh API key. An explicit slug that the account already uses is a 409; a
   * generated one (from the name) is made unique with a suffix instead.
   */
  async create(accountId: string, input: { name: string; slug?: string | undefined }): Promise<AppWithKey> {
    const apiKey = generateApiKey();
    const row = { accountId, name: input.name, apiKeyDigest: digestCredential(apiKey), apiKeyPrefix: shownPrefix(apiKey) };
    const explicitSlug = input.slug;
    const app =
      explicitSlug === undefined
        ? await this.#insertWithGeneratedSlug(row, slugFromName(input.name))
        : await conflictOnDuplicate(() => this.deps.metadata.apps.create({ ...row, slug: explicitSlug }), slugTaken(explicitSlug));
    return { app: toAppView(app), apiKey };
  }

  /** The account's apps, oldest first. */
  async list(accountId: string, page: { limit: number; offset: number }): Promise<AppView[]> {
    return (await this.deps.metadata.apps.list(accountId, page)).map(toAppView);
  }

  async get(accountId: string, appIdOrSlug: string): Promise<AppView> {
    return toAppView(await requireApp(this.deps.metadata.apps, accountId, appIdOrSlug));
  }

  /**
   * Renames an app and/or changes its slug. Renaming keeps the slug: it is part of the URLs and
   * configuration clients already use, so only an explicit `slug` changes it.
   */
  async update(accountId: string, appIdOrSlug: string, input: { name?: string | undefined; slug?: string | undefined }): Promise<AppView> {
    const { apps } = this.deps.metadata;
    const app = await requireApp(apps, accountId, appIdOrSlug);
    const name = input.name ?? app.name;
    const slug = input.slug ?? app.slug;
    // Only a real change is written, so `updatedAt` means "last changed", not "last PATCHed".
    if (name === app.name && slug === app.slug) return toAppView(app);
    const updated = await conflictOnDuplicate(() => apps.update(app.id, { name, slug }), slugTaken(slug));
    // Deleted since it was read: as if the delete had come first.
    if (!updated) throw notFound();
    await this.deps.ruleSets.invalidate();
    return toAppView(updated);
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
  async delete(accountId: string, appIdOrSlug: string): Promise<void> {
    const app = await requireApp(this.deps.metadata.apps, accountId, appIdOrSlug);
    await this.deps.metadata.apps.delete(app.id);
    await this.deps.authenticator.changed();
    // Events of the app still in the pipeline must not fire its (now deleted) rules.
    await this.deps.ruleSets.invalidate();
    try {
      await this.deps.events.deleteApp(app.id);
    } catch (err) {
      this.deps.logger.error({ err, appId: app.id }, 'app deleted, but removing its events failed; they are unreachable but still stored');
    }
  }

  async #insertWithGeneratedSlug(row: Omit<NewApp, 'slug'>, base: string): Promise<AppRecord> {
    const candidates = slugCandidates(base, NUMBERED_SLUG_CANDIDATES);
    for (let attempt = 1; ; attempt++) {
      const free = attempt <= NUMBERED_SLUG_ATTEMPTS ? await this.#firstFreeSlug(row.accountId, candidates) : undefined;
      const slug = free ?? slugWithSuffix(base, randomBytes(4).toString('hex'));
      try {
        return await this.deps.metadata.apps.create({ ...row, slug });
      } catch (err) {
        // The only unique constraint a new row can hit is the slug's: the key digest is 256 random bits.
        if (!(err instanceof DuplicateRecordError)) throw err;
        if (attempt >= GENERATED_SLUG_ATTEMPTS) {
          throw new DomainError('conflict', 'Could not find a free slug for this name; retry, or give a slug', { cause: err });
        }
      }
    }
  }

  async #firstFreeSlug(accountId: string, candidates: readonly string[]): Promise<string | undefined> {
    const taken = new Set(await this.deps.metadata.apps.takenSlugs(accountId, candidates));
    return candidates.find((candidate) => !taken.has(candidate));
  }
}

function slugTaken(slug: string): string {
  return `slug "${slug}" is already used by another app of this account`;
}
