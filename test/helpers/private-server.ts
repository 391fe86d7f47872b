import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/**
 * A server of the test's own (PrivateRedis, PrivateClickHouse, PrivatePostgres), on a free port, which
 * the test may stop and start again at the same address without touching the shared stack.
 */
export interface PrivateServer {
  readonly url: string;
  /** Stops the server and resolves once it is gone. */
  stop(): Promise<void>;
  /** Starts it again on the same port and resolves once it answers. */
  restart(): Promise<void>;
  /** Stops it and removes its files. */
  dispose(): Promise<void>;
}

/** Kills a server process with SIGKILL (connections drop as in a crash) and resolves once it has exited. */
export async function killServer(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}
