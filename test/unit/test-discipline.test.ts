import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ESLint, Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../helpers/run-summary.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * What keeps every test running: the lint rule against skipped and focused forms, and the run's
 * closing summary that counts and explains skips (test/helpers/run-summary.ts).
 */

/** The project's own rule against skipping, as eslint.config.js sets it for a test file. */
async function skipRule(): Promise<Linter.RuleEntry> {
  const config = (await new ESLint({ cwd: ROOT }).calculateConfigForFile('test/unit/probe.test.ts')) as Linter.Config;
  const rule = config.rules?.['no-restricted-syntax'];
  if (!rule) throw new Error('eslint.config.js sets no no-restricted-syntax rule for test files');
  return rule;
}

async function lintTest(code: string): Promise<number[]> {
  const linter = new Linter({ configType: 'flat' });
  const messages = linter.verify(code, [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, rules: { 'no-restricted-syntax': await skipRule() } }], 'probe.test.ts');
  return [...new Set(messages.map((message) => message.line))];
}

/**
 * `<target>.<modifier>(<args>)`: the probes below are written from their parts, so that the tree holds
 * no skipped or focused call of its own, only the code the rule is shown.
 */
const call = (target: string, modifier: string, args: string): string => `${target}.${modifier}(${args})`;
/** A test whose body calls its context's skip with `args`. */
const skippingTest = (args: string): string => `it('a', (ctx) => { ${call('ctx', 'skip', args)}; });`;

describe('the lint rule against skipped tests', () => {
  it.each([
    ['a skipped test', `${call('it', 'skip', "'a', () => {}")};`],
    ['a focused test', `${call('it', 'only', "'a', () => {}")};`],
    ['a focused test through a chain', `${call('test.concurrent', 'only', "'a', () => {}")};`],
    ['a skipped suite', `${call('describe', 'skip', "'a', () => {}")};`],
    ['a test skipped on a condition', `${call('it', 'skipIf', 'process.env.CI')}('a', () => {});`],
    ['a suite run on a condition', `${call('describe', 'runIf', 'false')}('a', () => {});`],
    ['a todo', `${call('it', 'todo', "'a'")};`],
    ['a test expected to fail', `${call('it', 'fails', "'a', () => {}")};`],
    ['a skipped table', `${call('it.each([1])', 'skip', "'a', () => {}")};`],
    ['a name-only skip', `${call('it', 'skip', "'a'")};`],
    ["the context's skip without a reason", skippingTest('')],
    ["the context's skip on a condition without a reason", skippingTest('true')],
    ["the context's skip with an empty reason", skippingTest("true, ''")],
    ["the context's skip with a computed reason", skippingTest('true, String(1)')],
    ['a destructured skip without a reason', "it('a', ({ skip }) => { skip(1 > 0); });"],
  ])('refuses %s', async (_name, line) => {
    expect(await lintTest(`import { describe, it, test } from 'vitest';\n${line}\n`)).toEqual([2]);
  });

  it.each([
    ["the context's skip with a written reason", skippingTest("'this machine has no IPv6 loopback'")],
    ["the context's skip on a condition with a written reason", skippingTest('true, `no ${"IPv6"} loopback`')],
    ['a destructured skip on a condition with a written reason', "it('a', ({ skip }) => { skip(false, 'why'); });"],
    ['a plain test', "it('a', () => { const options = { skip: 1 }; return options.skip; });"],
  ])('lets %s through', async (_name, line) => {
    expect(await lintTest(`import { describe, it, test } from 'vitest';\n${line}\n`)).toEqual([]);
  });
});

describe('the run summary', () => {
  const fixture = path.join(ROOT, 'test-artifacts', 'run-summary-fixture');
  afterAll(() => rmSync(fixture, { recursive: true, force: true }));

  it('counts passed, failed and skipped tests, with the reason each skip gave', async () => {
    rmSync(fixture, { recursive: true, force: true });
    mkdirSync(fixture, { recursive: true });
    // The fixture skips on purpose: it is what the summary must see through.
    const lines = [
      "import { it } from 'vitest';",
      "it('passes', () => {});",
      "it('fails', () => { throw new Error('on purpose'); });",
      `it('skips with a reason', (ctx) => { ${call('ctx', 'skip', "'no IPv6 loopback here'")}; });`,
      `it('skips without one', (ctx) => { ${call('ctx', 'skip', '')}; });`,
    ];
    writeFileSync(path.join(fixture, 'probe.test.ts'), `${lines.join('\n')}\n`);
    writeFileSync(path.join(fixture, 'broken.test.ts'), "import './does-not-exist.js';\n");
    // A configuration of its own, so that the project's (found by looking upwards) is not used.
    writeFileSync(path.join(fixture, 'vitest.config.mjs'), 'export default {};\n');

    const vitest = path.join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
    const reporter = path.join(ROOT, 'test', 'helpers', 'run-summary.ts');
    const outcome = await run(process.execPath, [vitest, 'run', '--root', fixture, '--config', path.join(fixture, 'vitest.config.mjs'), '--reporter', reporter], { cwd: fixture }).then(
      (done) => ({ code: 0, stdout: done.stdout }),
      (error: { code: number; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
    );

    expect(outcome.code).toBe(1);
    // The file that cannot load counts as a failure of its own.
    expect(outcome.stdout).toContain('1 passed, 2 failed, 2 skipped');
    expect(outcome.stdout).toContain('skipped: probe.test.ts > skips with a reason: no IPv6 loopback here');
    expect(outcome.stdout).toContain('skipped: probe.test.ts > skips without one: NO REASON GIVEN');
    const summary = JSON.parse(readFileSync(path.join(fixture, 'test-artifacts', 'summary.json'), 'utf8')) as RunSummary;
    expect(summary.skippedTests.map((test) => test.reason)).toEqual(['no IPv6 loopback here', null]);
  });
});
