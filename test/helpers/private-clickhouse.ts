import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './net.js';
import { killServer, type PrivateServer } from './private-server.js';
import { waitFor } from './service-process.js';

/** The local stack's server configuration, which deploy/local/stack.sh renders the same way. */
const STACK_CONFIG = fileURLToPath(new URL('../../deploy/local/clickhouse/', import.meta.url));

/**
 * A clickhouse-server of the test's own, on free ports, that the test may stop and start again (the
 * shared stack's server must never be stopped: other suites use it). It runs the stack's own
 * configuration, rendered into a temporary folder with that folder and these ports in place of the
 * stack's, so it behaves as the shared server does. That configuration opens the HTTP and native
 * ports only (no interserver port, as befits a single node). Its data survives a restart; `dispose`
 * removes it.
 */
export class PrivateClickHouse implements PrivateServer {
  readonly #dir = mkdtempSync(path.join(tmpdir(), 'eas-clickhouse-'));
  #child: ChildProcess | undefined;

  private constructor(
    readonly httpPort: number,
    readonly tcpPort: number,
  ) {}

  static async start(): Promise<PrivateClickHouse> {
    const clickhouse = new PrivateClickHouse(await freePort(), await freePort());
    try {
      clickhouse.#writeConfig();
      await clickhouse.restart();
      return clickhouse;
    } catch (err) {
      await clickhouse.dispose();
      throw err;
    }
  }

  get url(): string {
    return `http://127.0.0.1:${this.httpPort}`;
  }

  get #configFile(): string {
    return path.join(this.#dir, 'config.xml');
  }

  /** As stack.sh's `render`: every @NAME@ of the template replaced, users.xml copied beside it. */
  #writeConfig(): void {
    const values: Record<string, string> = {
      CLICKHOUSE_DIR: this.#dir,
      CLICKHOUSE_HTTP_PORT: String(this.httpPort),
      CLICKHOUSE_TCP_PORT: String(this.tcpPort),
    };
    const config = readFileSync(path.join(STACK_CONFIG, 'config.xml'), 'utf8').replace(/@([A-Z_]+)@/g, (placeholder, name: string) => {
      const value = values[name];
      // A placeholder the template gained later must not reach the server as literal text.
      if (value === undefined) throw new Error(`deploy/local/clickhouse/config.xml has ${placeholder}, which PrivateClickHouse does not fill`);
      return value;
    });
    mkdirSync(path.join(this.#dir, 'data'));
    mkdirSync(path.join(this.#dir, 'log'));
    writeFileSync(this.#configFile, config);
    copyFileSync(path.join(STACK_CONFIG, 'users.xml'), path.join(this.#dir, 'users.xml'));
  }

  /** Starts the server (again, on the same ports) and resolves once it answers /ping. */
  async restart(): Promise<void> {
    if (this.#child) throw new Error('private clickhouse is already running');
    // The server writes its log to files in the folder; stderr is kept for a server that dies at once.
    const child = spawn('clickhouse-server', [`--config-file=${this.#configFile}`], { stdio: ['ignore', 'ignore', 'pipe'] });
    this.#child = child;
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = once(child, 'exit').then(([code, signal]) => {
      throw new Error(`clickhouse-server exited (${String(code ?? signal)}) before it answered /ping:\n${stderr}${this.#errorLog()}`);
    });
    // Once started, nobody waits for `exited`: its rejection after a later stop must not go unhandled.
    exited.catch(() => undefined);
    await Promise.race([exited, waitFor(() => this.#answers(), 60_000, `clickhouse-server on ${this.url} to answer /ping`)]);
  }

  /**
   * Stops the server (SIGKILL: connections drop as in a crash) and resolves once it has exited. Its
   * MergeTree tables need no clean shutdown, and a clean one takes seconds this suite need not wait.
   */
  async stop(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    await killServer(child);
  }

  async dispose(): Promise<void> {
    try {
      await this.stop();
    } finally {
      rmSync(this.#dir, { recursive: true, force: true });
    }
  }

  async #answers(): Promise<boolean> {
    const res = await fetch(`${this.url}/ping`, { signal: AbortSignal.timeout(2_000) });
    return res.ok && (await res.text()).trim() === 'Ok.';
  }

  #errorLog(): string {
    try {
      return readFileSync(path.join(this.#dir, 'log', 'clickhouse-server.err.log'), 'utf8').split('\n').slice(-30).join('\n');
    } catch {
      return '';
    }
  }
}
