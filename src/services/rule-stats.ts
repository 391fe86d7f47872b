import type { RuleCounters, StateStore } from '../ports/state-store.js';
import { DomainError } from '../domain/errors.js';

/** A rule's trigger statistics as the API shows them. */
export interface RuleStats {
  readonly triggerCount: number;
  /** Triggers made while the rule was snoozed (counted in `triggerCount`, delivered to no one). */
  readonly suppressedCount: number;
  /** ISO 8601, or null until the rule first triggers. */
  readonly lastTriggeredAt: string | null;
}

/**
 * The statistics of many rules in one state-store round trip. The worker counts in the state store,
 * in the same atomic step that decides the trigger (StateStore.recordMatch, completeAbsence), so the
 * counts are exact under concurrency. When the state store cannot be read, the request fails with 503
 * rather than showing a count of 0 that is not true.
 */
export async function readRuleStats(state: Pick<StateStore, 'ruleCounters'>, ruleIds: readonly string[]): Promise<RuleStats[]> {
  let counters: RuleCounters[];
  try {
    counters = await state.ruleCounters(ruleIds);
  } catch (err) {
    throw new DomainError('unavailable', 'rule statistics are unavailable right now; try again', { retryAfterSeconds: 1, cause: err });
  }
  return counters.map((c) => ({
    triggerCount: c.triggerCount,
    suppressedCount: c.suppressedCount,
    lastTriggeredAt: c.lastTriggeredAtMs === null ? null : new Date(c.lastTriggeredAtMs).toISOString(),
  }));
}
