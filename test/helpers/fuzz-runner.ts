import fc from 'fast-check';
import type { TestContext } from 'vitest';

export interface FuzzOptions {
  /** Generated cases, shrinking not included. */
  readonly numRuns: number;
  /**
   * Longest the property may take, shrinking included. A run cut short fails: fewer cases than
   * announced would be a quiet pass.
   */
  readonly timeLimitMs: number;
  /** Told the report before the outcome: a failing property's counts are kept too. */
  readonly onReport?: (report: FuzzReport) => void;
}

export interface FuzzReport {
  readonly name: string;
  /** Every execution of the predicate: generated cases plus shrinking steps. */
  readonly cases: number;
  readonly seed: number;
  readonly ms: number;
}

/**
 * Shrinking replays the failing request many times; past this many steps the counterexample is small
 * enough to read, and a slow service would otherwise keep shrinking until the time limit.
 */
const MAX_SHRINKS = 150;
/** A counterexample can hold a megabyte of body: the report shows its start. */
const MAX_SHOWN = 3_000;

/**
 * `FUZZ_SEED=<n>` replays a run: every property of the file then starts from that seed. Otherwise
 * fast-check chooses one, and each property prints the seed it got, so any run can be replayed.
 */
function fixedSeed(): { seed: number } | Record<string, never> {
  const fixed = process.env.FUZZ_SEED;
  return fixed !== undefined && fixed !== '' ? { seed: Number(fixed) } : {};
}

/**
 * Runs one fast-check property and says how much it ran: the number of cases and the seed are
 * printed and annotated on the test whether it passes or fails.
 */
export async function fuzz<T>(
  context: Pick<TestContext, 'annotate'>,
  name: string,
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void>,
  options: FuzzOptions,
): Promise<FuzzReport> {
  let cases = 0;
  const started = performance.now();
  const details = await fc.check(
    fc.asyncProperty(fc.limitShrink(arbitrary, MAX_SHRINKS), async (value) => {
      cases++;
      await predicate(value);
    }),
    { numRuns: options.numRuns, ...fixedSeed(), plugins: [fc.interruptAfterTimeLimit(options.timeLimitMs, { failOnInterrupt: true })] },
  );
  const report = { name, cases, seed: details.seed, ms: Math.round(performance.now() - started) };
  const line = `${name}: ${cases} cases (${details.numRuns} generated, ${details.numShrinks} shrinks), seed ${details.seed}, ${report.ms} ms`;
  console.log(`[input-fuzz] ${line}`);
  await context.annotate(line);
  options.onReport?.(report);
  if (details.failed) throw new Error(failureReport(details));
  return report;
}

function failureReport(details: fc.RunDetails<unknown>): string {
  const shown = (text: string): string => (text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}… (${text.length} characters)` : text);
  if (details.interrupted && details.counterexample === null) {
    return `interrupted after ${details.numRuns} cases: the property needed more than its time limit (seed ${details.seed})`;
  }
  const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  return [
    `property failed after ${details.numRuns} cases and ${details.numShrinks} shrinks`,
    `replay: FUZZ_SEED=${details.seed} (path ${details.counterexamplePath ?? '-'})`,
    `counterexample: ${shown(fc.stringify((details.counterexample as [unknown] | null)?.[0]))}`,
    shown(error),
  ].join('\n');
}
