import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * Which code the figures belong to. The commit alone is not enough while work is in progress: the
 * service is built from the working tree, so the report also names how many files differ from the
 * commit and a digest of everything under src/, which tells two runs of different trees apart.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

export interface CodeVersion {
  readonly commit: string;
  /** Files under src/ that are modified, added or untracked relative to the commit. */
  readonly uncommittedSrcFiles: number;
  /** sha256 over the paths and contents of every file under src/, first 12 hex digits. */
  readonly srcDigest: string;
}

export async function codeVersion(): Promise<CodeVersion> {
  let commit = 'unknown';
  let uncommitted = 0;
  try {
    commit = (await run('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: ROOT })).stdout.trim();
    const { stdout } = await run('git', ['status', '--porcelain', '--untracked-files=all', '--', 'src'], { cwd: ROOT });
    uncommitted = stdout.split('\n').filter(Boolean).length;
  } catch {
    // Not a git checkout (an unpacked release): the digest still identifies the code.
  }
  return { commit, uncommittedSrcFiles: uncommitted, srcDigest: srcDigest() };
}

function srcDigest(): string {
  const hash = createHash('sha256');
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) hash.update(path.relative(ROOT, full)).update('\0').update(readFileSync(full)).update('\0');
    }
  };
  walk(path.join(ROOT, 'src'));
  return hash.digest('hex').slice(0, 12);
}
