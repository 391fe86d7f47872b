import { EventEmitter } from 'node:events';
import type { DueAbsence, KeyBound, MatchOutcome, MatchRecord, MessageHandler, RuleCounters, StateStore } from '../../ports/state-store.js';
import { RuleMemory } from '../../domain/rule-decision.js';
import { entryOf } from '../../lib/map-entry.js';

/**
 * Embedded mode's state: one process, so a Map is the whole truth and every operation is atomic by
 * construction (each runs to completion on the event loop before another starts).
 *
 * It mirrors what the Redis store does where callers could notice: INCRBY on a non-integer fails,
 * INCRBY keeps an existing expiry, a plain `set` clears one, and pub/sub is asynchronous and
 * at-most-once (a handler subscribed after a publish does not get it).
 *
 * Rule state (matches, thresholds, absences, counters) is domain/rule-decision.ts's RuleMemory itself,
 * the decision code the Redis scripts mirror; it runs on the times the callers pass (the record's
 * `nowMs`, the claim's `nowMs`), never on this process's clock.
 */

interface Entry {
  value: string;
  /** Epoch milliseconds after which the entry no longer exists; undefined = no expiry. */
  expiresAt: number | undefined;
}

export interface MemoryStateStoreOptions {
  /**
   * How often expired entries are removed even if nobody reads them. Reads already ignore expired
   * entries; the sweep only bounds memory for keys written once and never read again (cooldowns,
   * idempotency records, rules' fired records and idle threshold groups). A minute keeps the sweep
   * cost negligible.
   */
  readonly sweepIntervalMs?: number;
  /** Receives errors thrown by subscription handlers, which must not break `publish`. */
  readonly onHandlerError?: (error: unknown, channel: string) => void;
}

const INTEGER = /^-?\d+$/;

export class MemoryStateStore implements StateStore {
  readonly #entries = new Map<string, Entry>();
  /** Per bounded scope: its keys and when each was set, oldest first (a Map keeps insertion order). */
  readonly #scopes = new Map<string, Map<string, number>>();
  /** Per group of StateStore.markPresent: each member and when its presence runs out. */
  readonly #presence = new Map<string, Map<string, number>>();
  #rules = new RuleMemory();
  /**
   * The latest time a caller gave with rule state. The sweep expires rule state by it, not by this
   * process's clock, so that no answer depends on the wall clock (a test may run on any time).
   */
  #rulesNowMs = 0;
  readonly #channels = new EventEmitter();
  readonly #sweep: NodeJS.Timeout;
  readonly #onHandlerError: (error: unknown, channel: string) => void;
  #closed = false;

  constructor(options: MemoryStateStoreOptions = {}) {
    this.#onHandlerError = options.onHandlerError ?? (() => undefined);
    // Many parts of the process may listen to the same channel; the default cap of 10 is a leak
    // detector for code that adds a listener per request, which subscribe() does not do.
    this.#channels.setMaxListeners(0);
    this.#sweep = setInterval(() => this.#removeExpired(), options.sweepIntervalMs ?? 60_000);
    // The sweep must never keep a process alive that has nothing else to do.
    this.#sweep.unref();
  }

  increment(key: string, by = 1): Promise<number> {
    return this.#run(() => {
      const entry = this.#live(key);
      const next = (entry ? parseInteger(entry.value, key) : 0) + by;
      if (!Number.isSafeInteger(next)) throw new RangeError(`increment of ${key} leaves the safe integer range`);
      // Like INCRBY, the counter keeps the expiry it had (a rate-limit window stays a window).
      this.#entries.set(key, { value: String(next), expiresAt: entry?.expiresAt });
      return next;
    });
  }

  get(key: string): Promise<string | null> {
    return this.#run(() => this.#live(key)?.value ?? null);
  }

  getMany(keys: readonly string[]): Promise<Array<string | null>> {
    return this.#run(() => keys.map((key) => this.#live(key)?.value ?? null));
  }

  set(key: string, value: string, ttlMs?: number): Promise<void> {
    return this.#run(() => {
      this.#entries.set(key, { value, expiresAt: expiry(ttlMs) });
    });
  }

  recordMatch(record: MatchRecord): Promise<MatchOutcome> {
    return this.#run(() => {
      const outcome = this.#rules.recordMatch(record);
      this.#rulesNowMs = Math.max(this.#rulesNowMs, record.nowMs);
      return outcome;
    });
  }

  armAbsence(ruleId: string, appId: string, deadlineMs: number): Promise<void> {
    return this.#run(() => this.#rules.armAbsence(ruleId, appId, deadlineMs));
  }

  disarmAbsence(ruleId: string): Promise<void> {
    return this.#run(() => this.#rules.disarmAbsence(ruleId));
  }

  claimDueAbsences(nowMs: number, leaseMs: number, limit: number): Promise<DueAbsence[]> {
    return this.#run(() => {
      const claims = this.#rules.claimDueAbsences(nowMs, leaseMs, limit);
      this.#rulesNowMs = Math.max(this.#rulesNowMs, nowMs);
      return claims;
    });
  }

  completeAbsence(claim: DueAbsence, suppressed: boolean, nowMs: number): Promise<boolean> {
    return this.#run(() => this.#rules.completeAbsence(claim, suppressed, nowMs));
  }

  ruleCounters(ruleIds: readonly string[]): Promise<RuleCounters[]> {
    return this.#run(() => this.#rules.ruleCounters(ruleIds));
  }

  forgetRule(ruleId: string): Promise<void> {
    return this.#run(() => this.#rules.forgetRule(ruleId));
  }

  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    return this.#run(() => {
      if (this.#live(key)) return false;
      this.#entries.set(key, { value, expiresAt: expiry(ttlMs) });
      return true;
    });
  }

  setIfAbsentBounded(key: string, value: string, ttlMs: number, bound: KeyBound): Promise<boolean> {
    return this.#run(() => {
      if (this.#live(key)) return false;
      this.#entries.set(key, { value, expiresAt: expiry(ttlMs) });
      const now = Date.now();
      const keys = entryOf(this.#scopes, bound.scope, () => new Map<string, number>());
      keys.delete(key);
      keys.set(key, now);
      // Oldest first: those past the window leave the scope (their own TTL governs them), then as many
      // as the scope holds beyond its bound are deleted.
      for (const [old, setAt] of keys) {
        const expired = setAt <= now - bound.windowMs;
        if (!expired && keys.size <= bound.max) break;
        keys.delete(old);
        if (!expired) this.#entries.delete(old);
      }
      return true;
    });
  }

  delete(key: string): Promise<void> {
    return this.#run(() => {
      this.#entries.delete(key);
    });
  }

  markPresent(group: string, member: string, ttlMs: number): Promise<void> {
    return this.#run(() => {
      const now = Date.now();
      let members = this.#presence.get(group);
      if (!members) this.#presence.set(group, (members = new Map<string, number>()));
      for (const [name, until] of members) if (until <= now) members.delete(name);
      if (ttlMs > 0) members.set(member, now + ttlMs);
      else members.delete(member);
    });
  }

  presentMembers(group: string): Promise<string[]> {
    return this.#run(() => {
      const now = Date.now();
      return [...(this.#presence.get(group) ?? [])].filter(([, until]) => until > now).map(([name]) => name);
    });
  }

  publish(channel: string, message: string): Promise<void> {
    return this.#run(() => {
      // Delivery is deferred so that a publisher never runs subscriber code on its own stack, as with
      // Redis. The listeners are captured now: whoever subscribes after this call does not get it;
      // whoever unsubscribes before delivery does not get it either.
      const listeners = this.#channels.listeners(channel) as MessageHandler[];
      if (listeners.length === 0) return;
      setImmediate(() => {
        const current = this.#channels.listeners(channel);
        for (const listener of listeners) {
          if (!current.includes(listener)) continue;
          try {
            listener(message);
          } catch (error) {
            this.#onHandlerError(error, channel);
          }
        }
      });
    });
  }

  subscribe(channel: string, handler: MessageHandler): Promise<() => Promise<void>> {
    return this.#run(() => {
      // A wrapper gives each subscription its own identity, so subscribing the same function twice
      // and unsubscribing once leaves the other subscription in place.
      const listener: MessageHandler = (message) => handler(message);
      this.#channels.on(channel, listener);
      return () => {
        this.#channels.off(channel, listener);
        return Promise.resolve();
      };
    });
  }

  ping(): Promise<void> {
    return this.#run(() => undefined);
  }

  close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweep);
    this.#channels.removeAllListeners();
    this.#entries.clear();
    this.#scopes.clear();
    this.#rules = new RuleMemory();
    return Promise.resolve();
  }

  /** Runs an operation as a promise, so that callers see every failure as a rejection. */
  #run<T>(operation: () => T): Promise<T> {
    try {
      if (this.#closed) throw new Error('state store is closed');
      return Promise.resolve(operation());
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** The entry if it exists and has not expired; an expired one is removed on the way (lazy expiry). */
  #live(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= Date.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  #removeExpired(): void {
    const now = Date.now();
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt !== undefined && entry.expiresAt <= now) this.#entries.delete(key);
    }
    // A scope's keys that no longer exist go too, so that a scope nobody writes any more is dropped.
    for (const [scope, keys] of this.#scopes) {
      for (const key of keys.keys()) if (!this.#entries.has(key)) keys.delete(key);
      if (keys.size === 0) this.#scopes.delete(scope);
    }
    this.#rules.expire(this.#rulesNowMs);
  }
}

function expiry(ttlMs: number | undefined): number | undefined {
  if (ttlMs === undefined) return undefined;
  if (!Number.isInteger(ttlMs) || ttlMs <= 0) throw new RangeError(`ttlMs must be a positive integer, got ${ttlMs}`);
  return Date.now() + ttlMs;
}

function parseInteger(value: string, key: string): number {
  if (!INTEGER.test(value)) throw new Error(`value of ${key} is not an integer`);
  return Number(value);
}
