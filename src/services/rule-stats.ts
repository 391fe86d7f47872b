import type { StateStore } from '../ports/state-store.js';
import { DomainError } from '../domain/errors.js';
import { ruleStatKeys } from '../domain/rule-state-keys.js';

/** A rule's trigger statistics as the API shows them. */
export interface RuleStats {
  readonly triggerCount: number;
  /** ISO 8601, or null until the rule first triggers. */
  readonly lastTriggeredAt: string | null;
}

/**
 * The statistics of many rules in one state-store round trip. The worker counts in the state store
 * (exact under concurrency, atomic INCR); the counter is an integer string, the time epoch
 * milliseconds; a missing key means "never triggered". When the state store cannot be read, the
 * request fails with 503 rather than showing a count of 0 that is not true.
 */
export async function readRuleStats(state: StateStore, ruleIds: readonly string[]): Promise<RuleStats[]> {
  const keys = ruleIds.flatMap((id) => {
    const k = ruleStatKeys(id);
    return [k.triggers, k.lastTriggeredAt];
  });
  let values: Array<string | null>;
  try {
    values = await state.getMany(keys);
  } catch (err) {
    throw new DomainError('unavailable', 'rule statistics are unavailable right now; try again', { retryAfterSeconds: 1, cause: err });
  }
  return ruleIds.map((_, i) => ({ triggerCount: integerOf(values[2 * i] ?? null), lastTriggeredAt: timeOf(values[2 * i + 1] ?? null) }));
}

function integerOf(value: string | null): number {
  const n = value === null ? 0 : Number(value);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

function timeOf(value: string | null): string | null {
  const ms = value === null ? NaN : Number(value);
  return Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : null;
}
