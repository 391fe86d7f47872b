import { quoteIdentifier, type QuotedIdentifier } from './sql.js';

/**
 * Where the event store's tables live: on one server (and in chDB), or on a ClickHouse cluster.
 *
 * On one server each table is a MergeTree table of its own name. On a cluster (CLICKHOUSE_CLUSTER, a
 * cluster of the servers' `remote_servers`), each is two tables on every node, made by one statement
 * each ON CLUSTER:
 * - `<name>_local`, a Replicated*MergeTree table holding the rows of its node's shard, copied to the
 *   shard's other replicas through ZooKeeper (path `/clickhouse/tables/{shard}/<database>/<name>`,
 *   replica `{replica}`: the servers' macros name them);
 * - `<name>`, a Distributed table that sends each written row to one shard by its sharding column and
 *   each read to one replica of every shard.
 * Statements read and write the Distributed tables by the names they use on one server; the events
 * and every table derived from them are sharded by app, so an app's rows, their repeated copies
 * included, meet on one shard, where FINAL, merges and the reads' own repeat-skipping see all of them.
 * Upkeep addresses the local tables (partitions, merges, mutations), ON CLUSTER.
 */
export interface TableDefinition {
  /** The column list, as in CREATE TABLE (…). */
  readonly columns: string;
  readonly engine: 'MergeTree' | 'ReplacingMergeTree';
  /** PARTITION BY, ORDER BY and SETTINGS clauses. */
  readonly keys: string;
  /** The column a cluster shards the rows by. */
  readonly shardBy: string;
}

export class TableLayout {
  /** The database, quoted for SQL text. */
  readonly db: QuotedIdentifier;
  /** ` ON CLUSTER <name>` on a cluster, nothing on one server. */
  readonly onCluster: string;
  readonly #cluster: QuotedIdentifier | undefined;

  constructor(
    readonly database: string,
    /** The cluster's name in the servers' configuration; undefined on one server. */
    readonly cluster?: string,
  ) {
    // Both are checked here: a bad name fails at wiring time, not at the first statement.
    this.db = quoteIdentifier(database);
    this.#cluster = cluster === undefined ? undefined : quoteIdentifier(cluster);
    this.onCluster = this.#cluster === undefined ? '' : ` ON CLUSTER ${this.#cluster}`;
  }

  /** The statements creating table `name` if missing: one table, or on a cluster its local and Distributed tables. */
  createTable(name: string, definition: TableDefinition): string[] {
    const table = quoteIdentifier(name);
    if (this.#cluster === undefined) {
      return [`CREATE TABLE IF NOT EXISTS ${this.db}.${table} (${definition.columns}) ENGINE = ${definition.engine}()\n${definition.keys}`];
    }
    const local = quoteIdentifier(this.local(name));
    // The path's macros are the server's to fill; the database and table are plain identifiers.
    const path = `/clickhouse/tables/{shard}/${this.database}/${name}`;
    return [
      `CREATE TABLE IF NOT EXISTS ${this.db}.${local}${this.onCluster} (${definition.columns}) ENGINE = Replicated${definition.engine}('${path}', '{replica}')\n${definition.keys}`,
      `CREATE TABLE IF NOT EXISTS ${this.db}.${table}${this.onCluster} AS ${this.db}.${local} ENGINE = Distributed(${this.#cluster}, ${this.db}, ${local}, cityHash64(${definition.shardBy}))`,
    ];
  }

  /** The table holding the rows of `name` on a node: itself on one server, `<name>_local` on a cluster. */
  local(name: string): string {
    return this.#cluster === undefined ? name : `${name}_local`;
  }

  /**
   * A system table (`parts`, `mutations`) as the store reads it: the server's own, or on a cluster
   * the one of a replica of every shard, the replica reads go to (`load_balancing = in_order`).
   */
  system(table: 'parts' | 'mutations'): string {
    return this.#cluster === undefined ? `system.${table}` : `cluster(${this.#cluster}, system.${table})`;
  }

  /**
   * An expression naming the node a row of system.parts comes from: on a cluster, the host and the
   * server's own directory, the part's path up to `/data/` (18.16) or `/store/` (current releases'
   * Atomic databases), since nodes on one host differ only in the second; on one server, a constant.
   */
  get partNode(): string {
    return this.#cluster === undefined ? "''" : "concat(hostName(), ':', replaceRegexpOne(path, '/(data|store)/.*$', '/'))";
  }
}
