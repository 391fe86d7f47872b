import type { StateStore } from '../ports/state-store.js';
import type { Logger } from '../observability/logger.js';
import { GatheredCalls } from '../lib/gathered-calls.js';
import type { Awaitable } from '../lib/awaitable.js';

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
 *
 * Concurrent `get`s of one key under one version share one load: a burst of requests for a key just
 * invalidated (or never seen) makes one database read, not one each. A caller that read a newer
 * version never joins a load of an older one.
 *
 * "Not found" is remembered too when `missTtlMs` says so, under the same version rule, in a map of its
 * own: a client that keeps sending an unknown or revoked credential then costs no database read per
 * request, and a flood of distinct unknown keys can only empty that map, never evict a found value.
 */
export class VersionedCache<V> {
  readonly #versions: CacheVersions;
  readonly #versionKey: string;
  readonly #ttlMs: number;
  readonly #missTtlMs: number;
  readonly #maxEntries: number;
  readonly #logger: Logger;
  readonly #entries = new Map<string, CacheEntry<V>>();
  readonly #misses = new Map<string, CacheEntry<null>>();
  /** Loads in flight, by version and key. */
  readonly #loads = new Map<string, Promise<V | null>>();

  /**
   * `versions`: the process's shared CacheVersions, so that caches read their versions together.
   * `missTtlMs`: how long a load's null is remembered; 0 (the default) loads again on every `get`.
   */
  constructor(options: { state: StateStore; versions?: CacheVersions | undefined; versionKey: string; ttlMs: number; missTtlMs?: number; maxEntries: number; logger: Logger }) {
    this.#versions = options.versions ?? new VersionReads(options.state);
    this.#versionKey = options.versionKey;
    this.#ttlMs = options.ttlMs;
    this.#missTtlMs = options.missTtlMs ?? 0;
    this.#maxEntries = options.maxEntries;
    this.#logger = options.logger;
  }

  /**
   * The cached value, or `load()`'s (cached when not null; a null is cached for `missTtlMs`). A value
   * kept under a version known at once (a pushed copy) is returned as it is, without a promise: the
   * ingest path asks two caches on every request.
   */
  get(key: string, load: () => Promise<V | null>): Awaitable<V | null> {
    const version = this.#versions.read(this.#versionKey);
    if (version instanceof Promise) return this.#getOnceRead(version, key, load);
    return this.#getUnder(version ?? '0', key, load);
  }

  async #getOnceRead(reading: Promise<string | null>, key: string, load: () => Promise<V | null>): Promise<V | null> {
    let version: string;
    try {
      version = (await reading) ?? '0';
    } catch (err) {
      this.#logger.warn({ err, versionKey: this.#versionKey }, 'cache version unavailable; reading from the database');
      // Nothing is trusted, and what was kept goes: a change committed while the version could not be
      // bumped must not be hidden by an entry that matches the version once it reads again.
      const value = await load();
      this.#forget(key);
      return value;
    }
    return this.#getUnder(version, key, load);
  }

  /** What is kept under `version`, or the load of it (shared by concurrent callers of that version). */
  #getUnder(version: string, key: string, load: () => Promise<V | null>): Awaitable<V | null> {
    const now = Date.now();
    const fresh = (entry: CacheEntry<unknown>): boolean => entry.version === version && entry.expiresAt > now;
    const hit = this.#entries.get(key);
    if (hit !== undefined && fresh(hit)) return hit.value;
    const miss = this.#misses.get(key);
    if (miss !== undefined && fresh(miss)) return null;

    const loadKey = `${version}\n${key}`;
    let loading = this.#loads.get(loadKey);
    if (!loading) {
      loading = this.#loadAndKeep(key, version, load).finally(() => this.#loads.delete(loadKey));
      this.#loads.set(loadKey, loading);
    }
    return loading;
  }

  async #loadAndKeep(key: string, version: string, load: () => Promise<V | null>): Promise<V | null> {
    const value = await load();
    const expiresAt = Date.now() + (value === null ? this.#missTtlMs : this.#ttlMs);
    if (value !== null && this.#ttlMs > 0) {
      this.#misses.delete(key);
      keepBounded(this.#entries, this.#maxEntries, key, { value, version, expiresAt });
    } else if (value === null && this.#missTtlMs > 0) {
      this.#entries.delete(key);
      keepBounded(this.#misses, this.#maxEntries, key, { value, version, expiresAt });
    } else {
      this.#forget(key);
    }
    return value;
  }

  #forget(key: string): void {
    this.#entries.delete(key);
    this.#misses.delete(key);
  }

  /** Call after committing a change to what is cached; when it resolves, every process reloads. */
  async invalidate(): Promise<void> {
    this.#entries.clear();
    this.#misses.clear();
    await this.#versions.bump(this.#versionKey);
  }

}

interface CacheEntry<V> {
  readonly value: V;
  readonly version: string;
  readonly expiresAt: number;
}

/** A crude bound: a full map starts over rather than tracking recency on the hot path. */
function keepBounded<V>(entries: Map<string, CacheEntry<V>>, maxEntries: number, key: string, entry: CacheEntry<V>): void {
  if (entries.size >= maxEntries && !entries.has(key)) entries.clear();
  entries.set(key, entry);
}

/** Where a process's caches read their versions and bump them. */
export interface CacheVersions {
  /** The key's current version (null: never bumped): at once when the process holds a copy it trusts. */
  read(key: string): Awaitable<string | null>;
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
