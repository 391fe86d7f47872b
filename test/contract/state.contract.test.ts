import net from 'node:net';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Redis } from 'ioredis';
import type { MatchOutcome, MatchRecord, StateStore, TriggerSpec } from '../../src/ports/state-store.js';
import { MemoryStateStore } from '../../src/adapters/state/memory-state-store.js';
import { RedisStateStore } from '../../src/adapters/state/redis-state-store.js';
import { stackEnv, uniqueName } from '../helpers/stack-env.js';
import { freePort } from '../helpers/net.js';

/**
 * The StateStore contract, run against both implementations. `a` and `b` are two views of the same
 * state: for Redis two separate stores (two connections, as two processes would have), for memory the
 * one store (embedded mode is one process). Each test gets a fresh key prefix or store.
 */
interface Views {
  readonly a: StateStore;
  readonly b: StateStore;
}

interface Implementation {
  readonly name: string;
  open(): Views;
}

const implementations: Implementation[] = [
  {
    name: 'MemoryStateStore',
    open: () => {
      const store = new MemoryStateStore();
      return { a: store, b: store };
    },
  },
  {
    name: 'RedisStateStore',
    open: () => {
      const { redisUrl } = stackEnv();
      const keyPrefix = `${uniqueName('test_state')}:`;
      return { a: new RedisStateStore({ url: redisUrl, keyPrefix }), b: new RedisStateStore({ url: redisUrl, keyPrefix }) };
    },
  },
];

const S = 1000;
const EVERY: TriggerSpec = { type: 'every' };
const threshold = (count: number, windowSeconds: number): TriggerSpec => ({ type: 'threshold', count, windowMs: windowSeconds * S });
const absence = (windowSeconds: number): TriggerSpec => ({ type: 'absence', windowMs: windowSeconds * S });

const fired = (kind: 'match' | 'threshold' | 'recovered', count: number, suppressed = false): MatchOutcome => ({ outcome: 'fired', kind, count, suppressed });
const again = (kind: 'match' | 'threshold' | 'recovered', count: number, suppressed = false): MatchOutcome => ({ outcome: 'again', kind, count, suppressed });
const outcomeNames = (outcomes: readonly MatchOutcome[]) => outcomes.map((o) => o.outcome);
const tally = (outcomes: readonly MatchOutcome[]) => {
  const counts: Partial<Record<MatchOutcome['outcome'], number>> = {};
  for (const o of outcomes) counts[o.outcome] = (counts[o.outcome] ?? 0) + 1;
  return counts;
};

/** A deterministic shuffle (the same order on every run). */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

for (const implementation of implementations) {
  describe(`StateStore contract: ${implementation.name}`, () => {
    let a: StateStore;
    let b: StateStore;
    /** Processing time of the rule cases: the wall clock at the start of the test, then as they say. */
    let T: number;
    /** The rules a test recorded anything for, forgotten after it. */
    const rules = new Set<string>();

    /** A match of `ruleId` for event `eventId`, at event time and processing time T unless given. */
    const rec = (ruleId: string, eventId: string, trigger: TriggerSpec, options: Partial<MatchRecord> = {}): MatchRecord => {
      rules.add(ruleId);
      return { ruleId, appId: 'app-1', eventId, eventTimeMs: T, nowMs: T, trigger, group: '', cooldownMs: 0, snoozed: false, ...options };
    };

    beforeEach(() => {
      ({ a, b } = implementation.open());
      T = Date.now();
    });

    afterEach(async () => {
      // Leave nothing behind in a shared Redis: these are all the keys the tests below write, and
      // forgetRule removes every key of a rule.
      await Promise.all(['counter', 'hits', 'lock', 'k', 'short', 'cooldown', 'marker'].map((key) => a.delete(key)));
      await Promise.all([...rules].map((ruleId) => a.forgetRule(ruleId)));
      rules.clear();
      await Promise.all([...new Set([a, b])].map((store) => store.close()));
    });

    it('answers ping', async () => {
      await expect(a.ping()).resolves.toBeUndefined();
    });

    it('increments from a missing counter, by any amount', async () => {
      expect(await a.increment('counter')).toBe(1);
      expect(await b.increment('counter', 5)).toBe(6);
      expect(await a.increment('counter', -2)).toBe(4);
      expect(await b.get('counter')).toBe('4');
    });

    it('increments atomically under concurrency: 1000 increments from two views count 1000', async () => {
      const results = await Promise.all(Array.from({ length: 1000 }, (_, i) => (i % 2 === 0 ? a : b).increment('hits')));
      expect(await a.get('hits')).toBe('1000');
      // Atomic means every caller saw a distinct value: no two read the same count and wrote the same.
      expect(new Set(results).size).toBe(1000);
      expect(Math.max(...results)).toBe(1000);
    });

    it('lets exactly one of 50 concurrent setIfAbsent calls win', async () => {
      const outcomes = await Promise.all(
        Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).setIfAbsent('lock', `owner-${i}`, 10_000)),
      );
      expect(outcomes.filter(Boolean)).toHaveLength(1);
      const winner = outcomes.indexOf(true);
      expect(await a.get('lock')).toBe(`owner-${winner}`);
      expect(await b.setIfAbsent('lock', 'late', 10_000)).toBe(false);
    });

    it('sets, overwrites, reads and deletes', async () => {
      expect(await a.get('k')).toBeNull();
      await a.set('k', 'one');
      expect(await b.get('k')).toBe('one');
      await b.set('k', 'two');
      expect(await a.get('k')).toBe('two');
      await a.delete('k');
      expect(await b.get('k')).toBeNull();
      // Deleting what is not there is not an error.
      await expect(b.delete('k')).resolves.toBeUndefined();
    });

    it('reads many keys at once, in the order asked, null for missing and expired ones', async () => {
      expect(await a.getMany([])).toEqual([]);
      await a.set('k', 'one');
      await a.increment('counter', 3);
      await a.set('short', 'gone', 50);
      await a.set('marker', 'x', 50);
      await vi.waitFor(async () => expect(await a.get('marker')).toBeNull(), { timeout: 3000, interval: 25 });
      expect(await b.getMany(['counter', 'lock', 'k', 'short', 'k'])).toEqual(['3', null, 'one', null, 'one']);
    });

    it('every: records each (rule, event) once: 1000 concurrent evaluations of 100 events from two views fire 100', async () => {
      const outcomes = await Promise.all(Array.from({ length: 1000 }, (_, n) => (n % 2 === 0 ? a : b).recordMatch(rec('every', `e${n % 100}`, EVERY))));
      expect(tally(outcomes)).toEqual({ fired: 100, again: 900 });
      for (const o of outcomes) expect(o).toMatchObject({ kind: 'match', count: 1, suppressed: false });
      expect(await b.ruleCounters(['every'])).toEqual([{ triggerCount: 100, suppressedCount: 0, lastTriggeredAtMs: T }]);
    });

    it('every: one of many events racing into a cooldown fires; its redelivery is again; the first match after the cooldown fires', async () => {
      const cooled = (eventId: string, nowMs: number, view = a) => view.recordMatch(rec('cool', eventId, EVERY, { nowMs, cooldownMs: 60 * S }));
      const outcomes = await Promise.all(Array.from({ length: 50 }, (_, n) => cooled(`e${n}`, T, n % 2 === 0 ? a : b)));
      expect(tally(outcomes)).toEqual({ fired: 1, cooldown: 49 });
      const winner = outcomes.findIndex((o) => o.outcome === 'fired');
      expect(await cooled(`e${winner}`, T + 1, b)).toEqual(again('match', 1));
      expect(await cooled('late', T + 60 * S - 1)).toEqual({ outcome: 'cooldown' });
      expect(await cooled('after', T + 60 * S, b)).toEqual(fired('match', 1));
      expect(await a.ruleCounters(['cool'])).toEqual([{ triggerCount: 2, suppressedCount: 0, lastTriggeredAtMs: T + 60 * S }]);
    });

    it('threshold: N = 5, 12 matching events in a burst, no cooldown: exactly 2 triggers, on the 5th and the 10th', async () => {
      const outcomes: MatchOutcome[] = [];
      for (let i = 0; i < 12; i++) outcomes.push(await (i % 2 === 0 ? a : b).recordMatch(rec('five', `e${i}`, threshold(5, 60), { eventTimeMs: T + i })));
      expect(outcomes[4]).toEqual(fired('threshold', 5));
      expect(outcomes[9]).toEqual(fired('threshold', 5));
      expect(tally(outcomes)).toEqual({ fired: 2, counted: 10 });
      expect(await a.ruleCounters(['five'])).toEqual([{ triggerCount: 2, suppressedCount: 0, lastTriggeredAtMs: T }]);
    });

    it('threshold: 40 groups × 12 events, interleaved from two views, trigger exactly twice per group (group values of any length)', async () => {
      // Each group's events go out in time order on one view; the groups interleave on both views.
      const groupValue = (g: number) => `customer ${g} ${'é✓'.repeat(g * 50)}`;
      const calls = Array.from({ length: 12 }, (_, i) =>
        Array.from({ length: 40 }, (_, g) => ({ g, i, view: g % 2 === 0 ? a : b })),
      ).flat();
      const outcomes = await Promise.all(calls.map(({ g, i, view }) => view.recordMatch(rec('groups', `g${g}-e${i}`, threshold(5, 60), { group: groupValue(g), eventTimeMs: T + i }))));
      const perGroup = new Map<number, number>();
      outcomes.forEach((o, n) => {
        if (o.outcome === 'fired') perGroup.set(calls[n]!.g, (perGroup.get(calls[n]!.g) ?? 0) + 1);
      });
      expect([...perGroup.values()]).toEqual(Array<number>(40).fill(2));
      expect((await b.ruleCounters(['groups']))[0]!.triggerCount).toBe(80);
    });

    it('threshold: each event sent from both views at once (a redelivery racing the first delivery) is counted once', async () => {
      // One burst at one timestamp: whatever order the two connections interleave in, every 7 events fire.
      const calls = Array.from({ length: 600 }, (_, i) => [a, b].map((view) => () => view.recordMatch(rec('race', `e${i}`, threshold(7, 60))))).flat();
      const outcomes = await Promise.all(calls.map((call) => call()));
      expect(tally(outcomes)).toEqual({ fired: 85, again: 85, counted: 515, seen: 515 });
      expect(outcomes.filter((o) => o.outcome === 'fired')).toEqual(Array<MatchOutcome>(85).fill(fired('threshold', 7)));
      expect((await a.ruleCounters(['race']))[0]!.triggerCount).toBe(85);
    });

    it('threshold: redelivering every event of a sequence, in order or shuffled, changes nothing; triggering events answer again', async () => {
      // Two seconds apart with up to 4 s of disorder against a 10 s window, and every ninth event 30 s
      // behind (late): some windows fill, some do not.
      const sequence = Array.from({ length: 60 }, (_, i) => ({ id: `e${i}`, eventTimeMs: T + (i * 2 - ((i * 7) % 5) - (i % 9 === 8 ? 30 : 0)) * S, nowMs: T + i * S }));
      const send = (ruleId: string, e: (typeof sequence)[number], nowMs = e.nowMs, view = a) =>
        view.recordMatch(rec(ruleId, e.id, threshold(3, 10), { eventTimeMs: e.eventTimeMs, nowMs }));
      const first: MatchOutcome[] = [];
      for (const e of sequence) first.push(await send('redelivered', e));
      for (const e of sequence) await send('control', e);
      expect(tally(first)).toEqual({ counted: 36, fired: 18, late: 6 });
      const counters = await a.ruleCounters(['redelivered']);
      const end = T + sequence.length * S;
      // A counted event older than the newest minus 2W has been dropped: its redelivery is late.
      const newest = Math.max(...sequence.filter((_, i) => first[i]!.outcome !== 'late').map((e) => e.eventTimeMs));
      const expectRepeat = (o: MatchOutcome, i: number) => {
        const was = first[i]!;
        if (was.outcome === 'fired') expect(o).toEqual({ ...was, outcome: 'again' });
        else expect(o.outcome).toBe(was.outcome === 'late' || sequence[i]!.eventTimeMs <= newest - 20 * S ? 'late' : 'seen');
      };
      const inOrder = await Promise.all(sequence.map((e, i) => send('redelivered', e, end, i % 2 === 0 ? a : b)));
      inOrder.forEach(expectRepeat);
      const order = shuffled(sequence.map((_, i) => i), 7);
      const mixed = await Promise.all(order.map((i, n) => send('redelivered', sequence[i]!, end + 1, n % 2 === 0 ? b : a)));
      mixed.forEach((o, n) => expectRepeat(o, order[n]!));
      expect(await b.ruleCounters(['redelivered'])).toEqual(counters);
      // And what comes next is decided as if the redeliveries had never happened.
      const next = Array.from({ length: 9 }, (_, i) => ({ id: `n${i}`, eventTimeMs: T + (116 + i) * S, nowMs: end + 2 + i }));
      for (const e of next) expect(await send('redelivered', e)).toEqual(await send('control', e));
    });

    it('threshold: an event at or before the newest counted time minus the window is late and not counted', async () => {
      const at = (eventId: string, seconds: number) => a.recordMatch(rec('late', eventId, threshold(2, 60), { eventTimeMs: T + seconds * S }));
      expect(await at('new', 200)).toEqual({ outcome: 'counted' });
      expect(await at('old', 140)).toEqual({ outcome: 'late' });
      expect(await at('old', 140)).toEqual({ outcome: 'late' });
      // Just after the bound it counts, in the window of the newest, (140 s, 200 s], and completes it.
      expect(await at('edge', 141)).toEqual(fired('threshold', 2));
      expect(await at('next', 199)).toEqual({ outcome: 'counted' });
      expect((await b.ruleCounters(['late']))[0]!.triggerCount).toBe(1);
    });

    it('threshold: a burst within one window fires twice for 12 events and N = 5 in any arrival order', async () => {
      const orders = { ascending: [...Array(12).keys()], descending: [...Array(12).keys()].reverse(), shuffled: [5, 0, 11, 3, 8, 1, 10, 2, 7, 4, 9, 6] };
      for (const [name, order] of Object.entries(orders)) {
        const outcomes = [];
        for (const i of order) outcomes.push(await (i % 2 === 0 ? a : b).recordMatch(rec(`order-${name}`, `e${i}`, threshold(5, 600), { eventTimeMs: T + i * S })));
        expect(outcomes.filter((o) => o.outcome === 'fired').map((o) => (o as { count: number }).count), name).toEqual([5, 5]);
      }
    });

    it('threshold: the window slides: only the events within (t - W, t] of the counting event count', async () => {
      const at = (eventId: string, seconds: number) => b.recordMatch(rec('slide', eventId, threshold(3, 10), { eventTimeMs: T + seconds * S }));
      // Six seconds apart: a 10 s window never holds three.
      for (const s of [0, 6, 12, 18, 24, 30]) expect(await at(`s${s}`, s)).toEqual({ outcome: 'counted' });
      // (21, 31] holds 24, 30 and 31.
      expect(await at('s31', 31)).toEqual(fired('threshold', 3));
      // Consumed: (22, 32] now holds 32 only.
      expect(await at('s32', 32)).toEqual({ outcome: 'counted' });
    });

    it('threshold: cooldown per group; counting goes on during it and the first match after it fires with all it counted', async () => {
      const at = (eventId: string, nowMs: number, group = 'a') => a.recordMatch(rec('cooling', eventId, threshold(2, 600), { nowMs, eventTimeMs: nowMs, group, cooldownMs: 60 * S }));
      expect(outcomeNames([await at('a1', T), await at('a2', T + 1)])).toEqual(['counted', 'fired']);
      expect(outcomeNames([await at('a3', T + 2), await at('a4', T + 3), await at('a5', T + 4)])).toEqual(['counted', 'cooldown', 'cooldown']);
      expect(outcomeNames([await at('b1', T + 5, 'b'), await at('b2', T + 6, 'b')])).toEqual(['counted', 'fired']);
      expect(await at('a4', T + 60 * S)).toEqual({ outcome: 'seen' });
      expect(await at('a6', T + 1 + 60 * S)).toEqual(fired('threshold', 4));
      expect((await b.ruleCounters(['cooling']))[0]).toMatchObject({ triggerCount: 3, lastTriggeredAtMs: T + 1 + 60 * S });
    });

    it('snoozed: triggers still count, as suppressed, and say so again on redelivery', async () => {
      const snoozed = { snoozed: true };
      expect(await a.recordMatch(rec('quiet', 'e1', EVERY, snoozed))).toEqual(fired('match', 1, true));
      expect(await b.recordMatch(rec('quiet', 'e1', EVERY))).toEqual(again('match', 1, true));
      expect(await a.recordMatch(rec('quiet', 'e2', EVERY))).toEqual(fired('match', 1));
      await a.recordMatch(rec('quiet-threshold', 't1', threshold(2, 60), snoozed));
      expect(await b.recordMatch(rec('quiet-threshold', 't2', threshold(2, 60), snoozed))).toEqual(fired('threshold', 2, true));
      expect(await a.recordMatch(rec('quiet-threshold', 't2', threshold(2, 60)))).toEqual(again('threshold', 2, true));
      rules.add('quiet-absence');
      await a.armAbsence('quiet-absence', 'app-1', T);
      const [claim] = await b.claimDueAbsences(T, 30 * S, 10);
      expect(await b.completeAbsence(claim!, true, T + 5)).toBe(true);
      expect(await a.recordMatch(rec('quiet-absence', 'r1', absence(60), { ...snoozed, nowMs: T + 6 }))).toEqual(fired('recovered', 1, true));
      expect(await b.ruleCounters(['quiet', 'quiet-threshold', 'quiet-absence'])).toEqual([
        { triggerCount: 2, suppressedCount: 1, lastTriggeredAtMs: T },
        { triggerCount: 1, suppressedCount: 1, lastTriggeredAtMs: T },
        { triggerCount: 1, suppressedCount: 1, lastTriggeredAtMs: T + 5 },
      ]);
    });

    it('absence: a match restarts the clock; when due, exactly one of two views claims it; a lapsed lease returns the same claim; it completes once; the next match recovers once', async () => {
      const W = 60 * S;
      const match = (eventId: string, nowMs: number, view = a) => view.recordMatch(rec('silent', eventId, absence(60), { nowMs }));
      await a.armAbsence('silent', 'app-1', T + W);
      expect(await match('e1', T + 10 * S)).toEqual({ outcome: 'counted' });
      expect(await b.claimDueAbsences(T + W, 30 * S, 10)).toEqual([]);
      const deadline = T + 10 * S + W;
      expect(await a.claimDueAbsences(deadline - 1, 30 * S, 10)).toEqual([]);
      const claim = { ruleId: 'silent', appId: 'app-1', deadlineMs: deadline };
      const [fromA, fromB] = await Promise.all([a.claimDueAbsences(deadline, 30 * S, 10), b.claimDueAbsences(deadline, 30 * S, 10)]);
      expect([...fromA, ...fromB]).toEqual([claim]);
      expect(await a.claimDueAbsences(deadline + 30 * S - 1, 30 * S, 10)).toEqual([]);
      // The claimer died: once its lease ends, the same silence is handed out again.
      expect(await b.claimDueAbsences(deadline + 30 * S, 30 * S, 10)).toEqual([claim]);
      const completions = await Promise.all([a.completeAbsence(claim, false, deadline + 31 * S), b.completeAbsence(claim, false, deadline + 31 * S)]);
      expect(completions.filter(Boolean)).toHaveLength(1);
      expect(await a.completeAbsence(claim, false, deadline + 32 * S)).toBe(false);
      expect(await a.claimDueAbsences(deadline + 1000 * S, 30 * S, 10)).toEqual([]);
      expect(await match('e2', deadline + 40 * S, b)).toEqual(fired('recovered', 1));
      expect(await match('e2', deadline + 41 * S)).toEqual(again('recovered', 1));
      expect(await match('e3', deadline + 42 * S)).toEqual({ outcome: 'counted' });
      // A recovery is not a trigger.
      expect(await b.ruleCounters(['silent'])).toEqual([{ triggerCount: 1, suppressedCount: 0, lastTriggeredAtMs: deadline + 31 * S }]);
      expect(await b.claimDueAbsences(deadline + 42 * S + W, 30 * S, 10)).toEqual([{ ...claim, deadlineMs: deadline + 42 * S + W }]);
    });

    it('absence: many due rules claimed concurrently in small batches are each claimed once, oldest deadline first', async () => {
      const ids = Array.from({ length: 25 }, (_, i) => `due-${String(i).padStart(2, '0')}`);
      for (const [i, id] of ids.entries()) {
        rules.add(id);
        await a.armAbsence(id, `app-${i % 3}`, T + i);
      }
      expect((await b.claimDueAbsences(T + 24, 30 * S, 3)).map((c) => c.ruleId)).toEqual(ids.slice(0, 3));
      const batches = await Promise.all(Array.from({ length: 10 }, (_, n) => (n % 2 === 0 ? a : b).claimDueAbsences(T + 24, 30 * S, 3)));
      const claimed = batches.flat();
      expect(claimed.map((c) => c.ruleId).sort()).toEqual(ids.slice(3));
      for (const c of claimed) expect(c).toEqual({ ruleId: c.ruleId, appId: `app-${ids.indexOf(c.ruleId) % 3}`, deadlineMs: T + ids.indexOf(c.ruleId) });
    });

    it('absence: arming again clears the silence and the claim; disarming forgets the clock', async () => {
      rules.add('rearmed');
      await a.armAbsence('rearmed', 'app-1', T);
      const [claim] = await a.claimDueAbsences(T, 30 * S, 10);
      await b.armAbsence('rearmed', 'app-1', T + 60 * S);
      expect(await a.completeAbsence(claim!, false, T + 1)).toBe(false);
      expect(await b.recordMatch(rec('rearmed', 'e1', absence(60), { nowMs: T + 2 }))).toEqual({ outcome: 'counted' });
      expect(await a.claimDueAbsences(T + 2 + 60 * S, 30 * S, 10)).toEqual([{ ruleId: 'rearmed', appId: 'app-1', deadlineMs: T + 2 + 60 * S }]);
      await b.disarmAbsence('rearmed');
      expect(await a.completeAbsence({ ruleId: 'rearmed', appId: 'app-1', deadlineMs: T + 2 + 60 * S }, false, T + 3)).toBe(false);
      expect(await a.recordMatch(rec('rearmed', 'e2', absence(60), { nowMs: T + 4 }))).toEqual({ outcome: 'counted' });
      await b.disarmAbsence('rearmed');
      expect(await a.claimDueAbsences(T + 1000 * 60 * S, 30 * S, 10)).toEqual([]);
      expect((await a.ruleCounters(['rearmed']))[0]!.triggerCount).toBe(0);
    });

    it('ruleCounters answers many rules in the order asked, zero for a rule that never triggered', async () => {
      expect(await a.ruleCounters([])).toEqual([]);
      await a.recordMatch(rec('counted-1', 'e1', EVERY, { nowMs: T + 1 }));
      await b.recordMatch(rec('counted-2', 'e1', EVERY, { nowMs: T + 2, snoozed: true }));
      await b.recordMatch(rec('counted-2', 'e2', EVERY, { nowMs: T + 3 }));
      expect(await b.ruleCounters(['counted-2', 'never', 'counted-1', 'counted-2'])).toEqual([
        { triggerCount: 2, suppressedCount: 1, lastTriggeredAtMs: T + 3 },
        { triggerCount: 0, suppressedCount: 0, lastTriggeredAtMs: null },
        { triggerCount: 1, suppressedCount: 0, lastTriggeredAtMs: T + 1 },
        { triggerCount: 2, suppressedCount: 1, lastTriggeredAtMs: T + 3 },
      ]);
    });

    it('forgetRule removes counters, fired records, windows, cooldowns and the absence clock of that rule only', async () => {
      const thresholdOf = (ruleId: string, eventId: string) => a.recordMatch(rec(ruleId, eventId, threshold(2, 60), { group: 'g', cooldownMs: 60 * S }));
      for (const id of ['forgotten', 'kept']) {
        expect(outcomeNames([await thresholdOf(id, 'e1'), await thresholdOf(id, 'e2'), await thresholdOf(id, 'e3')])).toEqual(['counted', 'fired', 'counted']);
      }
      expect(await b.recordMatch(rec('forgotten-every', 'e1', EVERY, { cooldownMs: 60 * S }))).toEqual(fired('match', 1));
      await a.armAbsence('forgotten-absence', 'app-1', T);
      await Promise.all(['forgotten', 'forgotten-every', 'forgotten-absence'].map((id) => b.forgetRule(id)));
      expect(await a.ruleCounters(['forgotten', 'forgotten-every', 'kept'])).toEqual([
        { triggerCount: 0, suppressedCount: 0, lastTriggeredAtMs: null },
        { triggerCount: 0, suppressedCount: 0, lastTriggeredAtMs: null },
        { triggerCount: 1, suppressedCount: 0, lastTriggeredAtMs: T },
      ]);
      // No fired record (e2 counts anew), no pending e3, no cooldown: e2 then e4 fire again.
      expect(outcomeNames([await thresholdOf('forgotten', 'e2'), await thresholdOf('forgotten', 'e4')])).toEqual(['counted', 'fired']);
      expect(await b.recordMatch(rec('forgotten-every', 'e2', EVERY, { cooldownMs: 60 * S }))).toEqual(fired('match', 1));
      expect(await a.claimDueAbsences(T + 1000 * S, 30 * S, 10)).toEqual([]);
      // The other rule kept its window and its cooldown.
      expect(await thresholdOf('kept', 'e2')).toEqual(again('threshold', 2));
      expect(await thresholdOf('kept', 'e4')).toEqual({ outcome: 'cooldown' });
    });

    it('keeps at most max keys per bounded scope, deleting the oldest first, and lets one of concurrent claims win', async () => {
      const bound = { scope: 'bounded', max: 10, windowMs: 60_000 };
      for (let i = 0; i < 15; i++) expect(await (i % 2 === 0 ? a : b).setIfAbsentBounded(`bounded:${i}`, `v${i}`, 10_000, bound)).toBe(true);
      const values = await a.getMany(Array.from({ length: 15 }, (_, i) => `bounded:${i}`));
      expect(values).toEqual([...Array<null>(5).fill(null), ...Array.from({ length: 10 }, (_, i) => `v${i + 5}`)]);
      // Another scope has its own bound; a key set outside any scope is never evicted by one.
      await a.set('k', 'plain', 10_000);
      expect(await b.setIfAbsentBounded('other:0', 'x', 10_000, { ...bound, scope: 'other' })).toBe(true);
      expect(await b.setIfAbsentBounded('bounded:15', 'v15', 10_000, bound)).toBe(true);
      expect(await a.getMany(['bounded:5', 'bounded:6', 'other:0', 'k'])).toEqual([null, 'v6', 'x', 'plain']);
      // An existing key is not set again, and does not count twice.
      expect(await a.setIfAbsentBounded('bounded:15', 'again', 10_000, bound)).toBe(false);
      expect(await a.get('bounded:6')).toBe('v6');
      const claims = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 === 0 ? a : b).setIfAbsentBounded('bounded:race', `owner-${i}`, 10_000, bound)));
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await b.get('bounded:race')).toBe(`owner-${claims.indexOf(true)}`);
    });

    it('lets keys set before the window leave the bounded scope without deleting them', async () => {
      const bound = { scope: 'windowed', max: 2, windowMs: 150 };
      const first = Date.now();
      expect(await a.setIfAbsentBounded('windowed:0', 'old', 10_000, bound)).toBe(true);
      // The window is a span of time: nothing to wait for but the clock.
      await vi.waitFor(() => expect(Date.now() - first).toBeGreaterThan(300), { timeout: 3000, interval: 25 });
      for (const i of [1, 2]) expect(await b.setIfAbsentBounded(`windowed:${i}`, `new${i}`, 10_000, bound)).toBe(true);
      // Counted, windowed:0 would have been the oldest of three and deleted; past the window it does not count.
      expect(await a.getMany(['windowed:0', 'windowed:1', 'windowed:2'])).toEqual(['old', 'new1', 'new2']);
    });

    it('expires keys after their time to live', async () => {
      await a.set('short', 'v', 150);
      const claimed = await a.setIfAbsent('cooldown', 'first', 150);
      expect(claimed).toBe(true);
      expect(await b.get('short')).toBe('v');
      await vi.waitFor(
        async () => {
          expect(await b.get('short')).toBeNull();
          expect(await b.get('cooldown')).toBeNull();
        },
        { timeout: 3000, interval: 25 },
      );
      // Once expired, the key is absent again for setIfAbsent.
      expect(await b.setIfAbsent('cooldown', 'second', 10_000)).toBe(true);
    });

    it('keeps a key without a time to live, and a plain set removes an earlier expiry', async () => {
      await a.set('k', 'expiring', 150);
      await a.set('k', 'kept');
      await a.set('marker', 'x', 150);
      // Once a key with the same TTL has expired, the first one would have too.
      await vi.waitFor(async () => expect(await a.get('marker')).toBeNull(), { timeout: 3000, interval: 25 });
      expect(await b.get('k')).toBe('kept');
    });

    it('lists the members marked present, to either view, until their presence runs out or is removed', async () => {
      const group = uniqueName('group');
      expect(await b.presentMembers(group)).toEqual([]);
      await a.markPresent(group, 'short', 150);
      await a.markPresent(group, 'long', 60_000);
      await b.markPresent(group, 'leaving', 60_000);
      expect((await b.presentMembers(group)).sort()).toEqual(['leaving', 'long', 'short']);
      await a.markPresent(group, 'leaving', 0);
      await vi.waitFor(async () => expect(await a.presentMembers(group)).toEqual(['long']), { timeout: 3000, interval: 25 });
      // Marking again extends the presence.
      await a.markPresent(group, 'long', 150);
      await a.markPresent(group, 'long', 60_000);
      await a.markPresent(group, 'marker', 150);
      await vi.waitFor(async () => expect(await b.presentMembers(group)).toEqual(['long']), { timeout: 3000, interval: 25 });
    });

    it('publishes to subscribers in the other view, in order', async () => {
      const channel = uniqueName('channel');
      const first: string[] = [];
      const second: string[] = [];
      await b.subscribe(channel, (m) => first.push(m));
      await b.subscribe(channel, (m) => second.push(m));
      for (const m of ['one', 'two', 'three']) await a.publish(channel, m);
      await vi.waitFor(() => {
        expect(first).toEqual(['one', 'two', 'three']);
        expect(second).toEqual(['one', 'two', 'three']);
      });
    });

    it('stops delivering to an unsubscribed handler and keeps delivering to the others', async () => {
      const channel = uniqueName('channel');
      const gone: string[] = [];
      const staying: string[] = [];
      const unsubscribe = await b.subscribe(channel, (m) => gone.push(m));
      await b.subscribe(channel, (m) => staying.push(m));
      await a.publish(channel, 'before');
      await vi.waitFor(() => expect(gone).toEqual(['before']));

      await unsubscribe();
      await a.publish(channel, 'after');
      // Both handlers share one connection and one order, so once `staying` has the message, `gone`
      // would have it too if it were still subscribed.
      await vi.waitFor(() => expect(staying).toEqual(['before', 'after']));
      expect(gone).toEqual(['before']);
    });

    it('does not deliver other channels, and a failing handler does not stop the others', async () => {
      const channel = uniqueName('channel');
      const received: string[] = [];
      await b.subscribe(channel, () => {
        throw new Error('handler failure');
      });
      await b.subscribe(channel, (m) => received.push(m));
      await a.publish(uniqueName('other'), 'elsewhere');
      await a.publish(channel, 'here');
      await a.publish(channel, 'again');
      await vi.waitFor(() => expect(received).toEqual(['here', 'again']));
    });
  });
}

describe('RedisStateStore rule keys', () => {
  it('keeps a rule\'s keys under its hash tag (a group under a digest of its value) and forgetRule removes every one', async () => {
    const { redisUrl } = stackEnv();
    const keyPrefix = `${uniqueName('test_state')}:`;
    const store = new RedisStateStore({ url: redisUrl, keyPrefix });
    const raw = new Redis(redisUrl);
    try {
      const T = Date.now();
      const group = `customer ${'x'.repeat(10_000)}`;
      const base = { ruleId: 'r', appId: 'app-1', eventTimeMs: T, nowMs: T, group, cooldownMs: 60 * S, snoozed: false };
      for (const eventId of ['t1', 't2', 't3']) await store.recordMatch({ ...base, eventId, trigger: threshold(2, 60) });
      await store.recordMatch({ ...base, eventId: 'e1', trigger: EVERY });
      await store.armAbsence('r', 'app-1', T);
      await store.claimDueAbsences(T, 30 * S, 10);
      await store.recordMatch({ ...base, eventId: 'a1', trigger: absence(60) });
      const keys = (await raw.keys(`${keyPrefix}*`)).map((key) => key.slice(keyPrefix.length));
      expect(keys.length).toBeGreaterThan(8);
      for (const key of keys) expect(key).toMatch(/^(\{rule:r\}:|\{absence\}:)/);
      expect(keys.filter((key) => key.includes(':group:')).every((key) => /:group:[0-9a-f]{40}:/.test(key))).toBe(true);
      await store.forgetRule('r');
      expect(await raw.keys(`${keyPrefix}*`)).toEqual([]);
    } finally {
      await store.close();
      raw.disconnect();
    }
  });
});

describe('RedisStateStore when Redis goes away and comes back', () => {
  let proxy: TcpProxy;
  let store: RedisStateStore;
  let direct: RedisStateStore;

  beforeEach(async () => {
    const target = new URL(stackEnv().redisUrl);
    proxy = await TcpProxy.start(target.hostname, Number(target.port || 6379));
    const keyPrefix = `${uniqueName('test_state')}:`;
    store = new RedisStateStore({ url: `redis://127.0.0.1:${proxy.port}`, keyPrefix, timeoutMs: 1000 });
    direct = new RedisStateStore({ url: stackEnv().redisUrl, keyPrefix });
  });

  afterEach(async () => {
    await Promise.all(['k', 'n', 'shared-name'].map((key) => direct.delete(key)));
    await Promise.all([store.close(), direct.close()]);
    await proxy.stop();
  });

  it('fails fast while Redis is unreachable and recovers without a new client', async () => {
    await store.set('k', 'v');
    const received: string[] = [];
    await store.subscribe('news', (m) => received.push(m));

    await proxy.stop();
    for (const call of [() => store.ping(), () => store.get('k'), () => store.increment('n')]) {
      const started = Date.now();
      await expect(call()).rejects.toThrow(/Redis unavailable/);
      expect(Date.now() - started).toBeLessThan(2500);
    }

    await proxy.restart();
    await vi.waitFor(() => store.ping(), { timeout: 10_000, interval: 100 });
    expect(await store.get('k')).toBe('v');
    // The subscriber connection came back too and subscribed again by itself. Publishing until a
    // message arrives, because the resubscription completes at a moment this test cannot observe.
    await vi.waitFor(
      async () => {
        await direct.publish('news', 'back');
        expect(received).toContain('back');
      },
      { timeout: 10_000, interval: 100 },
    );
  });

  it('fails at once, not a reconnect attempt later, once an outage has lasted longer than the timeout', async () => {
    await store.set('k', 'v');
    await proxy.stop();
    const outageStarted = Date.now();
    await expect(store.get('k')).rejects.toThrow(/Redis unavailable/);
    // Past the timeout (1 s) the outage is no blip; reconnect attempts go on once a second meanwhile.
    await vi.waitFor(() => expect(Date.now() - outageStarted).toBeGreaterThan(1500), { timeout: 5_000, interval: 50 });
    const took: number[] = [];
    // Calls spread over more than a second, so that some fall between two reconnect attempts.
    for (let call = 0; call < 12; call++) {
      const started = Date.now();
      await expect(store.get('k')).rejects.toThrow(/Redis unavailable/);
      took.push(Date.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(Math.max(...took)).toBeLessThan(50);

    await proxy.restart();
    await vi.waitFor(async () => expect(await store.get('k')).toBe('v'), { timeout: 10_000, interval: 100 });
  });

  it('rejects ping within the timeout when nothing listens at the address', async () => {
    const unreachable = new RedisStateStore({ url: `redis://127.0.0.1:${await freePort()}`, timeoutMs: 1000 });
    try {
      const started = Date.now();
      await expect(unreachable.ping()).rejects.toThrow(/Redis unavailable/);
      expect(Date.now() - started).toBeLessThan(2500);
    } finally {
      await unreachable.close();
    }
  });

  it('keeps deployments with different key prefixes apart', async () => {
    const other = new RedisStateStore({ url: stackEnv().redisUrl, keyPrefix: `${uniqueName('test_state')}:` });
    try {
      await direct.set('shared-name', 'mine');
      expect(await other.get('shared-name')).toBeNull();
    } finally {
      await other.close();
    }
  });
});

/** A TCP forwarder the test can cut and restore, standing in for a Redis outage. */
class TcpProxy {
  readonly #sockets = new Set<net.Socket>();
  #server: net.Server | undefined;

  private constructor(
    private readonly targetHost: string,
    private readonly targetPort: number,
    public port: number,
  ) {}

  static async start(targetHost: string, targetPort: number): Promise<TcpProxy> {
    const proxy = new TcpProxy(targetHost, targetPort, 0);
    await proxy.restart();
    return proxy;
  }

  /** Listens again on the same port (the client keeps its address). */
  async restart(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.targetPort, this.targetHost);
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on('close', () => this.#sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.#server = server;
  }

  /** Refuses new connections and cuts the open ones, as a stopped server would. */
  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const socket of this.#sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
