import { describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../../adapters/state/memory-state-store.js';
import type { AppRuleSet } from '../../services/rule-set-cache.js';
import { quietLogger, ruleSetOf, storedEvent } from '../../../test/helpers/pipeline-fixtures.js';
import { evaluateRulesStep } from './evaluate-rules.js';

function step(ruleSets: Record<string, AppRuleSet>, state = new MemoryStateStore(), now = () => 1_000_000) {
  const evaluate = evaluateRulesStep({
    ruleSets: { forApp: (appId) => Promise.resolve(ruleSets[appId] ?? { appId, appName: '', rulesByEvent: new Map(), rulesById: new Map() }) },
    state,
    logger: quietLogger,
    now,
  });
  return { evaluate, state };
}

describe('evaluateRulesStep', () => {
  const rules = { a: ruleSetOf('a', [{ id: 'big', eventName: 'order', conditions: [{ id: 'c1', field: 'amount', operator: 'greater_than', value: 100 }] }]) };

  it('returns one delivery job per action of each matching rule, with the alert content', async () => {
    const { evaluate, state } = step(rules);
    const small = storedEvent('a', 'order', { amount: 5 });
    const big = storedEvent('a', 'order', { amount: 500 });
    const other = storedEvent('a', 'signup', { amount: 500 });
    const outcome = await evaluate(new Map([['a', [small, big, other]]]));
    expect(outcome.step).toBe('evaluated');
    expect(outcome.evaluations).toBe(2);
    expect(outcome.triggers).toEqual({ fired: 1, again: 0, cooldown: 0, counted: 0, seen: 0, late: 0 });
    expect(outcome.jobs).toHaveLength(1);
    expect(outcome.jobs[0]).toMatchObject({ appId: 'a', ruleId: 'big', actionId: 'big-action', destinationId: 'big-destination', eventId: big.id });
    expect(outcome.jobs[0]!.alert).toMatchObject({ appName: 'Shop', ruleName: 'rule big', eventName: 'order', test: false, data: { amount: 500 } });
    expect((await state.ruleCounters(['big']))[0]!.triggerCount).toBe(1);
  });

  it('counts a redelivered event once and still returns its jobs, so missing deliveries are re-created', async () => {
    const { evaluate, state } = step(rules);
    const big = storedEvent('a', 'order', { amount: 500 });
    await evaluate(new Map([['a', [big]]]));
    const again = await evaluate(new Map([['a', [big]]]));
    expect(again.triggers).toEqual({ fired: 0, again: 1, cooldown: 0, counted: 0, seen: 0, late: 0 });
    expect(again.jobs.map((j) => j.eventId)).toEqual([big.id]);
    expect((await state.ruleCounters(['big']))[0]!.triggerCount).toBe(1);
  });

  it('returns no job for a match inside the rule cooldown', async () => {
    const cooled = { a: ruleSetOf('a', [{ id: 'cool', eventName: 'order', cooldownSeconds: 60 }]) };
    const { evaluate } = step(cooled);
    const outcome = await evaluate(new Map([['a', [storedEvent('a', 'order'), storedEvent('a', 'order')]]]));
    expect(outcome.triggers).toEqual({ fired: 1, again: 0, cooldown: 1, counted: 0, seen: 0, late: 0 });
    expect(outcome.jobs).toHaveLength(1);
  });

  it('triggers a threshold rule on the Nth matching event of a group and labels the alert', async () => {
    const counted = { a: ruleSetOf('a', [{ id: 'five', eventName: 'order', trigger: { type: 'threshold', count: 5, windowSeconds: 600, groupBy: '$customer_id' } }]) };
    const { evaluate } = step(counted);
    const burst = Array.from({ length: 12 }, (_, i) => storedEvent('a', 'order', { n: i }, { customerId: i % 2 === 0 ? 'even' : 'odd' }));
    const outcome = await evaluate(new Map([['a', burst]]));
    expect(outcome.triggers).toMatchObject({ fired: 2, counted: 10 });
    expect(outcome.jobs.map((job) => job.alert)).toEqual([
      expect.objectContaining({ kind: 'threshold', count: 5, windowSeconds: 600, group: 'even', eventId: burst[8]!.id }),
      expect.objectContaining({ kind: 'threshold', count: 5, windowSeconds: 600, group: 'odd', eventId: burst[9]!.id }),
    ]);
  });

  it('does not count an event without a value at groupBy', async () => {
    const counted = { a: ruleSetOf('a', [{ id: 'two', eventName: 'order', trigger: { type: 'threshold', count: 2, windowSeconds: 600, groupBy: 'region' } }]) };
    const { evaluate } = step(counted);
    const outcome = await evaluate(new Map([['a', [storedEvent('a', 'order', {}), storedEvent('a', 'order', {}), storedEvent('a', 'order', { region: 'eu' })]]]));
    expect(outcome.triggers).toMatchObject({ fired: 0, counted: 1 });
  });

  it('counts the trigger of a snoozed rule as suppressed and returns no job for it', async () => {
    const snoozed = { a: ruleSetOf('a', [{ id: 'quiet', eventName: 'order', snoozedUntilMs: 2_000_000 }]) };
    const { evaluate, state } = step(snoozed);
    const outcome = await evaluate(new Map([['a', [storedEvent('a', 'order')]]]));
    expect(outcome.triggers).toMatchObject({ fired: 1 });
    expect(outcome.jobs).toEqual([]);
    expect(await state.ruleCounters(['quiet'])).toEqual([{ triggerCount: 1, suppressedCount: 1, lastTriggeredAtMs: 1_000_000 }]);
  });

  it('gives each action the template it carries', async () => {
    const templated = { a: ruleSetOf('a', [{ id: 't', eventName: 'order', template: { title: 'Order {{data.id}}' } }]) };
    const { evaluate } = step(templated);
    const outcome = await evaluate(new Map([['a', [storedEvent('a', 'order', { id: 7 })]]]));
    expect(outcome.jobs[0]!.alert).toMatchObject({ kind: 'match', template: { title: 'Order {{data.id}}' } });
  });

  it('evaluates nothing for an app without rules', async () => {
    const { evaluate } = step({});
    expect(await evaluate(new Map([['z', [storedEvent('z', 'order')]]]))).toEqual({ step: 'evaluated', jobs: [], evaluations: 0, triggers: { fired: 0, again: 0, cooldown: 0, counted: 0, seen: 0, late: 0 } });
  });
});
