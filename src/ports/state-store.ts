/**
 * Shared fast state: rule counters, cooldowns, idempotency records, cache invalidation.
 * Distributed mode: Redis (redis-state-store.ts), shared by every process. Embedded mode: process
 * memory (memory-state-store.ts). Both pass test/contract/state.contract.test.ts.
 *
 * Every call settles within a bounded time: when the store cannot be reached it rejects (within about
 * two seconds for Redis) rather than waiting for it to come back. A rejected write may still have
 * been applied (the reply, not the command, may have been lost).
 */

export type MessageHandler = (message: string) => void;

/** The keys and times of one rule trigger; see `StateStore.recordTrigger`. */
export interface TriggerRecord {
  /** Present once this (rule, event) triggered; guards against a redelivered event firing again. */
  readonly onceKey: string;
  readonly onceTtlMs: number;
  /** Present while the rule cools down; null when the rule has no cooldown. */
  readonly cooldownKey: string | null;
  readonly cooldownMs: number;
  /** Integer counter of triggers, and the epoch-milliseconds time of the last one. */
  readonly counterKey: string;
  readonly lastTriggeredKey: string;
  readonly nowMs: number;
}

/**
 * `fired`: this call recorded the trigger. `again`: this (rule, event) had already triggered (a
 * redelivery). `cooldown`: the rule is cooling down, so this match does not trigger.
 */
export type TriggerOutcome = 'fired' | 'again' | 'cooldown';

/** Keys that count toward one bound (one app's idempotency records); see `StateStore.setIfAbsentBounded`. */
export interface KeyBound {
  /** Names the set of keys, e.g. `idem:<appId>`. */
  readonly scope: string;
  /** Most keys the scope keeps. */
  readonly max: number;
  /** A key set longer ago than this no longer counts (nor is it kept by the scope). */
  readonly windowMs: number;
}

export interface StateStore {
  /** Atomically adds `by` (default 1) to an integer counter (missing = 0) and returns the new value. */
  increment(key: string, by?: number): Promise<number>;
  get(key: string): Promise<string | null>;
  /** The values of many keys in one round trip, in the order given (null for a missing key). */
  getMany(keys: readonly string[]): Promise<Array<string | null>>;
  /** Sets the value, with an optional time to live. */
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  /** Atomically sets the value only when the key is absent; true when this call set it. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  /**
   * setIfAbsent for keys that a client can create at will: when this call sets the key, it also joins
   * the scope of `bound`, and if the scope then holds more than `bound.max` keys set within the last
   * `bound.windowMs`, the oldest of them are deleted. Atomic like setIfAbsent. A key later rewritten
   * with `set` keeps its place in the scope.
   */
  setIfAbsentBounded(key: string, value: string, ttlMs: number, bound: KeyBound): Promise<boolean>;
  delete(key: string): Promise<void>;
  /**
   * A rule trigger, atomically: unless `onceKey` exists (→ `again`) or `cooldownKey` exists
   * (→ `cooldown`), sets `onceKey` and `cooldownKey` with their TTLs, increments `counterKey` and sets
   * `lastTriggeredKey` to `nowMs` (→ `fired`). One step, so concurrent or repeated evaluations of
   * the same event count exactly once, and two events racing into a cooldown trigger once.
   */
  recordTrigger(record: TriggerRecord): Promise<TriggerOutcome>;
  /** Delivers to every subscriber of the channel in every process (at-most-once, like Redis pub/sub). */
  publish(channel: string, message: string): Promise<void>;
  /** Resolves once the subscription is active; the returned function unsubscribes. */
  subscribe(channel: string, handler: MessageHandler): Promise<() => Promise<void>>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
