import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Redis } from 'ioredis';
import { freePort } from './net.js';
import { killServer, type PrivateServer } from './private-server.js';

/**
 * A redis-server of the test's own, on a free port, that the test may stop and start again (the
 * shared stack's Redis must never be stopped: other suites use it). In memory only: nothing is saved,
 * so a restart comes back empty, as a replaced Redis would.
 */
export class PrivateRedis implements PrivateServer {
  readonly #dir = mkdtempSync(path.join(tmpdir(), 'eas-redis-'));
  #child: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    await redis.restart();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts the server (again, on the same port) and resolves once it accepts connections. */
  async restart(): Promise<void> {
    if (this.#child) throw new Error('private redis is already running');
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.#dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.#child = child;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const onData = (chunk: Buffer): void => {
        output += chunk.toString('utf8');
        if (output.includes('Ready to accept connections')) {
          child.stdout.off('data', onData);
          resolve();
        }
      };
      child.stdout.on('data', onData);
      child.once('exit', (code) => reject(new Error(`redis-server exited with ${String(code)} before it was ready:\n${output}`)));
      child.once('error', reject);
    });
  }

  /** Stops the server (SIGKILL: connections drop as in a crash) and resolves once it has exited. */
  async stop(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    await killServer(child);
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}

/** Commands the server behind `client` has processed so far (the INFO that asks counts only in later readings). */
export async function commandsProcessed(client: Redis): Promise<number> {
  return Number(/total_commands_processed:(\d+)/.exec(await client.info('stats'))![1]);
}
