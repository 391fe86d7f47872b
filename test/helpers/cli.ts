import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `npm run cli -- <args>` exactly as an operator would, in its own process, with only the given
 * environment (plus PATH and HOME). `--silent` keeps npm's own banner out of stdout.
 */
export function runCli(args: readonly string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      'npm',
      ['run', '--silent', 'cli', '--', ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** The value of an aligned `  name   value` line of the CLI's output. */
export function outputField(stdout: string, name: string): string {
  const match = new RegExp(`^\\s+${name}\\s+(\\S+)$`, 'm').exec(stdout);
  if (!match) throw new Error(`no "${name}" line in:\n${stdout}`);
  return match[1]!;
}

/** The client secret the CLI printed on a line of its own, or '' when there is none. */
export function printedClientSecret(stdout: string): string {
  return /^(svc_cs_[A-Za-z0-9_-]{43})$/m.exec(stdout)?.[1] ?? '';
}
