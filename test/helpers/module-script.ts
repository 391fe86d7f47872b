import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs `lines` as an ES module in a process of its own, through tsx, from the repository's root (so
 * `./src/...` imports resolve): for what is process-wide, such as `process` listeners and what a
 * process writes to its standard output up to its exit.
 */
export function runModuleScript(lines: readonly string[]): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', lines.join('\n')], { cwd: ROOT, encoding: 'utf8' });
}
