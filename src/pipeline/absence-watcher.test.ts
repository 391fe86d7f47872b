import { describe, expect, it } from 'vitest';
import { MemoryStateStore } from '../adapters/state/memory-state-store.js';
import type { AppRuleSet } from '../services/rule-set-cache.js';
import { quietLogger, ruleSetOf } from '../../test/helpers/pipeline-fixtures.js';
import { AbsenceWatcher, absenceAlertId } from './absence-watcher.js';
import type { NewDeliveryJob } from './delivery-queue.js';

const T = 1_700_000_000_000;
const LEASE_MS = 30_000;
const silence = { type: 'absence', windowSeconds: 60 } as const;

/** A watcher over a memory state store whose every listed rule's deadline is T; `failing` apps' rules cannot be looked up. */
async function watcherOf(ruleSets: Record<string, AppRuleSet>, options: { enqueueFails?: boolean; failing?: readonly string[] } = {}) {
  const state = new MemoryStateStore();
  const enqueued: NewDeliveryJob[][] = [];
  const alerts: string[] = [];
  let now = T + 1;
  for (const ruleSet of Object.values(ruleSets)) {
    for (const ruleId of ruleSet.rulesById.keys()) await state.armAbsence(ruleId, ruleSet.appId, T);
  }
  const watcher = new AbsenceWatcher({
    state,
    ruleSets: {
      forApp: (appId) => (options.failing?.includes(appId) ? Promise.reject(new Error(`rules of ${appId} unavailable`)) : Promise.resolve(ruleSets[appId]!)),
    },
    deliveries: {
      enqueue: (jobs) => {
        if (options.enqueueFails) return Promise.reject(new Error('metadata database unavailable'));
        enqueued.push([...jobs]);
        return Promise.resolve();
      },
    },
    logger: quietLogger,
    now: () => now,
    onAlert: (outcome) => alerts.push(outcome),
  });
  return { watcher, state, enqueued, alerts, later: (ms: number) => (now += ms) };
}

describe('AbsenceWatcher', () => {
  it("creates the deliveries of every silence due in a round in one call, then completes each claim, a snoozed rule's without deliveries", async () => {
    const rules = ruleSetOf('a', [
      { id: 'quiet-1', eventName: 'heartbeat', trigger: silence },
      { id: 'quiet-2', eventName: 'heartbeat', trigger: silence },
      { id: 'snoozed', eventName: 'heartbeat', trigger: silence, snoozedUntilMs: T + 3_600_000 },
    ]);
    const { watcher, enqueued, alerts } = await watcherOf({ a: rules });
    await watcher.poll();
    expect(enqueued).toHaveLength(1);
    expect(enqueued[0]!.map((job) => [job.ruleId, job.eventId])).toEqual([
      ['quiet-1', absenceAlertId('quiet-1', T)],
      ['quiet-2', absenceAlertId('quiet-2', T)],
    ]);
    expect(alerts.sort()).toEqual(['sent', 'sent', 'suppressed']);

    // Completed: nothing is claimed again, even after the lease.
    await watcher.poll();
    expect(enqueued).toHaveLength(1);
  });

  it('completes no claim when creating the deliveries fails, so each silence is claimed again after its lease', async () => {
    const rules = ruleSetOf('a', [{ id: 'quiet', eventName: 'heartbeat', trigger: silence }]);
    const { watcher, state, alerts, later } = await watcherOf({ a: rules }, { enqueueFails: true });
    await expect(watcher.poll()).rejects.toThrow('metadata database unavailable');
    expect(alerts).toEqual([]);
    expect(await state.claimDueAbsences(T + 2, LEASE_MS, 10)).toEqual([]);
    later(LEASE_MS + 1);
    expect(await state.claimDueAbsences(T + LEASE_MS + 2, LEASE_MS, 10)).toEqual([expect.objectContaining({ ruleId: 'quiet', deadlineMs: T })]);
  });

  it("alerts on the other silences when one app's rules cannot be looked up, and then fails the round", async () => {
    const { watcher, enqueued, alerts } = await watcherOf(
      { a: ruleSetOf('a', [{ id: 'quiet-a', eventName: 'heartbeat', trigger: silence }]), b: ruleSetOf('b', [{ id: 'quiet-b', eventName: 'heartbeat', trigger: silence }]) },
      { failing: ['b'] },
    );
    await expect(watcher.poll()).rejects.toThrow('rules of b unavailable');
    expect(enqueued.flat().map((job) => job.ruleId)).toEqual(['quiet-a']);
    expect(alerts).toEqual(['sent']);
  });
});
