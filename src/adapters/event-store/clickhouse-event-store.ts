import { ClickHouseLogLevel, createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import type { ClickHouseTransport } from './clickhouse-transport.js';
import { bindQuery } from './sql.js';
import { SqlEventStore } from './sql-event-store.js';

export interface ClickHouseEventStoreOptions {
  /**
   * HTTP interfaces of the server, or of several nodes of a cluster, e.g. http://user:password@host:8123:
   * at least one, in the order they are tried (see FailoverTransport).
   */
  readonly urls: readonly string[];
  readonly database: string;
  /** A cluster of the servers' configuration (remote_servers) the event tables are spread over; unset, one server. */
  readonly cluster?: string;
  readonly deleteTimeoutMs?: number;
  readonly retentionDays?: number;
  readonly now?: () => number;
}

/**
 * Distributed mode: the events live in a ClickHouse server, or a cluster of them, reached over HTTP
 * with @clickhouse/client.
 *
 * The client is used only as an HTTP transport, in the way ClickHouse 18.16 understands: statements
 * are sent whole as the request body (values bound client-side by sql.ts; the client's query_params
 * would need server-side parameters, which 18.16 lacks), reads ask for JSONEachRow, and the client's
 * insert() is not used (its payload formats and settings are the client's choice, not ours). The
 * client gets no default database, since the database does not exist until migrate() creates it.
 */
export class ClickHouseEventStore extends SqlEventStore {
  constructor(options: ClickHouseEventStoreOptions) {
    const cluster = options.cluster === undefined ? undefined : { always: CLUSTER_SETTINGS, whereKnown: CLUSTER_SETTINGS_WHERE_KNOWN };
    super(new FailoverTransport(options.urls, cluster), options);
  }
}

/**
 * What every request to a cluster asks for (all four are settings of 18.16). On one server, nothing:
 * its requests stay exactly as they were.
 * - insert_distributed_sync: an INSERT into a Distributed table returns once a replica of each shard
 *   has the rows, so the worker commits its Kafka offsets only after the events are stored, as on one
 *   server (asynchronously, the node would only have queued them).
 * - distributed_product_mode 'local': an IN subquery over a Distributed table reads the shard's local
 *   table. The rows of one app live on one shard, so the shard's own rows are all the subquery needs.
 * - load_balancing 'in_order': each shard is read from its first live replica, so reads keep to the
 *   replica writes went to while it is up, rather than to one that may not have fetched them yet.
 * - insert_deduplicate 0: a replicated table drops a written part identical to a recent one, and
 *   18.16 then drops the materialized views' rows of the whole INSERT, so a batch whose one-event day
 *   repeated an earlier batch's would leave its other events out of the customer index. Repeated
 *   copies are the events table's to merge and the reads' to skip, as on one server.
 */
const CLUSTER_SETTINGS: ClickHouseSettings = { insert_distributed_sync: 1, distributed_product_mode: 'local', load_balancing: 'in_order', insert_deduplicate: 0 };

/**
 * What a cluster's nodes are asked for only if they know the setting, since a server refuses a
 * setting it does not know. From 26.2 `deduplicate_insert` (default `enable`) decides a replicated
 * table's block deduplication and overrides insert_deduplicate: disabled, such a node stores repeats
 * as 18.16 does with insert_deduplicate 0, the behaviour the contract suites hold the store to.
 */
const CLUSTER_SETTINGS_WHERE_KNOWN: ClickHouseSettings = { deduplicate_insert: 'disable' };

/**
 * Node's errors for a node that cannot be reached or stopped answering mid-request, and the client's
 * own for a request past its timeout. Anything else came from ClickHouse (a SQL error, with its "Code:"
 * and a numeric code) or from a proxy in front of it: an answer, which another node would give too.
 */
const UNREACHABLE_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const UNREACHABLE_MESSAGES: ReadonlySet<string> = new Set(['socket hang up', 'Timeout error.']);

function isUnreachable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const { code } = err as NodeJS.ErrnoException;
  return (code !== undefined && UNREACHABLE_CODES.has(code)) || UNREACHABLE_MESSAGES.has(err.message);
}

/**
 * One client per node. A request goes to the current node; when that node cannot be reached, the same
 * request goes to the next one, each node at most once per request, and the node that answers becomes
 * the current one, so the next requests do not wait on the dead node first. An error ClickHouse
 * answers with is thrown as it is, without trying another node. When no node can be reached, the last
 * one's error is thrown. With one URL this is the plain client it always was.
 *
 * Sending a statement again to another node is harmless even when the first one ran it before the
 * connection broke, which a single server's callers already allow for by retrying the call. A SELECT
 * changes nothing; the migrations' statements are idempotent; an INSERT stored twice leaves copies of
 * the same events (same ids, same sorting key), which the events table drops when it merges them and
 * every read skips until then. And the worker commits its Kafka offsets only after the insert
 * succeeded, so a batch whose insert failed everywhere is written again later, not lost.
 */
class FailoverTransport implements ClickHouseTransport {
  readonly #clients: readonly ClickHouseClient[];
  readonly #whereKnown: ClickHouseSettings;
  /** Per node, the settings of #whereKnown it knows, once asked (see #settingsOf). */
  readonly #known: Array<Promise<ClickHouseSettings> | undefined>;
  #current = 0;

  /**
   * `settings.always` go with every request; `settings.whereKnown` with a node's statements once
   * that node said it knows them. Without settings, requests are the client's plain ones.
   */
  constructor(urls: readonly string[], settings: { always: ClickHouseSettings; whereKnown: ClickHouseSettings } | undefined) {
    if (urls.length === 0) throw new RangeError('expected at least one ClickHouse URL');
    // createClient only parses its configuration; sockets open on the first request. The client's own
    // console logging is off: every failure reaches the caller as a rejection, which logs it once.
    this.#clients = urls.map((url) =>
      createClient({ url, application: 'event-alerting', clickhouse_settings: settings?.always, log: { level: ClickHouseLogLevel.OFF } }),
    );
    this.#whereKnown = settings?.whereKnown ?? {};
    this.#known = urls.map(() => undefined);
  }

  async exec(sql: string): Promise<void> {
    await this.#send(async (client, node) => client.command({ query: sql, clickhouse_settings: await this.#settingsOf(client, node) }));
  }

  select(sql: string): Promise<unknown[]> {
    // The rows are read inside the attempt: a connection that breaks mid-body fails over too.
    return this.#send(async (client, node) =>
      (await client.query({ query: sql, format: 'JSONEachRow', clickhouse_settings: await this.#settingsOf(client, node) })).json<unknown>(),
    );
  }

  async ping(): Promise<void> {
    await this.#send(async (client) => {
      const result = await client.ping();
      if (!result.success) throw result.error;
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.#clients.map((client) => client.close()));
  }

  /**
   * The settings of #whereKnown that `node` knows, asked of its system.settings once per process (a
   * node upgraded meanwhile is asked again after a restart). A question that fails is asked again by
   * the next request, and fails this one as the statement itself would have: over to the next node
   * when this one cannot be reached.
   */
  #settingsOf(client: ClickHouseClient, node: number): Promise<ClickHouseSettings> {
    const names = Object.keys(this.#whereKnown);
    if (names.length === 0) return Promise.resolve({});
    let known = this.#known[node];
    if (known === undefined) {
      known = client
        .query({ query: bindQuery('SELECT name FROM system.settings WHERE has({names:Array(String)}, name)', { names }), format: 'JSONEachRow' })
        .then((result) => result.json<{ name: string }>())
        .then((rows) => Object.fromEntries(rows.flatMap(({ name }) => (Object.hasOwn(this.#whereKnown, name) ? [[name, this.#whereKnown[name]]] : []))));
      known.catch(() => {
        if (this.#known[node] === known) this.#known[node] = undefined;
      });
      this.#known[node] = known;
    }
    return known;
  }

  async #send<T>(request: (client: ClickHouseClient, node: number) => Promise<T>): Promise<T> {
    const first = this.#current;
    let lastError: unknown;
    for (let i = 0; i < this.#clients.length; i++) {
      const node = (first + i) % this.#clients.length;
      try {
        const result = await request(this.#clients[node]!, node);
        this.#current = node;
        return result;
      } catch (err) {
        if (!isUnreachable(err)) {
          this.#current = node;
          throw err;
        }
        lastError = err;
      }
    }
    throw lastError;
  }
}
