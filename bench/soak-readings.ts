import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { parseMetrics, type Sample } from '../test/helpers/prometheus-text.js';
import { findStackProcesses } from './processes.js';
import type { StackAddresses } from './stack.js';

/**
 * What one soak sample reads: the memory of the service's processes (from their /metrics) and of the
 * stack's servers (from /proc), the service's own counters of work done and of errors, and the
 * consumer lag of the worker's groups (from the broker, not from the worker: a stuck worker would
 * not report its own lag).
 */

export type StackServer = 'kafka' | 'clickhouse' | 'redis' | 'postgresql';

export interface StackServers {
  /** The one process that listens on the stack's address of each server. */
  readonly pids: Readonly<Record<StackServer, number | null>>;
  /** The broker's -cp argument (where its version is read from). */
  readonly kafkaClasspath: string | null;
}

/**
 * The stack's servers, each found by who owns the listening socket of its address. Matching on the
 * process name alone is not enough: another developer's throwaway stack (a second broker on another
 * port, for outage tests) runs on the same machine, and its memory is not ours to report.
 */
export function locateStackServers(stack: StackAddresses): StackServers {
  const candidates = findStackProcesses();
  const port = (address: string): number => Number(new URL(address.includes('://') ? address : `tcp://${address}`).port);
  const listening = listeningInodes();
  const owner = (pids: readonly number[], p: number): number | null => {
    const inodes = listening.get(p);
    if (!inodes) return null;
    return pids.find((pid) => socketInodes(pid).some((inode) => inodes.has(inode))) ?? null;
  };
  const kafka = owner(candidates.kafka, port(stack.kafkaBrokers[0]!));
  return {
    pids: {
      kafka,
      clickhouse: owner(candidates.clickhouse, port(stack.clickhouseUrl)),
      redis: owner(candidates.redis, port(stack.redisUrl)),
      // The postmaster listens; its backends are its children (see postgresProcesses).
      postgresql: owner(candidates.postgres, port(stack.databaseUrl)),
    },
    kafkaClasspath: kafka === null ? null : classpathOf(kafka),
  };
}

/** Port → inodes of the sockets listening on it (IPv4 and IPv6). */
function listeningInodes(): Map<number, Set<string>> {
  const byPort = new Map<number, Set<string>>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // local_address is HEXADDR:HEXPORT; state 0A is LISTEN; the inode is the tenth column.
      if (f.length < 10 || f[3] !== '0A') continue;
      const p = parseInt(f[1]!.split(':')[1]!, 16);
      let set = byPort.get(p);
      if (!set) byPort.set(p, (set = new Set()));
      set.add(f[9]!);
    }
  }
  return byPort;
}

function socketInodes(pid: number): string[] {
  try {
    return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
      try {
        return [/^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? ''];
      } catch {
        return [];
      }
    });
  } catch {
    return [];
  }
}

function classpathOf(pid: number): string | null {
  const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  const i = argv.indexOf('-cp');
  return i >= 0 ? (argv[i + 1] ?? null) : null;
}

/** A process's VmRSS in bytes, or null once it has gone. */
export function residentBytes(pid: number): number | null {
  try {
    const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? null : Number(kb) * 1024;
  } catch {
    return null;
  }
}

/** The postmaster and its children now (backends come and go with connections). */
export function postgresProcesses(postmaster: number): number[] {
  const pids = [postmaster];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster) pids.push(Number(entry));
    } catch {
      // Ended between readdir and read.
    }
  }
  return pids;
}

/**
 * PostgreSQL's memory: the proportional set size (Pss) of the postmaster and every backend, summed.
 * Summing their RSS would count the shared buffers once per backend that touched them.
 */
function postgresBytes(postmaster: number): number | null {
  let total = 0;
  for (const pid of postgresProcesses(postmaster)) {
    try {
      const kb = /^Pss:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1];
      total += Number(kb ?? 0) * 1024;
    } catch {
      if (pid === postmaster) return null;
    }
  }
  return total;
}

export function stackMemory(servers: StackServers): Record<StackServer, number | null> {
  const { kafka, clickhouse, redis, postgresql } = servers.pids;
  return {
    kafka: kafka === null ? null : residentBytes(kafka),
    clickhouse: clickhouse === null ? null : residentBytes(clickhouse),
    redis: redis === null ? null : residentBytes(redis),
    postgresql: postgresql === null ? null : postgresBytes(postgresql),
  };
}

export interface ServiceMemory {
  readonly rssBytes: number | null;
  readonly heapUsedBytes: number | null;
  readonly heapTotalBytes: number | null;
  /** Buffers and other memory outside the V8 heap (nodejs_external_memory_bytes). */
  readonly externalBytes: number | null;
}

/** One scrape of a service process's /metrics. */
export async function scrape(url: string): Promise<Map<string, Sample>> {
  const res = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5_000) });
  if (res.status !== 200) throw new Error(`GET ${url}/metrics answered ${res.status}`);
  return parseMetrics(await res.text());
}

/** Sum of every series of `name` whose labels pass `where`; 0 when there is none. */
export function total(metrics: Map<string, Sample>, name: string, where: (labels: Readonly<Record<string, string>>) => boolean = () => true): number {
  let sum = 0;
  for (const s of metrics.values()) if (s.name === name && where(s.labels)) sum += s.value;
  return sum;
}

/** RSS from /proc (the same source as the stack's servers), the heap from the process's own metrics. */
export function serviceMemory(pid: number, metrics: Map<string, Sample> | null): ServiceMemory {
  const gauge = (name: string): number | null => (metrics && [...metrics.values()].some((s) => s.name === name) ? total(metrics, name) : null);
  return {
    rssBytes: residentBytes(pid),
    heapUsedBytes: gauge('nodejs_heap_size_used_bytes'),
    heapTotalBytes: gauge('nodejs_heap_size_total_bytes'),
    externalBytes: gauge('nodejs_external_memory_bytes'),
  };
}

/** A consumer group whose lag the soak watches: the worker's two on events, and its delivery consumer's. */
export interface LagWatch {
  readonly label: string;
  readonly groupId: string;
  readonly topic: string;
}

/** A group's coordinator can move (NOT_COORDINATOR), which kafkajs's fetchOffsets does not retry itself. */
const LAG_ATTEMPTS = 5;

/**
 * Messages not yet committed by a group: per partition, the log end offset minus the committed
 * offset (minus the log start where the group has committed nothing yet). Null while the topic does
 * not exist yet, or when the broker did not answer after a few attempts (`onError` hears why): a
 * reading missed is a gap in the samples, never the end of a soak.
 */
export class LagReader {
  readonly #admin: Admin;
  readonly #onError: (message: string) => void;
  #connected: Promise<void> | undefined;

  constructor(brokers: string[], onError: (message: string) => void) {
    this.#admin = new Kafka({ brokers, clientId: 'bench-soak-lag', logLevel: logLevel.NOTHING }).admin();
    this.#onError = onError;
  }

  async lag(watch: LagWatch): Promise<number | null> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#read(watch);
      } catch (err) {
        if (attempt >= LAG_ATTEMPTS) {
          this.#onError(`the ${watch.label} group's lag could not be read: ${err instanceof Error ? err.message : String(err)}`);
          return null;
        }
        await delay(500 * attempt);
      }
    }
  }

  async #read(watch: LagWatch): Promise<number | null> {
    try {
      await (this.#connected ??= this.#admin.connect());
    } catch (err) {
      this.#connected = undefined;
      throw err;
    }
    const topics = await this.#admin.listTopics();
    if (!topics.includes(watch.topic)) return null;
    const ends = await this.#admin.fetchTopicOffsets(watch.topic);
    const [committed] = await this.#admin.fetchOffsets({ groupId: watch.groupId, topics: [watch.topic] });
    const at = new Map((committed?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
    let lag = 0;
    for (const p of ends) {
      const offset = at.get(p.partition) ?? -1;
      lag += Number(p.high) - (offset >= 0 ? offset : Number(p.low));
    }
    return lag;
  }

  async close(): Promise<void> {
    if (this.#connected) await this.#admin.disconnect();
  }
}
