import type { Counter } from 'prom-client';
import type { ClientSecretScope, MetadataRepositories } from '../ports/metadata.js';
import type { StateStore } from '../ports/state-store.js';
import { credentialKind, digestCredential, digestsEqual, type CredentialKind } from '../domain/credentials.js';
import type { Logger } from '../observability/logger.js';
import { VersionedCache, type CacheVersions } from './versioned-cache.js';
import { mapAwaitable, type Awaitable } from '../lib/awaitable.js';

export interface ClientPrincipal {
  readonly kind: 'client';
  readonly accountId: string;
  readonly secretId: string;
  readonly scopes: readonly ClientSecretScope[];
}

export interface ApiKeyPrincipal {
  readonly kind: 'api_key';
  readonly accountId: string;
  readonly appId: string;
}

export type Principal = ClientPrincipal | ApiKeyPrincipal;

/**
 * Shared by every process: bumped after any change that revokes a credential (key rotation, secret
 * revocation, app deletion). A cached principal is trusted only while the version it was cached
 * under is still current.
 */
export const AUTH_VERSION_KEY = 'auth:version';

/** Upper bound on staleness should the version ever fail to be bumped (a network split mid-revocation). */
const CACHE_TTL_MS = 60_000;
/**
 * How long an unknown credential is remembered as unknown. Credentials are random and made here, so
 * none is presented before it exists; the ones that become valid again (the bootstrap secret at a
 * start) bump the version. This bound is for what neither covers: a metadata database restored
 * from a backup.
 */
const UNKNOWN_TTL_MS = 10_000;
/** `lastUsedAt` is a hint for humans; one write per secret per minute per process is plenty. */
const LAST_USED_WRITE_INTERVAL_MS = 60_000;
const CACHE_MAX_ENTRIES = 10_000;

/**
 * Turns a presented credential into a principal. Lookups go by SHA-256 digest and are cached in
 * process (a VersionedCache), so the hot path (ingest) does not query the metadata database on every
 * request, while a rotated key fails from that moment on, on every API process: `changed()` completes
 * before the rotating request gets its response. Unknown credentials are cached as unknown: a client
 * still sending a revoked key costs a database read per process every UNKNOWN_TTL_MS, not per request.
 */
export class Authenticator {
  readonly #metadata: Pick<MetadataRepositories, 'apps' | 'clientSecrets'>;
  readonly #logger: Logger;
  readonly #cache: VersionedCache<Principal>;
  readonly #lastUsedWrites = new Map<string, number>();
  readonly #lookups: Counter<'result'> | undefined;

  /** `lookups`: counts the reads of the metadata database, by result (`found`, `unknown`). */
  constructor(deps: {
    metadata: Pick<MetadataRepositories, 'apps' | 'clientSecrets'>;
    state: StateStore;
    versions?: CacheVersions | undefined;
    logger: Logger;
    lookups?: Counter<'result'> | undefined;
  }) {
    this.#metadata = deps.metadata;
    this.#logger = deps.logger;
    this.#lookups = deps.lookups;
    this.#cache = new VersionedCache({
      state: deps.state,
      versions: deps.versions,
      versionKey: AUTH_VERSION_KEY,
      ttlMs: CACHE_TTL_MS,
      missTtlMs: UNKNOWN_TTL_MS,
      maxEntries: CACHE_MAX_ENTRIES,
      logger: deps.logger,
    });
  }

  /**
   * The principal a credential stands for, or null when it is malformed, unknown or revoked. At once
   * (no promise) when the answer is cached under a version the process trusts.
   */
  authenticate(value: string): Awaitable<Principal | null> {
    const kind = credentialKind(value);
    if (!kind) return null;
    const digest = digestCredential(value);
    return mapAwaitable(
      this.#cache.get(digest, () => this.#lookup(kind, digest)),
      this.#touched,
    );
  }

  /**
   * Call after committing a change that revokes credentials or makes a refused one valid again. When
   * it resolves, every process re-checks the database on its next request.
   */
  async changed(): Promise<void> {
    await this.#cache.invalidate();
  }

  async #lookup(kind: CredentialKind, digest: string): Promise<Principal | null> {
    const principal = kind === 'api_key' ? await this.#lookupApiKey(digest) : await this.#lookupClientSecret(digest);
    this.#lookups?.inc({ result: principal ? 'found' : 'unknown' });
    return principal;
  }

  async #lookupApiKey(digest: string): Promise<ApiKeyPrincipal | null> {
    const app = await this.#metadata.apps.findByApiKeyDigest(digest);
    if (!app || !digestsEqual(app.apiKeyDigest, digest)) return null;
    return { kind: 'api_key', accountId: app.accountId, appId: app.id };
  }

  async #lookupClientSecret(digest: string): Promise<ClientPrincipal | null> {
    const secret = await this.#metadata.clientSecrets.findActiveByDigest(digest);
    if (!secret || !digestsEqual(secret.digest, digest)) return null;
    return { kind: 'client', accountId: secret.accountId, secretId: secret.id, scopes: [...secret.scopes] };
  }

  /** Records `lastUsedAt` of client secrets, at most once a minute each, off the request path. */
  readonly #touched = (principal: Principal | null): Principal | null => {
    if (principal?.kind === 'client') this.#touch(principal);
    return principal;
  };

  #touch(principal: ClientPrincipal): void {
    const now = Date.now();
    if ((this.#lastUsedWrites.get(principal.secretId) ?? 0) > now - LAST_USED_WRITE_INTERVAL_MS) return;
    this.#lastUsedWrites.set(principal.secretId, now);
    this.#metadata.clientSecrets
      .recordUse(principal.secretId, new Date(now))
      .catch((err: unknown) => this.#logger.warn({ err }, 'could not record lastUsedAt of a client secret'));
  }
}
