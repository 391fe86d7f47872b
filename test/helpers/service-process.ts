import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ServiceProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything the process wrote so far, stdout and stderr. */
  output(): string;
  /**
   * Stops keeping output from now on (it is still read, so the child never blocks on a full pipe).
   * For load runs, where every request's log line would otherwise pile up in this process.
   */
  stopCapturing(): void;
  /** Sends the signal and resolves with the exit code (or the signal's name if killed by one). */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

/**
 * The Node.js flags the service runs with, as `npm start`, the container image and the deployment files
 * give them (bench/NOTES.md has the measurements); test/unit/deploy-assets.test.ts and
 * test/unit/ops-assets.test.ts hold them equal.
 * - A larger young generation: 64 MiB per semi-space, and 128 MiB for a process of the worker role,
 *   whose batches leave more short-lived objects behind per scavenge than requests do. Node takes it
 *   from NODE_OPTIONS, where the image sets it and the deployment files set the worker's, so that an
 *   operator can change it; the processes started here get it the same way.
 * - No allocation-site pretenuring: V8 otherwise starts allocating some of each request's objects in the
 *   old generation, where, dead after the request, they keep the young objects they point to alive
 *   through every scavenge until a full collection. NODE_OPTIONS refuses V8 flags like this one: the
 *   image passes it in its ENTRYPOINT.
 */
export const SERVICE_NODE_OPTIONS = ['--max-semi-space-size=64'] as const;
export const WORKER_NODE_OPTIONS = ['--max-semi-space-size=128'] as const;
/** Variables of Node's own that a deployment may set beside the service's configuration. */
export const NODE_OWN_VARIABLES: readonly string[] = ['NODE_OPTIONS'];
export const SERVICE_V8_FLAGS = ['--no-allocation-site-pretenuring'] as const;
export const SERVICE_NODE_FLAGS = [...SERVICE_NODE_OPTIONS, ...SERVICE_V8_FLAGS] as const;

/**
 * The NODE_OPTIONS of a service process started with these arguments and environment: its role's,
 * then the caller's (a preloaded module, or another young generation: of two, Node takes the last).
 */
function nodeOptionsFor(args: readonly string[], env: Record<string, string>): string {
  const role = args[0] ?? env.ROLE ?? 'all';
  return [...(role === 'worker' ? WORKER_NODE_OPTIONS : SERVICE_NODE_OPTIONS), ...(env.NODE_OPTIONS ? [env.NODE_OPTIONS] : [])].join(' ');
}

/** The image's entry point (deploy/Dockerfile): Node with the V8 flags, then the compiled service; the role is its only argument. */
export const IMAGE_ENTRYPOINT = `ENTRYPOINT ${JSON.stringify(['node', ...SERVICE_V8_FLAGS, 'dist/main.js']).replaceAll(',', ', ')}`;

/**
 * Which code a service process runs: `source` is src/main.ts through tsx, so a suite needs no build;
 * `built` is dist/main.js, what `npm start` and the container image run (`npm run build` first). The
 * benchmarks measure `built`: tsx's transform adds work to every request (bench/NOTES.md).
 */
export type ServiceEntry = 'source' | 'built';

const ENTRY_ARGS: Record<ServiceEntry, readonly string[]> = {
  source: ['--import', 'tsx', 'src/main.ts'],
  built: ['dist/main.js'],
};

/**
 * Runs the real service as a child process with exactly the given environment, plus PATH, HOME and
 * its role's NODE_OPTIONS (before any the environment gives): nothing leaks in from the test runner's
 * own environment. Events are kept whatever their age (EVENT_RETENTION_DAYS=0) unless `env` says
 * otherwise: the suites date their events on fixed days that the default retention would hide as the
 * calendar moves on. `root`: the checkout to run, this one by default (the benchmarks compare another
 * one's build with it).
 */
export function spawnService(
  env: Record<string, string>,
  args: string[] = [],
  options: { entry?: ServiceEntry; root?: string } = {},
): { child: ChildProcess; output: () => string; stopCapturing: () => void } {
  const child = spawn(process.execPath, [...SERVICE_V8_FLAGS, ...ENTRY_ARGS[options.entry ?? 'source'], ...args], {
    cwd: options.root ?? ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      EVENT_RETENTION_DAYS: '0',
      ...env,
      NODE_OPTIONS: nodeOptionsFor(args, env),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let capturing = true;
  const capture = (d: Buffer): void => {
    if (capturing) out += d.toString('utf8');
  };
  child.stdout.on('data', capture);
  child.stderr.on('data', capture);
  return { child, output: () => out, stopCapturing: () => (capturing = false) };
}

/** Starts the service and waits for its "started" log line, which carries the URL it listens on. */
export async function startService(
  env: Record<string, string>,
  args: string[] = [],
  options: { timeoutMs?: number; entry?: ServiceEntry; root?: string } = {},
): Promise<ServiceProcess> {
  const { timeoutMs = 60_000, ...spawnOptions } = options;
  const { child, output, stopCapturing } = spawnService(env, args, spawnOptions);
  const exited = once(child, 'exit');
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // A process that did not start in time is nobody's to stop later: it goes now.
      child.kill('SIGKILL');
      reject(new Error(`service did not start within ${timeoutMs} ms:\n${output()}`));
    }, timeoutMs);
    const onData = (): void => {
      const match = /"url":"(http:\/\/[^"]+)".*"msg":"event alerting service started"/.exec(output());
      if (match) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    void exited.then(([code]) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${String(code)} before starting:\n${output()}`));
    });
  });
  return {
    url,
    child,
    output,
    stopCapturing,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null) return child.exitCode;
      child.kill(signal);
      const [code, sig] = (await exited) as [number | null, NodeJS.Signals | null];
      return code ?? sig ?? 'unknown';
    },
  };
}

/** Polls until `check` returns true, or fails with the last observation after `timeoutMs`. */
export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string, intervalMs = 200): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: Error | undefined;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (err) {
      last = err instanceof Error ? err : new Error(String(err));
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${last.message}` : ''}`);
}

/** Whether the process is still running (neither exited nor killed). */
export function isAlive(p: ServiceProcess): boolean {
  return p.child.exitCode === null && p.child.signalCode === null;
}

/**
 * What the processes complained about: the last `perProcess` warning, error and fatal log lines of
 * each that belong to no request (a suite sees its requests' answers itself), each cut to 500
 * characters, under its pid and label. For failure messages of suites that run several processes.
 */
export function problemReport(processes: ReadonlyArray<{ readonly process: ServiceProcess; readonly label: string }>, perProcess = 20): string {
  return processes
    .map(({ process: p, label }) => {
      const problems = p
        .output()
        .split('\n')
        .filter((line) => /"level":(4|5|6)0/.test(line) && !line.includes('"requestId":'))
        .map((line) => line.slice(0, 500));
      return problems.length === 0 ? '' : `pid ${p.child.pid} (${label}${isAlive(p) ? '' : ', gone'}):\n${problems.slice(-perProcess).join('\n')}`;
    })
    .filter((report) => report !== '')
    .join('\n');
}
