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

export interface StateStore {
  /** Atomically adds `by` (default 1) to an integer counter (missing = 0) and returns the new value. */
  increment(key: string, by?: number): Promise<number>;
  get(key: string): Promise<string | null>;
  /** Sets the value, with an optional time to live. */
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  /** Atomically sets the value only when the key is absent; true when this call set it. */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Delivers to every subscriber of the channel in every process (at-most-once, like Redis pub/sub). */
  publish(channel: string, message: string): Promise<void>;
  /** Resolves once the subscription is active; the returned function unsubscribes. */
  subscribe(channel: string, handler: MessageHandler): Promise<() => Promise<void>>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
