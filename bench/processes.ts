import { readdirSync, readFileSync } from 'node:fs';

/**
 * Finds the local stack's server processes in /proc: their pids feed the CPU accounting of each load
 * step (who used the two cores), and the running broker's own classpath is where
 * kafka-producer-perf-test is taken from, so the ceiling is measured with exactly the jars that serve
 * the service. Linux only, like deploy/local/stack.sh.
 */

export interface StackProcesses {
  readonly kafka: number[];
  readonly clickhouse: number[];
  readonly redis: number[];
  /** The postmaster and every backend present now (backends come and go with connections). */
  readonly postgres: number[];
  /** The broker's -cp argument, e.g. ~/.local/state/event-alerting/stack/kafka/libs/*. */
  readonly kafkaClasspath: string | null;
  /** The broker's log.dirs (from the server.properties its command line names), where the topic data is. */
  readonly kafkaLogDirs: string[];
}

export interface ProcInfo {
  readonly pid: number;
  readonly comm: string;
  readonly argv: string[];
}

/** Every process now running, with its name and arguments. */
export function listProcesses(): ProcInfo[] {
  const found: ProcInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const comm = readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').filter(Boolean);
      found.push({ pid: Number(entry), comm, argv });
    } catch {
      // The process ended between readdir and read: nothing to account for.
    }
  }
  return found;
}

export function findStackProcesses(): StackProcesses {
  const all = listProcesses();
  // The stack's own servers, by their config files: the local cluster's (cluster/kafka-N/,
  // cluster/clickhouse-N/) and a test's private ClickHouse run the same programs.
  const broker = all.filter((p) => p.comm === 'java' && p.argv.includes('kafka.Kafka') && /\/kafka\/server\.properties$/.test(p.argv.at(-1) ?? ''));
  const cpIndex = broker[0]?.argv.indexOf('-cp') ?? -1;
  return {
    kafka: broker.map((p) => p.pid),
    // comm is cut to 15 characters by the kernel: "clickhouse-serv".
    clickhouse: all.filter((p) => p.comm.startsWith('clickhouse-serv') && p.argv.some((arg) => /^--config-file=.*\/clickhouse\/config\.xml$/.test(arg))).map((p) => p.pid),
    redis: all.filter((p) => p.comm === 'redis-server').map((p) => p.pid),
    postgres: all.filter((p) => p.comm === 'postgres').map((p) => p.pid),
    kafkaClasspath: cpIndex >= 0 ? (broker[0]!.argv[cpIndex + 1] ?? null) : null,
    kafkaLogDirs: logDirs(broker[0]?.argv.at(-1)),
  };
}

/** kafka.Kafka takes its server.properties as the last argument. */
function logDirs(configPath: string | undefined): string[] {
  if (!configPath?.endsWith('.properties')) return [];
  try {
    const line = /^log\.dirs?=(.*)$/m.exec(readFileSync(configPath, 'utf8'));
    return line ? line[1]!.trim().split(',') : [];
  } catch {
    return [];
  }
}

/** Current postgres pids: backends opened after the step began are found again at its end. */
export function postgresPids(): number[] {
  return listProcesses()
    .filter((p) => p.comm === 'postgres')
    .map((p) => p.pid);
}
