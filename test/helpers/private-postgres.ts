import { execFile } from 'node:child_process';
import { appendFileSync, chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './net.js';
import type { PrivateServer } from './private-server.js';

const run = promisify(execFile);

/** Debian's server binaries (package postgresql-15), which the local stack installs. */
const BIN = '/usr/lib/postgresql/15/bin';

/**
 * A PostgreSQL cluster of the test's own, on a free port, that the test may stop and start again (the
 * shared stack's server must never be stopped: other suites use it). A throwaway cluster in a temporary
 * folder: trust authentication, loopback TCP only, no durability, removed by `dispose`.
 *
 * initdb and the server refuse to run as root, so under root every command runs as the `postgres`
 * user (which the Debian package creates), in a folder handed over to that user.
 */
export class PrivatePostgres implements PrivateServer {
  readonly #dir = mkdtempSync(path.join(tmpdir(), 'eas-postgres-'));
  #running = false;

  private constructor(
    readonly port: number,
    /** What precedes each command: nothing, or `runuser -u postgres --` under root. */
    private readonly asServerUser: readonly string[],
  ) {}

  static async start(): Promise<PrivatePostgres> {
    const asRoot = process.getuid?.() === 0;
    const pg = new PrivatePostgres(await freePort(), asRoot ? ['runuser', '-u', 'postgres', '--'] : []);
    try {
      if (asRoot) {
        const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
        chownSync(pg.#dir, Number(uid.stdout), Number(gid.stdout));
      }
      await pg.#initdb();
      await pg.restart();
      return pg;
    } catch (err) {
      await pg.dispose();
      throw err;
    }
  }

  /** The cluster's own `postgres` database, as the superuser `postgres`; the service migrates into it. */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  get #dataDir(): string {
    return path.join(this.#dir, 'data');
  }

  async #initdb(): Promise<void> {
    await this.#run('initdb', ['-D', this.#dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions']);
    // Later settings win, so appending is enough. No Unix socket: its default folder belongs to the
    // machine's own server. Durability is switched off: nothing here outlives the test.
    appendFileSync(
      path.join(this.#dataDir, 'postgresql.conf'),
      [`listen_addresses = '127.0.0.1'`, `port = ${this.port}`, `unix_socket_directories = ''`, 'fsync = off', 'synchronous_commit = off', 'full_page_writes = off', ''].join('\n'),
    );
  }

  /** Starts the server (again, on the same port) and resolves once it accepts connections. */
  async restart(): Promise<void> {
    if (this.#running) throw new Error('private postgres is already running');
    await this.#run('pg_ctl', ['-D', this.#dataDir, '-l', path.join(this.#dir, 'server.log'), '-w', '-t', '60', 'start']);
    this.#running = true;
  }

  /**
   * Stops the server and resolves once it has exited. A fast shutdown, not SIGKILL: killing the
   * postmaster alone would leave its backends running, still serving the connections a pool holds
   * (and outliving the test), whereas fast mode ends every session and closes every socket, as a
   * server restart or a failover does to its clients.
   */
  async stop(): Promise<void> {
    if (!this.#running) return;
    await this.#run('pg_ctl', ['-D', this.#dataDir, '-m', 'fast', '-w', '-t', '60', 'stop']);
    this.#running = false;
  }

  async dispose(): Promise<void> {
    try {
      await this.stop();
    } finally {
      rmSync(this.#dir, { recursive: true, force: true });
    }
  }

  async #run(command: string, args: string[]): Promise<void> {
    const [file, ...rest] = [...this.asServerUser, path.join(BIN, command), ...args];
    try {
      await run(file!, rest, { timeout: 90_000 });
    } catch (err) {
      const e = err as { stderr?: string; stdout?: string; message: string };
      throw new Error(`${command} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`, { cause: err });
    }
  }
}
