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
  await run('bash', ['deploy/local/stack.sh', ...args], { timeout: 180_000 });
}
