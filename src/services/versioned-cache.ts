import type { StateStore } from '../adapters/state/state-store.js';
import type { Logger } from '../observability/logger.js';

/**
 * A per-process cache of values read from the metadata database, made safe across processes by one
 * shared version number in the state store (Redis in distributed mode):
 * - every `get` reads the version (one GET) and trusts an entry only if it was cached under the
 *   current version;
 * - whoever changes the underlying data calls `invalidate()` after committing and before answering,
 *   which bumps the version, so every process reloads on its very next request.
 *
 * Pub/sub alone would leave a window (the message may still be in flight when the next request
 * arrives elsewhere); the version read closes it at the cost of one round trip to the state store.
 * When the state store cannot be read, nothing is trusted from the cache and every `get` loads.
 */
export class VersionedCache<V> {
  readonly #state: StateStore;
  readonly #versions: VersionReads;
  readonly #versionKey: string;
  readonly #ttlMs: number;
  readonly #maxEntries: number;
  readonly #logger: Logger;
  readonly #entries = new Map<string, { value: V; version: string; expiresAt: number }>();

  /** `versions`: the process's shared VersionReads, so that caches read their versions together. */
  constructor(options: { state: StateStore; versions?: VersionReads | undefined; versionKey: string; ttlMs: number; maxEntries: number; logger: Logger }) {
    this.#state = options.state;
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
    await this.#state.increment(this.#versionKey);
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

/**
 * The version reads of every cache of a process, shared by concurrent requests: one MGET of every key
 * asked for, answering every caller that asked before it was sent. A caller never gets the answer of
 * a read sent before it asked, so a bump that completed before a request arrived is always seen (the
 * revocation guarantee above). While one read is in flight, new callers wait for the next, sent as
 * soon as it returns: under load that is one round trip's worth of requests per read instead of a
 * command per cache per request (each costs the edge CPU, bench/NOTES.md), and when idle a read goes
 * out at once.
 */
export class VersionReads {
  readonly #state: StateStore;
  /** The read being gathered: not sent yet, so anyone may still join it. */
  #next: PendingRead | undefined;
  #inFlight = false;

  constructor(state: StateStore) {
    this.#state = state;
  }

  read(key: string): Promise<string | null> {
    let batch = this.#next;
    if (!batch) {
      batch = this.#next = pendingRead();
      // Callers of this same turn join before it goes; while a read is in flight, its end sends this one.
      if (!this.#inFlight) queueMicrotask(() => this.#send());
    }
    batch.keys.add(key);
    return batch.values.then((values) => values.get(key) ?? null);
  }

  #send(): void {
    const batch = this.#next;
    if (!batch) return;
    this.#next = undefined;
    this.#inFlight = true;
    const keys = [...batch.keys];
    this.#state
      .getMany(keys)
      .then((values) => batch.settle(null, new Map(keys.map((key, i) => [key, values[i] ?? null]))))
      .catch((err: unknown) => batch.settle(err, undefined))
      .finally(() => {
        this.#inFlight = false;
        this.#send();
      });
  }
}

interface PendingRead {
  readonly keys: Set<string>;
  readonly values: Promise<ReadonlyMap<string, string | null>>;
  settle(error: unknown, values: ReadonlyMap<string, string | null> | undefined): void;
}

function pendingRead(): PendingRead {
  let settle!: PendingRead['settle'];
  const values = new Promise<ReadonlyMap<string, string | null>>((resolve, reject) => {
    settle = (error, result) => (result ? resolve(result) : reject(error instanceof Error ? error : new Error(String(error))));
  });
  return { keys: new Set(), values, settle };
}
