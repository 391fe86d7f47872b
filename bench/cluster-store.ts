import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { v7 as uuidv7 } from 'uuid';
import { ClickHouseEventStore } from '../src/adapters/event-store/clickhouse-event-store.js';
import { CUSTOMER_INDEX, EVENTS_TABLE } from '../src/adapters/event-store/clickhouse-sql.js';
import { bindQuery, quoteIdentifier } from '../src/adapters/event-store/sql.js';
import { TableLayout } from '../src/adapters/event-store/table-layout.js';
import type { EventLevel, StoredEvent } from '../src/domain/events.js';
import { CpuSampler, type CpuUsage } from './cpu.js';
import { findStackProcesses, listProcesses } from './processes.js';
import { positiveWhole } from './cli-options.js';

/**
 * What a replicated ClickHouse costs per stored event, against one server (docs/capacity.md, the
 * ClickHouse formula). The same events are stored twice in one run, through the service's own event
 * store, in the batches a worker's fetch gives: first into a fresh database on the single stack's
 * server, then into a fresh database on the local cluster (2 shards × 2 replicas, one ZooKeeper). For
 * each, the CPU time of every server process involved is read from /proc from before the first insert
 * until the data has settled: every replica holds its shard's rows, the replication queues are empty
 * and no merge has run for QUIET_MS. Replication fetches and merges are part of the cost, so the
 * window does not close when the last INSERT returns.
 *
 *   bash deploy/local/stack.sh up && bash deploy/local/cluster.sh up
 *   npm run bench:cluster [-- --events 1000000 --batch 10000]
 *
 * Prints the figures and writes them to bench/results/cluster-store-latest.json (docs/capacity.md
 * quotes it); drops both databases at the end. CPU is read from /proc, so the servers must be local processes (Linux), not containers.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

const { values: options } = parseArgs({
  options: { events: { type: 'string', default: '1000000' }, batch: { type: 'string', default: '10000' } },
  strict: true,
});
const EVENTS = positiveWhole('events', options.events);
const BATCH = positiveWhole('batch', options.batch);

const APPS = 50;
const CUSTOMERS_PER_APP = 2_000;
const DAY_MS = 86_400_000;
/** Every run stores the same events but for their ids, which are random as the service's are. */
const SEED = 20261125;
/** Settled means this long with nothing to replicate or merge; the CPU window ends where it began. */
const QUIET_MS = 10_000;
const POLL_MS = 500;
const SETTLE_TIMEOUT_MS = 15 * 60_000;

const log = (message: string): void => void process.stderr.write(`[cluster-store] ${message}\n`);

// --- the events -------------------------------------------------------------------------------------

const NAMES = ['page.viewed', 'api.request', 'session.started', 'button.clicked', 'search.performed', 'cart.item_added',
  'order.created', 'payment.succeeded', 'email.sent', 'user.logged_in', 'job.completed', 'error.reported'] as const;
const LEVELS: readonly (readonly [EventLevel, number])[] = [['info', 0.8], ['warning', 0.9], ['error', 0.97], ['success', 1]];
const PATHS = ['/', '/pricing', '/checkout', '/checkout/payment', '/account/settings', '/docs/getting-started'] as const;

/** mulberry32: a small seeded generator, so that both stores get the same events. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * Events like the service's, `count` of them in batches of `batch`, their times spread in order over
 * the day up to `endMs` (as a stream the worker reads): apps skewed (the first has about 14 % of the
 * events), a customer on 90 %, names and levels skewed as in product telemetry, and about 200 bytes of
 * data and metadata.
 */
function* eventBatches(count: number, batch: number, endMs: number): Generator<StoredEvent[]> {
  const random = seededRandom(SEED);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const apps = Array.from({ length: APPS }, (_, i) => `0b1e5c00-0000-4000-8000-${(i + 1).toString(16).padStart(12, '0')}`);
  const startMs = endMs - DAY_MS;
  for (let first = 0; first < count; first += batch) {
    const events: StoredEvent[] = [];
    for (let i = first; i < Math.min(count, first + batch); i++) {
      const timestampMs = Math.min(endMs - 5_000, startMs + Math.floor((i / count) * DAY_MS + random() * 30_000));
      const ingestedMs = timestampMs + Math.floor(random() * 2_000);
      const u = random();
      events.push({
        id: uuidv7({ msecs: ingestedMs }),
        appId: apps[Math.floor(APPS * random() ** 2)]!,
        event: NAMES[Math.floor(NAMES.length * random() ** 3)]!,
        customerId: random() < 0.9 ? `cus_${1 + Math.floor(CUSTOMERS_PER_APP * random() ** 2)}` : null,
        level: LEVELS.find(([, upTo]) => u < upTo)![0],
        data: {
          path: pick(PATHS),
          orderId: `ord_${Math.floor(random() * 1e6)}`,
          amount: Math.round(random() * 50_000) / 100,
          currency: pick(['EUR', 'USD', 'GBP']),
          items: 1 + Math.floor(random() * 5),
          durationMs: Math.floor(random() * 2_000),
        },
        metadata: {
          source: pick(['web', 'ios', 'android', 'server']),
          region: pick(['eu-west-1', 'us-east-1', 'us-west-2', 'ap-southeast-1']),
          version: `4.${Math.floor(random() * 20)}.${Math.floor(random() * 10)}`,
          session: `ses_${Math.floor(random() * 0xffffffff).toString(16).padStart(8, '0')}`,
        },
        timestamp: new Date(timestampMs),
        ingestedAt: new Date(ingestedMs),
      });
    }
    yield events;
  }
}

// --- the servers ------------------------------------------------------------------------------------

interface ServerNode {
  /** `single`, or the replica macro of a cluster node (clickhouse-1 …). */
  readonly name: string;
  /** The shard macro; `single` on one server. */
  readonly shard: string;
  readonly client: ClickHouseClient;
  readonly pids: readonly number[];
}

/** The export lines `bash deploy/local/<script> env` prints (read-only: it starts nothing). */
async function scriptExports(script: 'stack.sh' | 'cluster.sh'): Promise<Map<string, string>> {
  const { stdout } = await run('bash', [`deploy/local/${script}`, 'env'], { cwd: ROOT });
  return new Map(stdout.split('\n').flatMap((line) => {
    const match = /^export ([A-Z_]+)=(.*)$/.exec(line.trim());
    return match ? [[match[1]!, match[2]!] as const] : [];
  }));
}

const clientOf = (url: string): ClickHouseClient => createClient({ url, application: 'bench-cluster-store', log: { level: ClickHouseLogLevel.OFF } });

/** Running processes by the first group of `pattern` matched by one of their arguments. */
function processesByArgument(pattern: RegExp): Map<string, number[]> {
  const found = new Map<string, number[]>();
  for (const { pid, argv } of listProcesses()) {
    const key = argv.map((arg) => pattern.exec(arg)?.[1]).find((k) => k !== undefined);
    if (key !== undefined) found.set(key, [...(found.get(key) ?? []), pid]);
  }
  return found;
}

/** The one process of `name`, or an error that says why there is not exactly one. */
function onlyProcess(found: ReadonlyMap<string, number[]>, name: string, what: string): number {
  const pids = found.get(name) ?? [];
  if (pids.length !== 1) throw new Error(`expected one local process of ${name} (${what}), found ${pids.length}: CPU is read from /proc, so it must run as deploy/local/cluster.sh starts it`);
  return pids[0]!;
}

async function reachable(client: ClickHouseClient): Promise<boolean> {
  try {
    return (await client.ping()).success;
  } catch {
    return false;
  }
}

async function rows<T>(client: ClickHouseClient, query: string): Promise<T[]> {
  return (await client.query({ query, format: 'JSONEachRow' })).json<T>();
}

/** Both ClickHouse setups, or null (after saying what to run) when one does not answer. */
async function findServers(): Promise<{ single: ServerNode; singleUrl: string; nodes: ServerNode[]; urls: string[]; cluster: string } | null> {
  const [stackEnv, clusterEnv] = await Promise.all([scriptExports('stack.sh'), scriptExports('cluster.sh')]);
  const singleUrl = stackEnv.get('CLICKHOUSE_URL');
  const urls = clusterEnv.get('CLICKHOUSE_URLS')?.split(',') ?? [];
  const cluster = clusterEnv.get('CLICKHOUSE_CLUSTER');
  if (singleUrl === undefined || urls.length === 0 || cluster === undefined) throw new Error('deploy/local/{stack,cluster}.sh env printed no ClickHouse addresses');
  const clients = [singleUrl, ...urls].map(clientOf);
  const answers = await Promise.all(clients.map(reachable));
  const missing = [singleUrl, ...urls].filter((_, i) => !answers[i]);
  if (missing.length > 0) {
    await Promise.all(clients.map((c) => c.close()));
    process.stderr.write(`No ClickHouse answers at ${missing.join(', ')}. This benchmark needs both the single local stack and the local cluster:\n` +
      '  bash deploy/local/stack.sh up\n  bash deploy/local/cluster.sh up\nand `bash deploy/local/cluster.sh down` afterwards.\n');
    return null;
  }
  const singlePids = findStackProcesses().clickhouse;
  if (singlePids.length !== 1) throw new Error(`expected one local clickhouse-server of the single stack, found ${singlePids.length}`);
  const clusterProcesses = processesByArgument(/^--config-file=.*\/cluster\/(clickhouse-\d+)\/config\.xml$/);
  const nodes = await Promise.all(clients.slice(1).map(async (client) => {
    const macros = new Map((await rows<{ macro: string; substitution: string }>(client, 'SELECT macro, substitution FROM system.macros')).map((m) => [m.macro, m.substitution]));
    const name = macros.get('replica');
    const shard = macros.get('shard');
    if (name === undefined || shard === undefined) throw new Error('a cluster node has no shard or replica macro');
    return { name, shard, client, pids: [onlyProcess(clusterProcesses, name, 'its --config-file under cluster/')] };
  }));
  return { single: { name: 'single', shard: 'single', client: clients[0]!, pids: singlePids }, singleUrl, nodes, urls, cluster };
}

// --- storing and settling ---------------------------------------------------------------------------

interface NodeState {
  readonly events: number;
  readonly indexed: number;
  readonly merges: number;
  readonly queued: number;
  readonly parts: number;
}

/** One statement per poll and node: its rows, and whether it still has merges, fetches or parts in motion. */
async function nodeState(node: ServerNode, tables: TableLayout): Promise<NodeState> {
  const local = (table: string): string => `${tables.db}.${quoteIdentifier(tables.local(table))}`;
  const [row] = await rows<Record<keyof NodeState, string>>(node.client, bindQuery(`SELECT
  (SELECT count() FROM ${local(EVENTS_TABLE)}) AS events,
  (SELECT count() FROM ${local(CUSTOMER_INDEX.table)}) AS indexed,
  (SELECT count() FROM system.merges WHERE database = {db:String}) AS merges,
  (SELECT count() FROM system.replication_queue WHERE database = {db:String}) AS queued,
  (SELECT count() FROM system.parts WHERE database = {db:String} AND active) AS parts`, { db: tables.database }));
  if (row === undefined) throw new Error(`${node.name}: no answer to the state query`);
  return { events: Number(row.events), indexed: Number(row.indexed), merges: Number(row.merges), queued: Number(row.queued), parts: Number(row.parts) };
}

/** Every replica of each shard holds the same rows, and the shards together hold all of them. */
function complete(nodes: readonly ServerNode[], states: readonly NodeState[], expected: { events: number; indexed: number }): boolean {
  const shards = new Map<string, NodeState[]>();
  nodes.forEach((node, i) => shards.set(node.shard, [...(shards.get(node.shard) ?? []), states[i]!]));
  let events = 0;
  let indexed = 0;
  for (const replicas of shards.values()) {
    if (replicas.some((r) => r.events !== replicas[0]!.events || r.indexed !== replicas[0]!.indexed)) return false;
    events += replicas[0]!.events;
    indexed += replicas[0]!.indexed;
  }
  return events === expected.events && indexed === expected.indexed;
}

interface Settled {
  readonly at: number;
  readonly usage: CpuUsage;
  readonly states: readonly NodeState[];
}

/**
 * Polls until the data has settled, and returns the CPU usage as of the first poll of the quiet
 * stretch: the QUIET_MS that prove it are idle time, not the data's cost.
 */
async function settle(nodes: readonly ServerNode[], tables: TableLayout, expected: { events: number; indexed: number }, sampler: CpuSampler): Promise<Settled> {
  const deadline = performance.now() + SETTLE_TIMEOUT_MS;
  let quiet: Settled | undefined;
  let lastParts = '';
  for (;;) {
    const states = await Promise.all(nodes.map((node) => nodeState(node, tables)));
    const usage = sampler.stop();
    const at = performance.now();
    const parts = states.map((s) => s.parts).join();
    const still = complete(nodes, states, expected) && states.every((s) => s.merges === 0 && s.queued === 0) && parts === lastParts;
    lastParts = parts;
    if (!still) quiet = undefined;
    else if (quiet === undefined) quiet = { at, usage, states };
    else if (at - quiet.at >= QUIET_MS) return quiet;
    if (at > deadline) throw new Error(`not settled after ${SETTLE_TIMEOUT_MS / 1000} s: ${JSON.stringify(states)}`);
    await delay(POLL_MS);
  }
}

interface PhaseRun {
  readonly insertSeconds: number;
  /** From the last INSERT's answer to the start of the quiet stretch. */
  readonly settleSeconds: number;
  readonly wallSeconds: number;
  readonly cpu: CpuUsage;
  readonly states: readonly NodeState[];
  readonly indexedEvents: number;
  readonly payloadBytes: number;
}

async function storeAndSettle(label: string, store: ClickHouseEventStore, nodes: readonly ServerNode[], tables: TableLayout, sampler: CpuSampler): Promise<PhaseRun> {
  await store.migrate();
  let indexed = 0;
  let payloadBytes = 0;
  const started = performance.now();
  sampler.start();
  for (const batch of eventBatches(EVENTS, BATCH, Date.now())) {
    await store.insert(batch);
    for (const e of batch) {
      if (e.customerId !== null) indexed++;
      payloadBytes += JSON.stringify(e.data).length + JSON.stringify(e.metadata).length;
    }
  }
  const inserted = performance.now();
  log(`${label}: ${EVENTS} events stored in ${((inserted - started) / 1000).toFixed(1)} s; waiting for replicas and merges to settle`);
  const settled = await settle(nodes, tables, { events: EVENTS, indexed }, sampler);
  return {
    insertSeconds: (inserted - started) / 1000,
    settleSeconds: (settled.at - inserted) / 1000,
    wallSeconds: settled.usage.wallSeconds,
    cpu: settled.usage,
    states: settled.states,
    indexedEvents: indexed,
    payloadBytes: payloadBytes / EVENTS,
  };
}

// --- the figures ------------------------------------------------------------------------------------

const round = (n: number, digits = 2): number => Math.round(n * 10 ** digits) / 10 ** digits;
const cpuSeconds = (usage: CpuUsage, group: string): number => (usage.cores[group] ?? 0) * usage.wallSeconds;
const perEvent = (seconds: number): number => round((seconds * 1e6) / EVENTS);

function summarise(single: PhaseRun, cluster: PhaseRun, nodes: readonly ServerNode[]) {
  const singleSeconds = cpuSeconds(single.cpu, 'single');
  const nodeFigures = nodes.map((node, i) => {
    const seconds = cpuSeconds(cluster.cpu, node.name);
    const shardRows = cluster.states[i]!.events;
    return {
      node: node.name,
      shard: node.shard,
      rows: shardRows,
      customerIndexRows: cluster.states[i]!.indexed,
      cpuSeconds: round(seconds),
      usPerEvent: perEvent(seconds),
      usPerShardRow: round((seconds * 1e6) / shardRows),
      /** This replica's CPU over what the single server spent on its shard's share of the rows. */
      toSingleShardShare: round(seconds / (singleSeconds * (shardRows / EVENTS))),
    };
  });
  const shards = [...new Set(nodes.map((n) => n.shard))].map((shard) => {
    const replicas = nodeFigures.filter((n) => n.shard === shard);
    const seconds = replicas.reduce((sum, n) => sum + n.cpuSeconds, 0);
    return { shard, rows: replicas[0]!.rows, cpuSeconds: round(seconds), usPerEvent: perEvent(seconds), usPerShardRow: round((seconds * 1e6) / replicas[0]!.rows) };
  });
  const clusterSeconds = nodeFigures.reduce((sum, n) => sum + n.cpuSeconds, 0);
  const zookeeperSeconds = cpuSeconds(cluster.cpu, 'zookeeper');
  const phase = (p: PhaseRun) => ({
    insertSeconds: round(p.insertSeconds),
    settleSeconds: round(p.settleSeconds),
    wallSeconds: round(p.wallSeconds),
    machineCores: round(p.cpu.machine),
    /** Average cores of every watched process over the window, the other setup's idle ones included. */
    cores: Object.fromEntries(Object.entries(p.cpu.cores).map(([k, v]) => [k, round(v, 3)])),
  });
  return {
    single: { ...phase(single), rows: single.states[0]!.events, cpuSeconds: round(singleSeconds), usPerEvent: perEvent(singleSeconds) },
    cluster: {
      ...phase(cluster),
      nodes: nodeFigures,
      shards,
      clickhouse: { cpuSeconds: round(clusterSeconds), usPerEvent: perEvent(clusterSeconds) },
      zookeeper: { cpuSeconds: round(zookeeperSeconds), usPerEvent: perEvent(zookeeperSeconds) },
    },
    ratios: {
      clusterToSingle: round(clusterSeconds / singleSeconds),
      clusterWithZookeeperToSingle: round((clusterSeconds + zookeeperSeconds) / singleSeconds),
      replicaToSingleShardShare: Object.fromEntries(nodeFigures.map((n) => [n.node, n.toSingleShardShare])),
    },
  };
}

async function main(): Promise<void> {
  const servers = await findServers();
  if (servers === null) {
    process.exitCode = 1;
    return;
  }
  const { single, singleUrl, nodes, urls, cluster } = servers;
  const zookeeper = onlyProcess(processesByArgument(/\/cluster\/(zookeeper)\/zoo\.cfg$/), 'zookeeper', 'its zoo.cfg under cluster/');
  const startedAt = new Date();
  const database = `bench_cluster_${startedAt.toISOString().replace(/\D/g, '').slice(0, 14)}`;
  const sampler = new CpuSampler({
    single: () => single.pids,
    ...Object.fromEntries(nodes.map((node) => [node.name, () => node.pids])),
    zookeeper: () => [zookeeper],
    bench: () => [process.pid],
  });
  const [version] = await rows<{ v: string }>(single.client, 'SELECT version() AS v');
  log(`${EVENTS} events over ${APPS} apps in batches of ${BATCH}, database ${database}; ClickHouse ${version?.v ?? '?'}, ${os.cpus().length} cores`);

  const singleStore = new ClickHouseEventStore({ urls: [singleUrl], database });
  const clusterStore = new ClickHouseEventStore({ urls, cluster, database });
  const cleanUp = async (): Promise<void> => {
    await Promise.allSettled([singleStore.close(), clusterStore.close()]);
    const db = quoteIdentifier(database);
    await single.client.command({ query: `DROP DATABASE IF EXISTS ${db}` });
    await nodes[0]!.client.command({ query: `DROP DATABASE IF EXISTS ${db} ON CLUSTER ${quoteIdentifier(cluster)}` });
    await Promise.all([single, ...nodes].map((n) => n.client.close()));
    log(`dropped ${database} on the single server and on the cluster`);
  };
  process.once('SIGINT', () => {
    log('interrupted; dropping the databases');
    void cleanUp().finally(() => process.exit(130));
  });
  try {
    const singleRun = await storeAndSettle('single server', singleStore, [single], new TableLayout(database), sampler);
    const clusterRun = await storeAndSettle('cluster', clusterStore, nodes, new TableLayout(database, cluster), sampler);
    const result = {
      startedAt: startedAt.toISOString(),
      machine: { cpuModel: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length },
      clickhouse: version?.v ?? 'unknown',
      events: EVENTS,
      batch: BATCH,
      apps: APPS,
      eventsWithCustomer: clusterRun.indexedEvents,
      dataAndMetadataBytes: round(clusterRun.payloadBytes, 0),
      ...summarise(singleRun, clusterRun, nodes),
    };
    const file = path.join(ROOT, 'bench/results/cluster-store-latest.json');
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    printSummary(result);
    log(`wrote ${path.relative(ROOT, file)}`);
  } finally {
    await cleanUp();
  }
}

function printSummary(result: ReturnType<typeof summarise> & { events: number }): void {
  const { single, cluster, ratios } = result;
  const lines = [
    `single server: ${single.usPerEvent} µs/event (${single.cpuSeconds} s CPU, ${single.wallSeconds} s wall, settled ${single.settleSeconds} s after the inserts)`,
    `cluster:       ${cluster.clickhouse.usPerEvent} µs/event over the four nodes (${cluster.wallSeconds} s wall, settled ${cluster.settleSeconds} s after the inserts), ZooKeeper ${cluster.zookeeper.usPerEvent} µs/event`,
    ...cluster.nodes.map((n) => `  ${n.node} (shard ${n.shard}, ${n.rows} rows): ${n.usPerEvent} µs/event, ${n.usPerShardRow} µs per row of its shard = ${n.toSingleShardShare} × the single server's`),
    ...cluster.shards.map((s) => `  shard ${s.shard} (${s.rows} rows): ${s.usPerEvent} µs/event, ${s.usPerShardRow} µs per row of its own`),
    `cluster / single: ${ratios.clusterToSingle} (with ZooKeeper ${ratios.clusterWithZookeeperToSingle}); machine busy ${single.machineCores} / ${cluster.machineCores} cores`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().catch((err: unknown) => {
  log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exitCode = 1;
});
