import type { MetadataStore } from '../adapters/metadata/metadata-store.js';
import { findActiveClientSecretByDigest } from '../adapters/metadata/repositories/client-secret-repository.js';
import { findAppByApiKeyDigest } from '../adapters/metadata/repositories/app-repository.js';
import type { ClientSecretScope } from '../adapters/metadata/entities/client-secret.entity.js';
import { ClientSecretEntity } from '../adapters/metadata/entities/client-secret.entity.js';
import type { StateStore } from '../adapters/state/state-store.js';
import { credentialKind, digestCredential, digestsEqual } from '../domain/credentials.js';
import type { Logger } from '../observability/logger.js';

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
/** `lastUsedAt` is a hint for humans; one write per secret per minute per process is plenty. */
const LAST_USED_WRITE_INTERVAL_MS = 60_000;
const CACHE_MAX_ENTRIES = 10_000;

interface CacheEntry {
  readonly principal: Principal;
  readonly version: string;
  readonly expiresAt: number;
}

/**
 * Turns a presented credential into a principal. Lookups go by SHA-256 digest and are cached in
 * process, so the hot path (ingest) does not query the metadata database on every request.
 *
 * Why a version instead of pub/sub alone: contract section 2 says a rotated key fails "from that
 * moment on every API process". A pub/sub message may still be in flight when the next request
 * reaches another process; reading one shared version per request (a Redis GET in distributed mode)
 * closes that window, since `revoked()` completes before the rotating request gets its response.
 */
export class Authenticator {
  readonly #metadata: MetadataStore;
  readonly #state: StateStore;
  readonly #logger: Logger;
  readonly #cache = new Map<string, CacheEntry>();
  readonly #lastUsedWrites = new Map<string, number>();

  constructor(deps: { metadata: MetadataStore; state: StateStore; logger: Logger }) {
    this.#metadata = deps.metadata;
    this.#state = deps.state;
    this.#logger = deps.logger;
  }

  /** The principal a credential stands for, or null when it is malformed, unknown or revoked. */
  async authenticate(value: string): Promise<Principal | null> {
    const kind = credentialKind(value);
    if (!kind) return null;
    const digest = digestCredential(value);
    const version = await this.#currentVersion();

    const cached = this.#cache.get(digest);
    if (cached && version !== null && cached.version === version && cached.expiresAt > Date.now()) {
      this.#touch(cached.principal);
      return cached.principal;
    }

    const principal = kind === 'api_key' ? await this.#lookupApiKey(digest) : await this.#lookupClientSecret(digest);
    if (principal && version !== null) {
      if (this.#cache.size >= CACHE_MAX_ENTRIES) this.#cache.clear();
      this.#cache.set(digest, { principal, version, expiresAt: Date.now() + CACHE_TTL_MS });
    } else {
      this.#cache.delete(digest);
    }
    if (principal) this.#touch(principal);
    return principal;
  }

  /**
   * Call after committing a change that revokes credentials. When it resolves, every process
   * re-checks the database on its next request.
   */
  async revoked(): Promise<void> {
    this.#cache.clear();
    await this.#state.increment(AUTH_VERSION_KEY);
  }

  /** Null when the shared state cannot be read: then nothing is trusted from the cache. */
  async #currentVersion(): Promise<string | null> {
    try {
      return (await this.#state.get(AUTH_VERSION_KEY)) ?? '0';
    } catch (err) {
      this.#logger.warn({ err }, 'auth cache version unavailable; checking credentials against the database');
      return null;
    }
  }

  async #lookupApiKey(digest: string): Promise<ApiKeyPrincipal | null> {
    const app = await findAppByApiKeyDigest(this.#metadata.em(), digest);
    if (!app || !digestsEqual(app.apiKeyDigest, digest)) return null;
    return { kind: 'api_key', accountId: app.account.id, appId: app.id };
  }

  async #lookupClientSecret(digest: string): Promise<ClientPrincipal | null> {
    const secret = await findActiveClientSecretByDigest(this.#metadata.em(), digest);
    if (!secret || !digestsEqual(secret.digest, digest)) return null;
    return { kind: 'client', accountId: secret.account.id, secretId: secret.id, scopes: [...secret.scopes] };
  }

  /** Records `lastUsedAt` of client secrets, at most once a minute each, off the request path. */
  #touch(principal: Principal): void {
    if (principal.kind !== 'client') return;
    const now = Date.now();
    if ((this.#lastUsedWrites.get(principal.secretId) ?? 0) > now - LAST_USED_WRITE_INTERVAL_MS) return;
    this.#lastUsedWrites.set(principal.secretId, now);
    this.#metadata
      .em()
      .nativeUpdate(ClientSecretEntity, { id: principal.secretId }, { lastUsedAt: new Date(now) })
      .catch((err: unknown) => this.#logger.warn({ err }, 'could not record lastUsedAt of a client secret'));
  }
}
