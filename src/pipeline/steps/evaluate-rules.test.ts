import { describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../../adapters/state/memory-state-store.js';
import { ruleStatKeys } from '../../domain/rule-state-keys.js';
import type { AppRuleSet } from '../../services/rule-set-cache.js';
import { quietLogger, ruleSetOf, storedEvent } from '../../../test/helpers/pipeline-fixtures.js';
import { evaluateRulesStep } from './evaluate-rules.js';

function step(ruleSets: Record<string, AppRuleSet>, state = new MemoryStateStore(), now = () => 1_000_000) {
  const evaluate = evaluateRulesStep({
    ruleSets: { forApp: (appId) => Promise.resolve(ruleSets[appId] ?? { appId, appName: '', rulesByEvent: new Map() }) },
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
    expect(outcome.triggers).toEqual({ fired: 1, again: 0, cooldown: 0 });
    expect(outcome.jobs).toHaveLength(1);
    expect(outcome.jobs[0]).toMatchObject({ appId: 'a', ruleId: 'big', actionId: 'big-action', destinationId: 'big-destination', eventId: big.id });
    expect(outcome.jobs[0]!.alert).toMatchObject({ appName: 'Shop', ruleName: 'rule big', eventName: 'order', test: false, data: { amount: 500 } });
    expect(await state.get(ruleStatKeys('big').triggers)).toBe('1');
  });

  it('counts a redelivered event once and still returns its jobs, so missing deliveries are re-created', async () => {
    const { evaluate, state } = step(rules);
    const big = storedEvent('a', 'order', { amount: 500 });
    await evaluate(new Map([['a', [big]]]));
    const again = await evaluate(new Map([['a', [big]]]));
    expect(again.triggers).toEqual({ fired: 0, again: 1, cooldown: 0 });
    expect(again.jobs.map((j) => j.eventId)).toEqual([big.id]);
    expect(await state.get(ruleStatKeys('big').triggers)).toBe('1');
  });

  it('returns no job for a match inside the rule cooldown', async () => {
    const cooled = { a: ruleSetOf('a', [{ id: 'cool', eventName: 'order', cooldownSeconds: 60 }]) };
    const { evaluate } = step(cooled);
    const outcome = await evaluate(new Map([['a', [storedEvent('a', 'order'), storedEvent('a', 'order')]]]));
    expect(outcome.triggers).toEqual({ fired: 1, again: 0, cooldown: 1 });
    expect(outcome.jobs).toHaveLength(1);
  });

  it('evaluates nothing for an app without rules', async () => {
    const { evaluate } = step({});
    expect(await evaluate(new Map([['z', [storedEvent('z', 'order')]]]))).toEqual({ step: 'evaluated', jobs: [], evaluations: 0, triggers: { fired: 0, again: 0, cooldown: 0 } });
  });
});
