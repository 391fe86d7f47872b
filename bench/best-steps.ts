import type { LoadStep, TargetResult } from './results.js';

/** The step with the largest value: the best throughput, or the worst latency. */
export function best(steps: readonly LoadStep[], pick: (s: LoadStep) => number | null): { step: LoadStep | null; value: number | null } {
  let found: { step: LoadStep | null; value: number | null } = { step: null, value: null };
  for (const step of steps) {
    const value = pick(step);
    if (value !== null && (found.value === null || value > found.value)) found = { step, value };
  }
  return found;
}

export const singles = (t: Pick<TargetResult, 'steps'>): LoadStep[] => t.steps.filter((s) => s.shape === 'single');
export const batches = (t: Pick<TargetResult, 'steps'>): LoadStep[] => t.steps.filter((s) => s.shape === 'batch');
export const singleRate = (s: LoadStep): number => s.requestsPerSecond;
export const batchEndToEndRate = (s: LoadStep): number | null => s.endToEnd?.eventsPerSecond ?? null;
export const bestSingle = (t: Pick<TargetResult, 'steps'>) => best(singles(t), singleRate);
export const bestBatch = (t: Pick<TargetResult, 'steps'>) => best(batches(t), (s) => s.eventsPerSecond);
export const bestBatchEndToEnd = (t: Pick<TargetResult, 'steps'>) => best(batches(t), batchEndToEndRate);
