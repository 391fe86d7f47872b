import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Runs `deploy/local/stack.sh` with these arguments (`down kafka`, `up clickhouse` …), for suites that
 * stop and restart the shared stack; they rely on the integration project running files one at a time.
 * Asynchronous on purpose: a service under test may run in the test's own process, and a blocked event
 * loop would stall it (and its keep-alive timers) for as long as a broker takes to stop.
 */
export async function stackControl(...args: string[]): Promise<void> {
  // A broker restarted on a loaded 2-core machine with a few hundred partitions has taken over 90 s
  // (stack.sh's default wait) to be ready again: the suites wait longer rather than fail.
  await run('bash', ['deploy/local/stack.sh', ...args], { timeout: 240_000, env: { ...process.env, STACK_START_TIMEOUT: '180' } });
}
