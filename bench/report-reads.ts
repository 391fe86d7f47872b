import { TARGETS, int, ms, one, table, verdict } from './report-format.js';
import type { ReadCase, ReadsResult, ReadsTarget } from './results.js';

/**
 * The reads parts of bench/REPORT.md: their rows of the targets table and the section "Reads at
 * scale". The targets are for distributed mode on ClickHouse 18.16; chDB's figures stand beside them.
 */

/** Pages and single events by id share the list target; counts and top lists the other. */
const isListRead = (c: ReadCase): boolean => c.kind === 'list' || c.kind === 'event';
const targetOf = (c: ReadCase): number => (isListRead(c) ? TARGETS.readListP99Ms : TARGETS.readStatsP99Ms);
const met = (c: ReadCase): boolean | null => (c.error !== null || c.latency.p99 === null ? null : c.latency.p99 <= targetOf(c));
const appName = (r: ReadsResult, app: ReadCase['app']): string => {
  const size = app === 'large' ? r.dataset.apps[0] : r.dataset.apps[1];
  return size ? `${int(size.events / 1_000_000)} M-event app` : `${app} app`;
};
const cpu = (r: ReadsResult): string => `${r.machine.cpuModel}, ${r.machine.cores} cores`;
const distributedOf = (r: ReadsResult): ReadsTarget | undefined => r.targets.find((t) => t.kind === 'distributed');
const DISTRIBUTED_LABEL = 'distributed (api + worker)';

/** One row per target and app: every request of the group must be within the target. */
export function readTargetRows(r: ReadsResult): string[][] {
  const t = distributedOf(r);
  const groups: Array<{ app: ReadCase['app']; list: boolean }> = [
    { app: 'large', list: true },
    { app: 'large', list: false },
    { app: 'small', list: true },
    { app: 'small', list: false },
  ];
  return groups.map(({ app, list }) => {
    const cases = (t?.cases ?? []).filter((c) => c.app === app && isListRead(c) === list);
    const limit = list ? TARGETS.readListP99Ms : TARGETS.readStatsP99Ms;
    const what = list ? 'GET …/events (a page of 25) and …/events/{eventId}' : 'GET …/stats/events and …/stats/top';
    const target = `${what} p99 ≤ ${int(limit)} ms, each of ${cases.length} requests on the ${appName(r, app)} (section "Reads at scale"; ${cpu(r)})`;
    if (!t || cases.length === 0) return [target, DISTRIBUTED_LABEL, 'not measured (see Problems)', verdict(null)];
    const missed = cases.filter((c) => met(c) !== true);
    const slowest = [...cases].sort((a, b) => (b.latency.p99 ?? Infinity) - (a.latency.p99 ?? Infinity))[0]!;
    const measured =
      missed.length === 0
        ? `all ${cases.length} within; slowest: ${slowest.label}, p99 ${ms(slowest.latency.p99)} ms`
        : `${cases.length - missed.length} of ${cases.length} within; over: ${missed.map((c) => `${c.label} (${c.error ?? `p99 ${ms(c.latency.p99)} ms`})`).join('; ')}`;
    return [target, `${t.label}, ${t.engine}`, measured, verdict(missed.length === 0)];
  });
}

function seedingTable(r: ReadsResult): string {
  const rows = r.targets.map((t) => {
    const s = t.seeding;
    return [
      `${t.label}, ${t.engine}`,
      int(s.rows),
      `${int(s.insertStatements)} in ${one(s.insertSeconds)} s (${int(s.rows / s.insertSeconds)} rows/s)`,
      `${int(s.compactedDays)} days${s.rolledUpDays === undefined ? '' : `, ${int(s.rolledUpDays)} rolled up`} in ${int(s.upkeepRounds)} rounds, ${one(s.compactSeconds)} s` +
        (s.settleSeconds === undefined ? '' : `; other merges done ${one(s.settleSeconds)} s later`),
      `${int(s.partitions)} days, today in ${int(s.partsToday)} parts`,
      `${one(s.bytes / 1024 ** 2)} MiB` + (s.customerIndexBytes === undefined ? '' : `, customer index ${one(s.customerIndexBytes / 1024 ** 2)} MiB`),
    ];
  });
  return table(['Mode', 'Events', 'INSERT … SELECT statements', 'Compaction by upkeep()', 'Partitions after', 'On disk (events table)'], rows);
}

/** The reads of the first mode measured (distributed, normally), each with its counterpart in the other mode. */
function casePairs(r: ReadsResult): Array<{ c: ReadCase; d: ReadCase | undefined; e: ReadCase | undefined }> {
  const distributed = distributedOf(r);
  const embedded = r.targets.find((t) => t.kind === 'embedded');
  const pair = (t: ReadsTarget | undefined, c: ReadCase): ReadCase | undefined => t?.cases.find((x) => x.app === c.app && x.label === c.label);
  return ((distributed ?? embedded)?.cases ?? []).map((c) => ({ c, d: pair(distributed, c), e: pair(embedded, c) }));
}

function latencyTable(r: ReadsResult): string {
  const figures = (c: ReadCase | undefined): string[] => {
    if (!c) return ['not measured', '', ''];
    if (c.error !== null) return [c.error, '', ''];
    return [ms(c.latency.p50), ms(c.latency.p99), ms(c.latency.max)];
  };
  const rows = casePairs(r).map(({ c, d, e }) => [
    appName(r, c.app),
    `${c.kind}: ${c.label}`,
    `≤ ${int(targetOf(c))}`,
    ...figures(d),
    d ? verdict(met(d)) : '',
    ...figures(e),
    (d ?? e)?.answer ?? '',
  ]);
  return table(['App', 'Read', 'Target p99 ms', 'distributed p50 ms', 'p99', 'max', 'Verdict', 'embedded (chDB) p50 ms', 'p99', 'max', 'Answer (distributed)'], rows);
}

/** Cores of a case's service processes (the target's roles), of ClickHouse, and of nothing named. */
function cpuCells(c: ReadCase | undefined, withClickHouse: boolean): string {
  const u = c?.cpu;
  if (!u) return '';
  const service = (u.cores.api ?? 0) + (u.cores.worker ?? 0) + (u.cores.service ?? 0);
  const named = Object.values(u.cores).reduce((sum, n) => sum + n, 0);
  const parts = [service, ...(withClickHouse ? [u.cores.clickhouse ?? 0] : []), Math.max(0, u.machine - named)];
  return parts.map((n) => n.toFixed(2)).join(' / ');
}

function costTable(r: ReadsResult): string {
  const rows = casePairs(r).map(({ c, d, e }) => {
    const cost = d?.cost;
    return [
      appName(r, c.app),
      `${c.kind}: ${c.label}`,
      cost ? one(cost.selects) : '',
      cost ? int(cost.marks) : '',
      cost ? one(cost.compressedBytes / 1024 ** 2) : '',
      cpuCells(d, true),
      cpuCells(e, false),
    ];
  });
  return table(
    ['App', 'Read', 'SELECTs per request', 'granules read', 'MiB read (compressed)', 'CPU cores, distributed: api + worker / ClickHouse / everything else', 'embedded: service / everything else'],
    rows,
  );
}

export function readsSection(r: ReadsResult): string {
  const a = r.dataset.apps;
  const large = a[0];
  const small = a[1];
  const codeChanged = r.code.end.srcDigest !== r.code.start.srcDigest;
  const first = r.targets[0]?.cases.find((c) => c.latency.samples > 0);
  const lines = [
    '## Reads at scale',
    '',
    `Measured by \`${r.command}\` from ${r.startedAt} to ${r.finishedAt} (UTC) on ${cpu(r)} (load average ${r.loadAverage.start.map((l) => l.toFixed(2)).join(' / ')} at the start), ` +
      `code at commit \`${r.code.start.commit}\`, src/ digest \`${r.code.start.srcDigest}\`${codeChanged ? ` → \`${r.code.end.srcDigest}\` (**src/ changed during the run**)` : ''} (bench/reads.ts).`,
    '',
    `The data: ${large ? `${int(large.events)} events in one app (about ${int(large.customers)} customers)` : ''}` +
      `${small ? ` and ${int(small.events)} in each of ${a.length - 1} others` : ''}, spread evenly over the ${r.dataset.days} days up to the start of seeding; ` +
      `${r.dataset.eventNames} event names, skewed (the commonest 29 % of the events, the twentieth, \`${r.dataset.type}\`, 1.35 %); levels info 80 %, warning 10 %, error 7 %, success 3 %; ` +
      'a customer id on 90 % of the events, skewed; data a JSON object of about 105 bytes (bench/reads-data.ts). ' +
      'Written straight into the service\'s events table with `INSERT … SELECT … FROM numbers(n)`, the same statements on both engines, a few days per statement and today in six per app; ' +
      "then the store's own `upkeep()` (what a worker runs every minute) compacted every past day into one part and rolled it up, as a running installation keeps them, while today stays in several. " +
      'The apps were made through the management API; the service ran with the default retention of 90 days.',
    '',
    seedingTable(r),
    '',
    `Each read: ${warmupWords(r)}, then ${first ? first.latency.samples : 'the'} measured ones, one at a time, over HTTP to the service ` +
      '(distributed: the api process), timed from the request to the end of the body. The list\'s page 20 is reached by following `nextCursor` 19 times, once; ' +
      `then the request with that cursor is timed again and again. Ranges end when the measurement of the mode started; ${r.dataset.type} and ${r.dataset.customer} are the filters of middling frequency ` +
      `(on the large app: ${matches(r)}). ${first ? percentileNote(first.latency.samples) : ''}`,
    '',
    latencyTable(r),
    '',
    'What each read cost. ClickHouse, per request in distributed mode: its server-wide counters (system.events) around the measured requests of the read, divided by their number: ' +
      'SELECT statements, the rows of the granules the primary key left to read (SelectedMarks × 8,192: an upper bound of the rows read) and the compressed bytes read from the columns\' files ' +
      '(ReadCompressedBytes, page cache included); other users of the same server would add to them, and chDB, inside the service, has no such counters here. ' +
      'CPU: cores busy on average during the measured requests (1.00 = one core throughout; the machine has two); "everything else" is what no process of the benchmark accounts for, other people\'s work included.',
    '',
    costTable(r),
    '',
  ];
  if (r.problems.length > 0) lines.push('Problems during the reads run:', '', ...r.problems.map((p) => `- ${p}`), '');
  return lines.join('\n');
}

function warmupWords(r: ReadsResult): string {
  const counts = r.targets.flatMap((t) => t.cases.map((c) => c.warmup));
  if (counts.length === 0) return 'unmeasured requests';
  const most = Math.max(...counts);
  const least = Math.min(...counts);
  return most === least ? `${most} unmeasured requests` : `${most} unmeasured requests (${least} for the slowest reads, whose warm-up stops after about 3 s)`;
}

/** Nearest-rank percentiles (bench/probe.ts): below 101 samples the p99 is the slowest one. */
function percentileNote(samples: number): string {
  return Math.ceil(0.99 * samples) === samples ? `With ${samples} samples the p99 (nearest rank) is the slowest of them, so it equals the max.` : '';
}

function matches(r: ReadsResult): string {
  const m = distributedOf(r)?.seeding.largeAppMatches ?? r.targets[0]?.seeding.largeAppMatches;
  if (!m) return 'not counted';
  return `level=error ${int(m.levelError)} events, type=${r.dataset.type} ${int(m.type)}, customer_id=${r.dataset.customer} ${int(m.customer)}`;
}
