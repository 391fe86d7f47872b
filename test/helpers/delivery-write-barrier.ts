import { readdir, readFile, readlink } from 'node:fs/promises';
import { queryServer } from './postgres.js';
import { uniqueName } from './stack-env.js';
import { waitFor } from './service-process.js';

/**
 * Holds a worker still at a chosen point of its pipeline, from outside, with no hook in the service:
 * the test locks the `delivery` table of its own metadata database, so the first worker that creates
 * a delivery (an event batch that triggered a rule, or an absence watcher that claimed a silence)
 * blocks on its INSERT. At that moment the worker has recorded its trigger (or claim) in Redis but
 * not committed its Kafka offsets (nor completed its claim): exactly where a crash is interesting.
 * The lock then says which worker that is, through the PostgreSQL connection it waits on.
 *
 * The lock is one `DO` block that takes the table lock and then sleeps: it needs no client of its
 * own (the suites' one PostgreSQL helper runs one statement per connection), and cancelling the
 * statement ends the transaction and so releases the lock. EXCLUSIVE mode lets reads through (the API
 * keeps listing deliveries) and blocks every write.
 */

/** A backend waiting on the lock: its PostgreSQL pid, the client's TCP port and what it runs. */
export interface BlockedBackend {
  readonly pid: number;
  readonly clientPort: number;
  readonly query: string;
}

export interface DeliveryWriteBarrier {
  /** Waits until some backend's INSERT into `delivery` waits on the lock, and returns it. */
  blockedInsert(timeoutMs: number): Promise<BlockedBackend>;
  /**
   * Ends the sessions waiting on the lock whose client is none of `livePids` (a killed process).
   * PostgreSQL does not notice a dead client while its backend waits on a lock, so without this the
   * dead worker's INSERT (or its delivery poller's claim) would still run, and commit, once the lock
   * goes: as if the worker had got further than it did.
   */
  endOrphans(livePids: readonly number[]): Promise<BlockedBackend[]>;
  /** Which of `pids` holds the client end of the backend's connection (undefined: none of them). */
  ownerOf(backend: BlockedBackend, pids: readonly number[]): Promise<number | undefined>;
  /** Releases the lock (idempotent). */
  release(): Promise<void>;
}

/** The longest the lock can outlive a test that never releases it (a crashed test runner). */
const MAX_HOLD_SECONDS = 120;

export async function lockDeliveryTable(databaseUrl: string): Promise<DeliveryWriteBarrier> {
  const tag = uniqueName('lock');
  const url = new URL(databaseUrl);
  url.searchParams.set('application_name', tag);
  const holding = queryServer(url.toString(), `do $$ begin lock table "delivery" in exclusive mode; perform pg_sleep(${MAX_HOLD_SECONDS}); end $$`).then(
    () => undefined,
    (err: unknown) => err,
  );
  const serverPort = Number(url.port || 5432);
  const query = <Row>(sql: string): Promise<Row[]> => queryServer<Row>(databaseUrl, sql);
  let holder = 0;
  // The sleep starts only once the lock is granted.
  await waitFor(
    async () => {
      const rows = await query<{ pid: number }>(`select pid from pg_stat_activity where datname = current_database() and application_name = '${tag}' and wait_event = 'PgSleep'`);
      holder = rows[0]?.pid ?? 0;
      return holder !== 0;
    },
    10_000,
    'the delivery table lock',
    20,
  );
  const blocked = async (): Promise<BlockedBackend[]> =>
    (
      await query<{ pid: number; client_port: number | null; query: string }>(
        `select pid, client_port, query from pg_stat_activity where datname = current_database() and ${holder} = any(pg_blocking_pids(pid))`,
      )
    ).map((row) => ({ pid: row.pid, clientPort: row.client_port ?? -1, query: row.query }));
  let released = false;

  return {
    async blockedInsert(timeoutMs) {
      let found: BlockedBackend | undefined;
      await waitFor(
        async () => {
          // The delivery rows themselves; not, say, an attempt's row, whose key check on its delivery waits too.
          found = (await blocked()).find((b) => /^\s*insert\s+into\s+"?delivery"?\s*\(/i.test(b.query));
          return found !== undefined;
        },
        timeoutMs,
        'a delivery INSERT waiting on the lock',
        20,
      );
      return found!;
    },
    async endOrphans(livePids) {
      // Read the backends first, then the live processes' sockets: a connection listed here was
      // opened before the sockets are read, so a live client is never taken for a dead one.
      const waiting = await blocked();
      const owned = new Set<number>();
      for (const pid of livePids) for (const port of await postgresClientPorts(pid, serverPort)) owned.add(port);
      const orphans = waiting.filter((b) => !owned.has(b.clientPort));
      if (orphans.length > 0) await query(`select pg_terminate_backend(pid) from pg_stat_activity where pid in (${orphans.map((o) => o.pid).join(',')})`);
      return orphans;
    },
    async ownerOf(backend, pids) {
      for (const pid of pids) if ((await postgresClientPorts(pid, serverPort)).includes(backend.clientPort)) return pid;
      return undefined;
    },
    async release() {
      if (released) return;
      released = true;
      await query(`select pg_cancel_backend(${holder})`);
      await holding;
    },
  };
}

/**
 * The local TCP ports of a process's connections to PostgreSQL (remote port `serverPort`), from
 * /proc: the process's socket inodes, looked up in the kernel's TCP tables. Linux only, like the
 * local stack. A process that is gone has none.
 */
async function postgresClientPorts(pid: number, serverPort: number): Promise<number[]> {
  const inodes = new Set<string>();
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  for (const fd of fds) {
    const link = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    const socket = /^socket:\[(\d+)\]$/.exec(link);
    if (socket) inodes.add(socket[1]!);
  }
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '');
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      const localPort = parseInt(fields[1]!.split(':').at(-1)!, 16);
      const remotePort = parseInt(fields[2]!.split(':').at(-1)!, 16);
      if (remotePort === serverPort && inodes.has(fields[9]!)) ports.push(localPort);
    }
  }
  return ports;
}
