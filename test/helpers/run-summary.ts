import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * A vitest reporter that closes the run with one line in the plain form any CI reads
 * (`N passed, N failed, N skipped`), lists every skipped test with the reason it gave its test
 * context's `skip`, and writes the same to test-artifacts/summary.json for test/run-all.sh, which fails
 * a full run when a test was skipped without a reason.
 *
 * A file that fails to load, or whose hook fails, has no failed test of its own: it counts as one
 * failure, so that such a run never reads "0 failed".
 */

export interface SkippedTest {
  readonly name: string;
  readonly file: string;
  readonly reason: string | null;
}

export interface RunSummary {
  readonly passed: number;
  readonly failed: number;
  readonly skipped: number;
  readonly skippedTests: readonly SkippedTest[];
}

export const SUMMARY_FILE = path.join('test-artifacts', 'summary.json');

export function summarize(modules: ReadonlyArray<TestModule>): RunSummary {
  let passed = 0;
  let failed = 0;
  const skippedTests: SkippedTest[] = [];
  for (const module of modules) {
    let failedHere = 0;
    for (const test of module.children.allTests()) {
      const result = test.result();
      if (result.state === 'passed') passed += 1;
      else if (result.state === 'failed') failedHere += 1;
      else if (result.state === 'skipped') skippedTests.push({ name: test.fullName, file: module.relativeModuleId, reason: result.note?.trim() || null });
    }
    failed += failedHere === 0 && module.state() === 'failed' ? 1 : failedHere;
  }
  return { passed, failed, skipped: skippedTests.length, skippedTests };
}

export function summaryLines(summary: RunSummary): string[] {
  return [
    `${summary.passed} passed, ${summary.failed} failed, ${summary.skipped} skipped`,
    ...summary.skippedTests.map((test) => `  skipped: ${test.file} > ${test.name}: ${test.reason ?? 'NO REASON GIVEN'}`),
  ];
}

export default class RunSummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const summary = summarize(modules);
    mkdirSync(path.dirname(SUMMARY_FILE), { recursive: true });
    writeFileSync(SUMMARY_FILE, `${JSON.stringify(summary, null, 2)}\n`);
    for (const line of summaryLines(summary)) console.log(line);
  }
}
