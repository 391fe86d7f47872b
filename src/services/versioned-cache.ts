import type { StateStore } from '../ports/state-store.js';
import type { Logger } from '../observability/logger.js';
import { GatheredCalls } from '../lib/gathered-calls.js';

/**
 * A per-process cache of values read from the metadata database, made safe across processes by one
 * shared version number in the state store (Redis in distributed mode):
 * - every `get` reads the version and trusts an entry only if it was cached under the current version;
 * - whoever changes the underlying data calls `invalidate()` after committing and before answering,
 *   which bumps the version, so every process reloads on its very next request.
 *
 * Where the version comes from is the process's CacheVersions: a read of the state store shared by
 * concurrent requests (VersionReads), or, in distributed mode, a copy pushed to every process that a
 * bump waits on (PushedVersions). When the version cannot be read, nothing is trusted from the cache
 * and every `get` loads.
 */
export class VersionedCache<V> {
  readonly #versions: CacheVersions;
  readonly #versionKey: string;
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #logger: Logger;
  readonly #entries = new Map<string, { value: V; version: string; expiresAt: number }>();

  /** `versions`: the process's shared CacheVersions, so that caches read their versions together. */
  constructor(options: { state: StateStore; versions?: CacheVersions | undefined; versionKey: string; ttlMs: number; maxEntries: number; logger: Logger }) {
    this.#versions = options.versions ?? new VersionReads(options.state);
    this.#versionKey = options.versionKey;
    this.#ttlMs = options.ttlMs;
    this.#maxEntries = options.maxEntries;
    this.#logger = options.logger;
  }

  /** The cached value, or `load()`'s (cached when not null). */
  async get(key: string, load: () => Promise<V | null>): Promise<V | null> {
    const version = await this.#currentVersion();
    const hit = this.#entries.get(key);
    if (hit && version !== null && hit.version === version && hit.expiresAt > Date.now()) return hit.value;

    const value = await load();
    if (value !== null && version !== null && this.#ttlMs > 0) {
      // A crude bound: a full cache starts over rather than tracking recency on the hot path.
      if (this.#entries.size >= this.#maxEntries) this.#entries.clear();
      this.#entries.set(key, { value, version, expiresAt: Date.now() + this.#ttlMs });
    } else {
      this.#entries.delete(key);
    }
    return value;
  }

  /** Call after committing a change to what is cached; when it resolves, every process reloads. */
  async invalidate(): Promise<void> {
    this.#entries.clear();
    await this.#versions.bump(this.#versionKey);
  }

  async #currentVersion(): Promise<string | null> {
    try {
      return (await this.#versions.read(this.#versionKey)) ?? '0';
    } catch (err) {
      this.#logger.warn({ err, versionKey: this.#versionKey }, 'cache version unavailable; reading from the database');
      return null;
    }
  }
}

/** Where a process's caches read their versions and bump them. */
export interface CacheVersions {
  /** The key's current version (null: never bumped). */
  read(key: string): Promise<string | null>;
  /** Increments the key's version; when it resolves, every process reads the new one. */
  bump(key: string): Promise<void>;
}

/**
 * The version reads of every cache of a process, shared by concurrent requests (GatheredCalls): one
 * MGET of every key asked for answers every caller that asked before it was sent, and a caller never
 * gets the answer of a read sent before it asked, so a bump that completed before a request arrived
 * is always seen (the revocation guarantee above). Under load that is one read per round trip instead
 * of a GET per cache per request.
 */
export class VersionReads implements CacheVersions {
  readonly #state: StateStore;
  readonly #reads: GatheredCalls<string, string | null>;

  /**
   * `writeMark`: read after each answer and appended to every version, so that a write the state
   * store never heard of (another process writing the metadata database directly) also moves every
   * version (MetadataStore.writeMark). Reads then gather a whole turn of the event loop: the mark is
   * read once per turn, after every request of the turn arrived, so it still sees any write committed
   * before one of them was sent.
   */
  constructor(state: StateStore, options: { writeMark?: (() => string) | undefined } = {}) {
    const { writeMark } = options;
    this.#state = state;
    this.#reads = new GatheredCalls(
      async (keys) => {
        const unique = [...new Set(keys)];
        const values = await state.getMany(unique);
        const mark = writeMark?.();
        const byKey = new Map(unique.map((key, i) => [key, versionWithMark(values[i] ?? null, mark)]));
        return keys.map((key) => byKey.get(key) ?? null);
      },
      { gather: writeMark ? 'turn' : 'microtask' },
    );
  }

  read(key: string): Promise<string | null> {
    return this.#reads.call(key);
  }

  async bump(key: string): Promise<void> {
    await this.#state.increment(key);
  }
}

function versionWithMark(version: string | null, mark: string | undefined): string | null {
  return mark === undefined ? version : `${version ?? '0'}/${mark}`;
}
