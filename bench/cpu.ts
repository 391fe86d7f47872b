import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * CPU time per component over a load step, from /proc. On a 2-core machine the service, the load
 * generator, Kafka, ClickHouse and PostgreSQL all compete for the same cores, so "where the time
 * goes" is mostly "who held a core": these figures say it in cores (1.0 = one core busy throughout).
 * `machine` is the whole machine, so the gap between it and the sum of the named parts is other
 * people's work (test suites running at the same time).
 */

/** A named group of processes; a function because some groups (PostgreSQL backends) change over time. */
export type PidSource = () => readonly number[];

export interface CpuUsage {
  readonly wallSeconds: number;
  /** Cores used by each group on average over the window. */
  readonly cores: Readonly<Record<string, number>>;
  /** Cores busy on the whole machine (all processes, kernel included). */
  readonly machine: number;
}

const TICKS_PER_SECOND = clockTicks();

function clockTicks(): number {
  try {
    const n = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isFinite(n) && n > 0 ? n : 100;
  } catch {
    return 100;
  }
}

/** utime + stime of one process, in ticks; null once it has exited. */
function processTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may contain spaces and parentheses; the fields after its closing one do not.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

function machineTicks(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const v = line.trim().split(/\s+/).slice(1).map(Number);
  const total = v.reduce((a, b) => a + b, 0);
  // idle and iowait are the two "not running anything" columns.
  return { busy: total - (v[3] ?? 0) - (v[4] ?? 0), total };
}

export class CpuSampler {
  readonly #groups: ReadonlyMap<string, PidSource>;
  #start: { at: number; ticks: Map<string, Map<number, number>>; machine: { busy: number; total: number } } | undefined;

  constructor(groups: Record<string, PidSource>) {
    this.#groups = new Map(Object.entries(groups));
  }

  start(): void {
    this.#start = { at: performance.now(), ticks: this.#snapshot(), machine: machineTicks() };
  }

  stop(): CpuUsage {
    const start = this.#start;
    if (!start) throw new Error('CpuSampler.stop() before start()');
    const end = this.#snapshot();
    const machine = machineTicks();
    const wallSeconds = (performance.now() - start.at) / 1000;
    const cores: Record<string, number> = {};
    for (const [name, now] of end) {
      const before = start.ticks.get(name) ?? new Map<number, number>();
      let ticks = 0;
      // A process born during the window spent all its CPU time inside it; one that died is lost,
      // which undercounts only short-lived PostgreSQL backends.
      for (const [pid, t] of now) ticks += t - (before.get(pid) ?? 0);
      cores[name] = ticks / TICKS_PER_SECOND / wallSeconds;
    }
    const cpus = machine.total - start.machine.total;
    const machineCores = cpus > 0 ? ((machine.busy - start.machine.busy) / cpus) * coreCount() : 0;
    return { wallSeconds, cores, machine: machineCores };
  }

  #snapshot(): Map<string, Map<number, number>> {
    const result = new Map<string, Map<number, number>>();
    for (const [name, pids] of this.#groups) {
      const ticks = new Map<number, number>();
      for (const pid of pids()) {
        const t = processTicks(pid);
        if (t !== null) ticks.set(pid, t);
      }
      result.set(name, ticks);
    }
    return result;
  }
}

function coreCount(): number {
  // Lines "cpu0", "cpu1", ... of /proc/stat: the cores the busy fraction above is spread over.
  return readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .filter((l) => /^cpu\d+ /.test(l)).length;
}
