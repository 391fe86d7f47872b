/**
 * State keys of rules, as the Redis state store lays them out (domain/rule-decision.ts says what the
 * state means; the embedded store keeps the same state in maps).
 *
 * Every key of one rule shares the `{rule:<id>}` hash tag, so in a Redis Cluster they live in one slot
 * and one script may touch them all. A threshold group's keys carry a digest of the group value (the
 * value is arbitrary event text of any length), given by the caller.
 */
export interface RuleStateKeys {
  /** Integer strings; a missing key is 0. `triggers` and `lastTriggeredAt` predate trigger kinds. */
  readonly triggers: string;
  readonly suppressed: string;
  /** Epoch milliseconds of the last trigger. */
  readonly lastTriggeredAt: string;
  /** `every` rules: the end of the cooldown, epoch milliseconds. */
  readonly cooldown: string;
  /** Hash: event id -> the trigger it made (`kind:count:suppressed:expiresAt`). */
  readonly fired: string;
  /** Sorted set: event id by its fired record's expiry, to drop the expired ones from `fired`. */
  readonly firedExpiry: string;
  /** Sorted set: group digest by the group's expiry, so that forgetRule finds every group. */
  readonly groups: string;
  /** The keys of one threshold group; `groupKeyHead + digest + one of GROUP_KEY_SUFFIXES`. */
  readonly group: (digest: string) => GroupKeys;
  readonly groupKeyHead: string;
}

export interface GroupKeys {
  /** Sorted set: every counted event id (pending or consumed) by event time. */
  readonly events: string;
  /** Sorted set: the counted events not consumed yet, by event time. */
  readonly pending: string;
  /** The end of the group's cooldown, epoch milliseconds. */
  readonly cooldown: string;
}

/** The suffixes of a group's keys, for a script that derives them from the digests in `groups`. */
export const GROUP_KEY_SUFFIXES: Readonly<Record<keyof GroupKeys, string>> = Object.freeze({ events: ':events', pending: ':pending', cooldown: ':cooldown' });

export const ruleStatKeys = (ruleId: string): RuleStateKeys => {
  const tag = `{rule:${ruleId}}`;
  const groupKeyHead = `${tag}:group:`;
  return {
    triggers: `${tag}:triggers`,
    suppressed: `${tag}:suppressed`,
    lastTriggeredAt: `${tag}:last-triggered-at`,
    cooldown: `${tag}:cooldown`,
    fired: `${tag}:fired`,
    firedExpiry: `${tag}:fired-expiry`,
    groups: `${tag}:groups`,
    groupKeyHead,
    group: (digest) => ({
      events: groupKeyHead + digest + GROUP_KEY_SUFFIXES.events,
      pending: groupKeyHead + digest + GROUP_KEY_SUFFIXES.pending,
      cooldown: groupKeyHead + digest + GROUP_KEY_SUFFIXES.cooldown,
    }),
  };
};

/**
 * The absence watcher's keys, one set for all rules (the watcher asks "which rule is due", not "is
 * this rule due"). They share the `{absence}` hash tag, so claiming touches one slot.
 */
export const ABSENCE_KEYS = Object.freeze({
  /** Sorted set: rule id by its deadline (epoch milliseconds). */
  due: '{absence}:due',
  /** Sorted set: rule id by the end of its claim's lease. */
  claims: '{absence}:claims',
  /** Hash: rule id -> the deadline its open claim is for. */
  claimed: '{absence}:claimed',
  /** Hash: rule id -> its app id, for the watcher to load the rule. */
  apps: '{absence}:apps',
  /** Set: the rules in a silence (their next match is a recovery). */
  silent: '{absence}:silent',
});
