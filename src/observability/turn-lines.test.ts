import { describe, expect, it } from 'vitest';
import { runModuleScript } from '../../test/helpers/module-script.js';
import { TurnLines, type LineStream } from './logger.js';

/** A stream that records what it is asked to do in `calls`, each call named with `name`. */
function recordingStream(calls: string[], name = ''): LineStream {
  return {
    write: (text: string) => calls.push(`${name}write ${JSON.stringify(text)}`),
    flush: (callback) => {
      calls.push(`${name}flush`);
      callback();
    },
    flushSync: () => calls.push(`${name}flushSync`),
  };
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('TurnLines', () => {
  it("hands the lines of one turn of the event loop to its stream together, in order, when the turn ends", async () => {
    const calls: string[] = [];
    const lines = new TurnLines(recordingStream(calls), recordingStream(calls, 'now '));
    lines.write('a\n');
    lines.write('b\n');
    lines.write('c\n');
    expect(calls).toEqual([]);
    await nextTurn();
    expect(calls).toEqual(['write "a\\nb\\nc\\n"']);

    lines.write('d\n');
    await nextTurn();
    expect(calls).toEqual(['write "a\\nb\\nc\\n"', 'write "d\\n"']);
  });

  it('writes what is pending synchronously, after what the stream queued, when flushed synchronously', async () => {
    const calls: string[] = [];
    const lines = new TurnLines(recordingStream(calls), recordingStream(calls, 'now '));
    lines.write('a\n');
    lines.write('b\n');
    lines.flushSync();
    expect(calls).toEqual(['flushSync', 'now write "a\\nb\\n"']);
    // Nothing is left for the turn's end to hand over again.
    await nextTurn();
    expect(calls).toHaveLength(2);
  });

  it('hands over what is pending before the stream flushes', async () => {
    const calls: string[] = [];
    const lines = new TurnLines(recordingStream(calls), recordingStream(calls, 'now '));
    lines.write('a\n');
    await new Promise<void>((resolve) => lines.flush(() => resolve()));
    expect(calls).toEqual(['write "a\\n"', 'flush']);
    await nextTurn();
    expect(calls).toHaveLength(2);
  });

  it('writes every line to standard output when the process exits, the lines of its last turn included', () => {
    // A process of its own, as the service runs: lines over several turns, then a line and the exit in one turn.
    const result = runModuleScript([
      "import { processLogger } from './src/observability/logger.ts';",
      "const logger = processLogger('info');",
      'let turn = 0;',
      'const next = () => {',
      "  for (let i = 0; i < 50; i++) logger.info({ turn, i }, 'line');",
      '  if (++turn < 20) return setImmediate(next);',
      "  logger.info('stopped');",
      '  process.exit(0);',
      '};',
      'next();',
    ]);
    expect(result.status, result.stderr).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string; turn?: number; i?: number });
    // Every line once. Not necessarily in order: an asynchronous write still in flight when the process
    // exits (the reader of standard output being slow) can land after what the exit writes synchronously.
    expect(lines).toHaveLength(20 * 50 + 1);
    const written = lines.filter((line) => line.msg === 'line').map((line) => line.turn! * 50 + line.i!);
    expect(written.sort((a, b) => a - b)).toEqual(Array.from({ length: 1000 }, (_, n) => n));
    expect(lines.filter((line) => line.msg === 'stopped')).toHaveLength(1);
  });

  it('has a fatal line on standard output before the process goes on, even when it is killed right after', () => {
    const result = runModuleScript([
      "import { processLogger } from './src/observability/logger.ts';",
      "const logger = processLogger('info');",
      "logger.fatal('cannot go on');",
      // A signal runs no exit handler: only what was written when fatal returned is there.
      "process.kill(process.pid, 'SIGKILL');",
    ]);
    expect(result.signal).toBe('SIGKILL');
    expect((JSON.parse(result.stdout.trim()) as { msg: string }).msg).toBe('cannot go on');
  });
});
