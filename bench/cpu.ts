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
  /**
   * The main thread of each watched group's process (the service's roles): seconds per second it ran
   * on a core, and seconds per second it was ready to run but waited for one, the kernel having given
   * both cores to other threads. Their sum near 1.00 is a thread bound by CPU, and then the wait is
   * what its neighbours took from it. Absent in results written before it was measured, and for a
   * group whose figures the kernel did not give (no scheduler statistics, or the process exited).
   */
  readonly mainThreads?: Readonly<Record<string, MainThreadTime>>;
}

export interface MainThreadTime {
  readonly onCore: number;
  readonly waiting: number;
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

/**
 * A process's main thread (its thread id is the process id): nanoseconds on a core and nanoseconds
 * waiting on a run queue, the first two fields of schedstat; null if the kernel keeps none or the
 * process has exited.
 */
function mainThreadNanos(pid: number): MainThreadTime | null {
  try {
    const [onCore, waiting] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').trim().split(' ').map(Number);
    return Number.isFinite(onCore) && Number.isFinite(waiting) ? { onCore: onCore!, waiting: waiting! } : null;
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

type MainThreadSnapshot = Map<string, MainThreadTime & { readonly pid: number }>;

export class CpuSampler {
  readonly #groups: ReadonlyMap<string, PidSource>;
  readonly #watched: readonly string[];
  #start: { at: number; ticks: Map<string, Map<number, number>>; machine: { busy: number; total: number }; mainThreads: MainThreadSnapshot } | undefined;

  /** `watchMainThreads`: groups of one process each whose main thread's time is also reported (mainThreads). */
  constructor(groups: Record<string, PidSource>, watchMainThreads: readonly string[] = []) {
    this.#groups = new Map(Object.entries(groups));
    this.#watched = watchMainThreads;
  }

  start(): void {
    this.#start = { at: performance.now(), ticks: this.#snapshot(), machine: machineTicks(), mainThreads: this.#mainThreads() };
  }

  stop(): CpuUsage {
    const start = this.#start;
    if (!start) throw new Error('CpuSampler.stop() before start()');
    const end = this.#snapshot();
    const endThreads = this.#mainThreads();
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
    if (this.#watched.length === 0) return { wallSeconds, cores, machine: machineCores };
    const mainThreads: Record<string, MainThreadTime> = {};
    for (const [name, now] of endThreads) {
      const before = start.mainThreads.get(name);
      // The same process at both ends: a role restarted within the window has no figure.
      if (before?.pid !== now.pid) continue;
      mainThreads[name] = { onCore: (now.onCore - before.onCore) / 1e9 / wallSeconds, waiting: (now.waiting - before.waiting) / 1e9 / wallSeconds };
    }
    return { wallSeconds, cores, machine: machineCores, mainThreads };
  }

  #mainThreads(): MainThreadSnapshot {
    const result: MainThreadSnapshot = new Map();
    for (const name of this.#watched) {
      const [pid] = this.#groups.get(name)?.() ?? [];
      const nanos = pid === undefined ? null : mainThreadNanos(pid);
      if (pid !== undefined && nanos) result.set(name, { pid, ...nanos });
    }
    return result;
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
