/**
 * When a rule's matches become triggers: the decision code, written once. RuleMemory keeps every
 * rule's state in plain maps and takes every time as an argument (no clock inside), so that
 *
 * - the embedded state store (adapters/state/memory-state-store.ts) is RuleMemory with the wall clock,
 * - a dry run replays stored events through a fresh RuleMemory with each event's timestamp as "now",
 * - the Redis state store (adapters/state/redis-state-store.ts) runs the same decisions as Lua
 *   scripts over the same state, and test/contract/state.contract.test.ts holds the two together.
 *
 * The semantics, per trigger kind (domain/rule-trigger.ts says what the kinds mean to a user):
 *
 * `every`: each match fires unless the rule is cooling down (until `nowMs + cooldownMs` of the last
 * trigger). A per-(rule, event) "fired" record, written only when the event fires and kept
 * FIRED_RECORD_TTL_MS of processing time, makes a redelivery of that event answer `again` with the
 * same kind, count and suppressed flag. A redelivered event that was in cooldown is evaluated again
 * (it may fire if the cooldown has ended since): that is a new decision, not a double count.
 *
 * `threshold` {count N, window W}, per (rule, group):
 * - `events`: every counted event (pending or consumed) with its event time, for redeliveries;
 *   `pending`: those counted and not yet consumed; `newest`: the latest event time counted.
 * - An event already in `events` is `seen`. An event at or before `newest - W` is `late`: it could
 *   complete no window that can still fire on time, so it is not counted (and not recorded).
 * - Otherwise it becomes pending, and the pending events in (newest - W, newest] are counted: the
 *   window ending at the arriving event's own timestamp when events come in time order, and for an
 *   event that arrives after newer ones, the window that holds it and them (it is not late, so it
 *   falls in that window). Counting up to the event's own time instead would leave the newer events
 *   out of its window, and a burst sent out of order would never reach N. At N or more: when the group is cooling down, `cooldown` (nothing is consumed, so the
 *   count keeps building and the first match after the cooldown that finds N or more fires);
 *   otherwise `fired` kind `threshold` with `count` = the events counted, all of which are consumed,
 *   and the group's cooldown starts. Below N: `counted`.
 * - Entries at or before `newest - 2W` are dropped: no countable window reaches them any more (the
 *   window of an event that is not late starts after `newest - 2W`), and a redelivery of one is late
 *   anyway, so dropping them changes no answer.
 * - A group expires (all of it, cooldown included) GROUP_IDLE_MS after `2W` past the last event it
 *   counted, or at the end of its cooldown if that is later, in processing time: memory stays bounded
 *   for groups of high cardinality. Redeliveries and late events do not keep a group alive: they
 *   change nothing, and must not, for a redelivery to be a no-op.
 *
 * `absence` {window W}, per rule: a deadline (processing time) and a "silent" flag.
 * - A match: if this event made the recovery already, `again`. Otherwise the deadline becomes
 *   `nowMs + W`; if the rule was silent, the silence ends with `fired` kind `recovered` (a recovery is
 *   not a trigger: the counters do not move), else `counted`. The cooldown does not apply.
 * - armAbsence sets the deadline and clears the silence and any claim; disarmAbsence forgets all.
 * - claimDueAbsences: first the claims whose lease ended (their claimer died; same deadline), then
 *   the rules whose deadline passed, oldest first; each becomes silent, loses its deadline (the next
 *   match sets one) and is claimed until `nowMs + leaseMs`. A rule whose earlier claim is still open
 *   is not claimed for a newer deadline until that claim completes (one claim per rule at a time).
 * - completeAbsence counts the trigger once, only while that very claim (rule and deadline) is open.
 *
 * Counters: triggerCount counts `every` and `threshold` triggers and completed absences, never a
 * recovery or an `again`; suppressedCount those among them made while snoozed; lastTriggeredAtMs the
 * processing time of the latest. A snoozed rule's trigger changes the state as any other (it
 * consumes, it starts the cooldown) and answers `suppressed: true`; its `again` says the same.
 */

/**
 * How a rule's matches become triggers, as the state store needs it: the trigger kind with its window
 * in milliseconds. See domain/rule-trigger.ts for what each kind means.
 */
export type TriggerSpec =
  | { readonly type: 'every' }
  | { readonly type: 'threshold'; readonly count: number; readonly windowMs: number }
  | { readonly type: 'absence'; readonly windowMs: number };

/** One (rule, matching event) pair to record; see `StateStore.recordMatch`. */
export interface MatchRecord {
  readonly ruleId: string;
  /** The rule's app: an absence rule's deadline names it, so the watcher can load the rule. */
  readonly appId: string;
  readonly eventId: string;
  /** The event's own timestamp: threshold windows are by event time. */
  readonly eventTimeMs: number;
  /** Processing time: cooldowns and absence deadlines run on it. */
  readonly nowMs: number;
  readonly trigger: TriggerSpec;
  /** Threshold rules: the event's group value as text, '' without `groupBy`. Ignored otherwise. */
  readonly group: string;
  /** 0: no cooldown. Per group for threshold rules; absence rules ignore it. */
  readonly cooldownMs: number;
  /** The rule is snoozed: a trigger still counts (and counts as suppressed) but is marked suppressed. */
  readonly snoozed: boolean;
}

/** What made a trigger: a match (`every`), a threshold reached, or the first match after a silence. */
export type FiredKind = 'match' | 'threshold' | 'recovered';

/**
 * What recording a match did.
 * - `fired`: this call made a trigger: `match` (every), `threshold` (with the events it consumed in
 *   `count`) or `recovered` (the first match after an absence trigger).
 * - `again`: this event had already made that trigger (a redelivery): same kind, count and
 *   `suppressed` as the first time, so its deliveries can be made sure of.
 * - `cooldown`: the rule (threshold: the group) is cooling down; nothing triggered.
 * - `counted`: counted toward a threshold, or restarted an absence clock; nothing triggered.
 * - `seen`: this event was recorded before and did not trigger then (a redelivery); nothing changed.
 * - `late`: a threshold event whose timestamp is at or before the group's newest counted timestamp
 *   minus the window; not counted, nothing changed.
 */
export type MatchOutcome =
  | { readonly outcome: 'fired' | 'again'; readonly kind: FiredKind; readonly count: number; readonly suppressed: boolean }
  | { readonly outcome: 'cooldown' | 'counted' | 'seen' | 'late' };

export type MatchOutcomeName = MatchOutcome['outcome'];

/** An absence rule whose deadline passed, claimed by one worker; see `StateStore.claimDueAbsences`. */
export interface DueAbsence {
  readonly ruleId: string;
  readonly appId: string;
  /** Epoch milliseconds: the deadline that passed. Identifies this silence. */
  readonly deadlineMs: number;
}

/** A rule's counters as the rules API shows them. */
export interface RuleCounters {
  readonly triggerCount: number;
  readonly suppressedCount: number;
  /** Epoch milliseconds, or null before the first trigger. */
  readonly lastTriggeredAtMs: number | null;
}

/**
 * How long "this event triggered this rule" is kept, in processing time. It must outlive any
 * redelivery of the event: Kafka redelivers within seconds to minutes (a crash, a rebalance, a
 * ClickHouse outage holding a batch back); a day covers any realistic backlog.
 */
export const FIRED_RECORD_TTL_MS = 24 * 60 * 60 * 1000;

/** How long a threshold group outlives the span (2W) in which its events can still count. */
export const GROUP_IDLE_MS = 60 * 60 * 1000;

/** A threshold group's life after the last event it counted. */
export function groupTtlMs(windowMs: number): number {
  return 2 * windowMs + GROUP_IDLE_MS;
}

/** A fired record's life: a threshold's also covers its group's, so a redelivery says `again`, not `seen`. */
export function firedRecordTtlMs(trigger: TriggerSpec): number {
  return trigger.type === 'threshold' ? Math.max(FIRED_RECORD_TTL_MS, groupTtlMs(trigger.windowMs)) : FIRED_RECORD_TTL_MS;
}

const NOTHING_COUNTED: RuleCounters = Object.freeze({ triggerCount: 0, suppressedCount: 0, lastTriggeredAtMs: null });
const COOLDOWN: MatchOutcome = Object.freeze({ outcome: 'cooldown' });
const COUNTED: MatchOutcome = Object.freeze({ outcome: 'counted' });
const SEEN: MatchOutcome = Object.freeze({ outcome: 'seen' });
const LATE: MatchOutcome = Object.freeze({ outcome: 'late' });

/**
 * Rejects a record no adapter could store exactly: times and durations are whole milliseconds (Redis
 * scores and Lua numbers are doubles, exact for these), a threshold counts at least one event, and a
 * window is positive. Both adapters check through these, so both refuse the same input.
 */
export function checkMatchRecord(r: MatchRecord): void {
  checkWholeMs('eventTimeMs', r.eventTimeMs, Number.MIN_SAFE_INTEGER);
  checkWholeMs('nowMs', r.nowMs);
  checkWholeMs('cooldownMs', r.cooldownMs);
  if (r.trigger.type !== 'every') checkWholeMs('trigger.windowMs', r.trigger.windowMs, 1);
  if (r.trigger.type === 'threshold') checkWholeMs('trigger.count', r.trigger.count, 1);
}

/** A time or duration in whole milliseconds, at least `min` (0 unless given). */
export function checkWholeMs(name: string, value: number, min = 0): void {
  if (!Number.isSafeInteger(value) || value < min) throw new RangeError(`${name} must be a whole number of at least ${min}, got ${value}`);
}

interface FiredRecord {
  readonly kind: FiredKind;
  readonly count: number;
  readonly suppressed: boolean;
  readonly expiresAtMs: number;
}

interface Group {
  /** Counted events, pending or consumed: id -> event time. */
  readonly events: Map<string, number>;
  /** The same events by time, to drop the old ones from `events`. */
  readonly counted: TimeLine;
  /** Counted and not consumed. */
  readonly pending: TimeLine;
  newestMs: number;
  /** 0 when the group has never cooled down. */
  cooldownUntilMs: number;
  expiresAtMs: number;
}

interface RuleState {
  triggerCount: number;
  suppressedCount: number;
  lastTriggeredAtMs: number | null;
  /** Per event that triggered; in insertion order, which is nearly expiry order. */
  readonly fired: Map<string, FiredRecord>;
  /** `every` rules; 0 when the rule has never cooled down. */
  cooldownUntilMs: number;
  /** `threshold` rules: per group value. */
  readonly groups: Map<string, Group>;
}

interface AbsenceState {
  appId: string;
  deadlineMs: number | undefined;
  silent: boolean;
  claim: { readonly deadlineMs: number; leaseUntilMs: number } | undefined;
}

/** Every rule's trigger state, decided with the times given; see the top of this file. */
export class RuleMemory {
  readonly #rules = new Map<string, RuleState>();
  readonly #absences = new Map<string, AbsenceState>();

  recordMatch(r: MatchRecord): MatchOutcome {
    checkMatchRecord(r);
    const rule = this.#rule(r.ruleId);
    const fired = rule.fired.get(r.eventId);
    if (fired) {
      if (fired.expiresAtMs > r.nowMs) return { outcome: 'again', kind: fired.kind, count: fired.count, suppressed: fired.suppressed };
      rule.fired.delete(r.eventId);
    }
    switch (r.trigger.type) {
      case 'every':
        return this.#every(rule, r);
      case 'threshold':
        return this.#threshold(rule, r, r.trigger.count, r.trigger.windowMs);
      case 'absence':
        return this.#absence(rule, r, r.trigger.windowMs);
    }
  }

  /** (Re)starts an absence rule's clock: deadline set, no silence, no claim. */
  armAbsence(ruleId: string, appId: string, deadlineMs: number): void {
    checkWholeMs('deadlineMs', deadlineMs);
    this.#absences.set(ruleId, { appId, deadlineMs, silent: false, claim: undefined });
  }

  disarmAbsence(ruleId: string): void {
    this.#absences.delete(ruleId);
  }

  /**
   * Lapsed claims first (oldest lease end first), then passed deadlines (oldest first); ties by rule
   * id, as a Redis sorted set orders them. Up to `limit` in all.
   */
  claimDueAbsences(nowMs: number, leaseMs: number, limit: number): DueAbsence[] {
    checkWholeMs('nowMs', nowMs);
    checkWholeMs('leaseMs', leaseMs);
    const leaseUntilMs = nowMs + leaseMs;
    const lapsed = [...this.#absences]
      .flatMap(([ruleId, a]) => (a.claim && a.claim.leaseUntilMs <= nowMs ? [{ ruleId, a, at: a.claim.leaseUntilMs }] : []))
      .sort(byTimeThenId)
      .slice(0, Math.max(0, limit));
    const claims: DueAbsence[] = lapsed.map(({ ruleId, a }) => {
      a.claim!.leaseUntilMs = leaseUntilMs;
      return { ruleId, appId: a.appId, deadlineMs: a.claim!.deadlineMs };
    });
    const due = [...this.#absences]
      .flatMap(([ruleId, a]) => (a.deadlineMs !== undefined && a.deadlineMs <= nowMs && !a.claim ? [{ ruleId, a, at: a.deadlineMs }] : []))
      .sort(byTimeThenId)
      .slice(0, Math.max(0, limit - claims.length));
    for (const { ruleId, a, at } of due) {
      a.deadlineMs = undefined;
      a.silent = true;
      a.claim = { deadlineMs: at, leaseUntilMs };
      claims.push({ ruleId, appId: a.appId, deadlineMs: at });
    }
    return claims;
  }

  /** True once per claim: the absence trigger is counted; false when that claim is not open. */
  completeAbsence(claim: DueAbsence, suppressed: boolean, nowMs: number): boolean {
    checkWholeMs('nowMs', nowMs);
    const a = this.#absences.get(claim.ruleId);
    if (a?.claim?.deadlineMs !== claim.deadlineMs) return false;
    a.claim = undefined;
    count(this.#rule(claim.ruleId), suppressed, nowMs);
    return true;
  }

  ruleCounters(ruleIds: readonly string[]): RuleCounters[] {
    return ruleIds.map((id) => {
      const rule = this.#rules.get(id);
      return rule ? { triggerCount: rule.triggerCount, suppressedCount: rule.suppressedCount, lastTriggeredAtMs: rule.lastTriggeredAtMs } : NOTHING_COUNTED;
    });
  }

  forgetRule(ruleId: string): void {
    this.#rules.delete(ruleId);
    this.#absences.delete(ruleId);
  }

  /**
   * Drops what has expired by `nowMs` (fired records, threshold groups, and rules left with nothing).
   * Every read checks expiry itself, so for calls at `nowMs` or later no answer changes; it only
   * bounds memory for state nobody reads again.
   */
  expire(nowMs: number): void {
    for (const [id, rule] of this.#rules) {
      for (const [eventId, fired] of rule.fired) if (fired.expiresAtMs <= nowMs) rule.fired.delete(eventId);
      for (const [group, state] of rule.groups) if (state.expiresAtMs <= nowMs) rule.groups.delete(group);
      const idle = rule.triggerCount === 0 && rule.fired.size === 0 && rule.groups.size === 0 && rule.cooldownUntilMs <= nowMs;
      if (idle) this.#rules.delete(id);
    }
  }

  #rule(ruleId: string): RuleState {
    let rule = this.#rules.get(ruleId);
    if (!rule) {
      rule = { triggerCount: 0, suppressedCount: 0, lastTriggeredAtMs: null, fired: new Map(), cooldownUntilMs: 0, groups: new Map() };
      this.#rules.set(ruleId, rule);
    }
    return rule;
  }

  #every(rule: RuleState, r: MatchRecord): MatchOutcome {
    if (r.cooldownMs > 0) {
      if (rule.cooldownUntilMs > r.nowMs) return COOLDOWN;
      rule.cooldownUntilMs = r.nowMs + r.cooldownMs;
    }
    return fire(rule, r, 'match', 1, true);
  }

  #threshold(rule: RuleState, r: MatchRecord, n: number, windowMs: number): MatchOutcome {
    const t = r.eventTimeMs;
    let group = rule.groups.get(r.group);
    if (group && group.expiresAtMs <= r.nowMs) {
      rule.groups.delete(r.group);
      group = undefined;
    }
    if (group?.events.has(r.eventId)) return SEEN;
    if (group && t <= group.newestMs - windowMs) return LATE;
    if (!group) {
      group = { events: new Map(), counted: new TimeLine(), pending: new TimeLine(), newestMs: t, cooldownUntilMs: 0, expiresAtMs: 0 };
      rule.groups.set(r.group, group);
    }
    group.events.set(r.eventId, t);
    group.counted.add(t, r.eventId);
    group.pending.add(t, r.eventId);
    group.newestMs = Math.max(group.newestMs, t);
    const forgetBefore = group.newestMs - 2 * windowMs;
    const events = group.events;
    group.counted.dropUpTo(forgetBefore, (id) => events.delete(id));
    group.pending.dropUpTo(forgetBefore);

    // The window ends at the group's newest event: the arriving one when events come in time order,
    // and, for one that arrives late, the window that holds it and the newer events counted before it.
    const windowEnd = group.newestMs;
    const inWindow = group.pending.countIn(windowEnd - windowMs, windowEnd);
    let outcome: MatchOutcome;
    if (inWindow < n) outcome = COUNTED;
    else if (r.cooldownMs > 0 && group.cooldownUntilMs > r.nowMs) outcome = COOLDOWN;
    else {
      group.pending.removeIn(windowEnd - windowMs, windowEnd);
      if (r.cooldownMs > 0) group.cooldownUntilMs = r.nowMs + r.cooldownMs;
      outcome = fire(rule, r, 'threshold', inWindow, true);
    }
    group.expiresAtMs = Math.max(r.nowMs + groupTtlMs(windowMs), group.cooldownUntilMs);
    return outcome;
  }

  #absence(rule: RuleState, r: MatchRecord, windowMs: number): MatchOutcome {
    let a = this.#absences.get(r.ruleId);
    if (!a) {
      a = { appId: r.appId, deadlineMs: undefined, silent: false, claim: undefined };
      this.#absences.set(r.ruleId, a);
    }
    a.appId = r.appId;
    a.deadlineMs = r.nowMs + windowMs;
    if (!a.silent) return COUNTED;
    a.silent = false;
    return fire(rule, r, 'recovered', 1, false);
  }
}

/**
 * For dry runs: the absence triggers due by `nowMs`, claimed and completed at once, each completed at
 * its own deadline (the live watcher alerts within its poll interval of it). `snoozed` says whether a
 * claim's trigger is suppressed.
 */
export function fireDueAbsences(memory: RuleMemory, nowMs: number, snoozed: (claim: DueAbsence) => boolean = () => false): DueAbsence[] {
  const claims = memory.claimDueAbsences(nowMs, 1, Number.MAX_SAFE_INTEGER);
  return claims.filter((claim) => memory.completeAbsence(claim, snoozed(claim), claim.deadlineMs));
}

/** Records the trigger of `r`'s event (for `again`) and, unless a recovery, counts it. */
function fire(rule: RuleState, r: MatchRecord, kind: FiredKind, eventCount: number, counts: boolean): MatchOutcome {
  // Records are added in processing order, so the expired ones are (nearly always) at the front.
  for (const [eventId, old] of rule.fired) {
    if (old.expiresAtMs > r.nowMs) break;
    rule.fired.delete(eventId);
  }
  rule.fired.set(r.eventId, { kind, count: eventCount, suppressed: r.snoozed, expiresAtMs: r.nowMs + firedRecordTtlMs(r.trigger) });
  if (counts) count(rule, r.snoozed, r.nowMs);
  return { outcome: 'fired', kind, count: eventCount, suppressed: r.snoozed };
}

function count(rule: RuleState, suppressed: boolean, nowMs: number): void {
  rule.triggerCount++;
  if (suppressed) rule.suppressedCount++;
  rule.lastTriggeredAtMs = nowMs;
}

function byTimeThenId(x: { at: number; ruleId: string }, y: { at: number; ruleId: string }): number {
  return x.at - y.at || (x.ruleId < y.ruleId ? -1 : x.ruleId > y.ruleId ? 1 : 0);
}

/**
 * Event ids ordered by event time. Events mostly arrive in time order, so adding is usually a push,
 * and dropping the oldest only moves a head index (the arrays are compacted now and then).
 */
class TimeLine {
  #times: number[] = [];
  #ids: string[] = [];
  #head = 0;

  add(t: number, id: string): void {
    const last = this.#times.at(-1);
    if (last === undefined || t >= last || this.#times.length === this.#head) {
      this.#times.push(t);
      this.#ids.push(id);
      return;
    }
    const at = this.#after(t);
    this.#times.splice(at, 0, t);
    this.#ids.splice(at, 0, id);
  }

  /** How many have a time in (from, to]. */
  countIn(from: number, to: number): number {
    return this.#after(to) - this.#after(from);
  }

  /** Removes those with a time in (from, to]. */
  removeIn(from: number, to: number): void {
    const start = this.#after(from);
    const end = this.#after(to);
    this.#times.splice(start, end - start);
    this.#ids.splice(start, end - start);
  }

  /** Removes those with a time at or before `bound`, telling `dropped` each id. */
  dropUpTo(bound: number, dropped?: (id: string) => void): void {
    const end = this.#after(bound);
    if (dropped) for (let i = this.#head; i < end; i++) dropped(this.#ids[i]!);
    this.#head = end;
    if (this.#head > 64 && this.#head * 2 > this.#times.length) {
      this.#times = this.#times.slice(this.#head);
      this.#ids = this.#ids.slice(this.#head);
      this.#head = 0;
    }
  }

  /** The index of the first entry (from the head) whose time is after `t`. */
  #after(t: number): number {
    let low = this.#head;
    let high = this.#times.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.#times[mid]! <= t) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
