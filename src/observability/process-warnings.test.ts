import { describe, expect, it } from 'vitest';
import { runModuleScript } from '../../test/helpers/module-script.js';

describe("Node's process warnings", () => {
  it('are written as warn lines of the log, with their stack, and nothing goes to standard error', () => {
    // A process of its own: the warning listener is process-wide.
    const result = runModuleScript([
      "import { processLogger } from './src/observability/logger.ts';",
      "processLogger('info');",
      "process.emitWarning('something is deprecated', { type: 'DeprecationWarning', code: 'DEP_TEST' });",
      "process.emitWarning('a timer of -5 ms', 'TimeoutNegativeWarning');",
    ]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stderr).toBe('');
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: number; msg: string; warning: { name: string; message: string; stack: string; code?: string } });
    expect(lines.map((line) => [line.level, line.msg, line.warning.name])).toEqual([
      [40, 'Node.js warning', 'DeprecationWarning'],
      [40, 'Node.js warning', 'TimeoutNegativeWarning'],
    ]);
    expect(lines[0]!.warning).toMatchObject({ message: 'something is deprecated', code: 'DEP_TEST', stack: expect.stringContaining('DeprecationWarning') });
  });
});
