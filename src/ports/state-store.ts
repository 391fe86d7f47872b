/**
 * Shared fast state: rule counters, cooldowns, idempotency records, cache invalidation.
 * Distributed mode: Redis (redis-state-store.ts), shared by every process. Embedded mode: process
 * memory (memory-state-store.ts). Both pass test/contract/state.contract.test.ts.
 *
 * Every call settles within a bounded time: when the store cannot be reached it rejects (within about
 * two seconds for Redis) rather than waiting for it to come back. A rejected write may still have
 * been applied (the reply, not the command, may have been lost).
 */

import type { DueAbsence, MatchOutcome, MatchRecord, RuleCounters } from '../domain/rule-decision.js';

/** The decision types live with the decision code (domain/rule-decision.ts); the port names them. */
export type { DueAbsence, MatchOutcome, MatchOutcomeName, MatchRecord, RuleCounters, TriggerSpec } from '../domain/rule-decision.js';

export type MessageHandler = (message: string) => void;

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
   * Records one match of a rule, atomically, and says whether it triggers (see MatchOutcome). Exact
   * across processes, repeated calls for one event (redeliveries) and crashes between calls: each
   * (rule, event) counts once, a threshold of N fires once per N matching events of a group in its
   * window, and two matches racing into a cooldown trigger once. A trigger increments the rule's
   * trigger count (and its suppressed count when `snoozed`) and sets its last-triggered time, in the
   * same step. Calls for one rule issued in order are applied in that order.
   */
  recordMatch(record: MatchRecord): Promise<MatchOutcome>;
  /**
   * (Re)starts an absence rule's clock: its deadline becomes `deadlineMs` and it is no longer in a
   * silence (no recovery alert is owed). Called when such a rule is created, enabled, or its trigger
   * changes.
   */
  armAbsence(ruleId: string, appId: string, deadlineMs: number): Promise<void>;
  /** Forgets a rule's absence deadline and silence (disabled, deleted, or no longer an absence rule). */
  disarmAbsence(ruleId: string): Promise<void>;
  /**
   * Claims up to `limit` absence rules whose deadline is at or before `nowMs`, each for `leaseMs`:
   * a claimed rule is in a silence from then on (its next match is `recovered`), and no other call
   * returns it while the lease lasts. A claim not completed before its lease ends is returned again
   * (its claimer died), with the same deadline.
   */
  claimDueAbsences(nowMs: number, leaseMs: number, limit: number): Promise<DueAbsence[]>;
  /**
   * Ends a claim, once: counts the absence trigger (and as suppressed when `suppressed`), sets the
   * last-triggered time to `nowMs`, and returns true; false when this claim was completed already.
   */
  completeAbsence(claim: DueAbsence, suppressed: boolean, nowMs: number): Promise<boolean>;
  /** The counters of many rules in one round trip, in the order given. */
  ruleCounters(ruleIds: readonly string[]): Promise<RuleCounters[]>;
  /** Removes everything a rule keeps in the store (its counters, windows, cooldowns, deadline). */
  forgetRule(ruleId: string): Promise<void>;
  /**
   * Marks `member` of `group` present for the next `ttlMs` (by the store's clock, the one clock of
   * every process); again, it extends the mark, and a `ttlMs` of 0 removes it.
   */
  markPresent(group: string, member: string, ttlMs: number): Promise<void>;
  /** The members of `group` whose presence has not run out. */
  presentMembers(group: string): Promise<string[]>;
  /** Delivers to every subscriber of the channel in every process (at-most-once, like Redis pub/sub). */
  publish(channel: string, message: string): Promise<void>;
  /** Resolves once the subscription is active; the returned function unsubscribes. */
  subscribe(channel: string, handler: MessageHandler): Promise<() => Promise<void>>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
