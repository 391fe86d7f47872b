import type { Growth, SoakResults, SoakSample } from './soak-results.js';

/**
 * Renders bench/SOAK.md from one soak's results (bench/results/soak-latest.json) and nothing else,
 * and the figures table the soak prints at its end.
 */

const int = (n: number | null | undefined): string => (n === null || n === undefined ? 'n/a' : Math.round(n).toLocaleString('en-US'));
const mb = (bytes: number | null | undefined): string => (bytes === null || bytes === undefined ? 'n/a' : (bytes / 1024 / 1024).toFixed(0));
const ms = (n: number | null | undefined): string => (n === null || n === undefined ? 'n/a' : n < 10 ? n.toFixed(1) : int(n));
const pct = (n: number | null): string => (n === null ? 'n/a' : `${n >= 0 ? '+' : ''}${n.toFixed(1)} %`);
const pass = (ok: boolean): string => (ok ? '**pass**' : '**FAIL**');

function clock(seconds: number): string {
  const s = Math.round(Math.abs(seconds));
  const sign = seconds < 0 && s > 0 ? '-' : '';
  return `${sign}${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** One row per sample: the table the soak prints and SOAK.md's main table. */
export function figuresTable(samples: readonly SoakSample[]): string {
  const heap = (s: SoakSample, role: 'api' | 'worker'): string => `${mb(s.services[role].heapUsedBytes)} / ${mb(s.services[role].heapTotalBytes)}`;
  const lag = (n: number | null): string => (n === null ? 'n/a' : int(n));
  return table(
    ['sample', 't', 'events/s', 'latency p50 / p99 / max ms', 'api RSS', 'api heap used / total', 'worker RSS', 'worker heap used / total', 'Kafka', 'ClickHouse', 'Redis', 'PostgreSQL', 'lag worker / rules / delivery', 'errors load / service'],
    samples.map((s) => [
      s.label,
      clock(s.atSeconds),
      s.eventsPerSecond === null ? '' : int(s.eventsPerSecond),
      s.load?.latencyMs ? `${ms(s.load.latencyMs.p50)} / ${ms(s.load.latencyMs.p99)} / ${ms(s.load.latencyMs.max)}` : '',
      mb(s.services.api.rssBytes),
      heap(s, 'api'),
      mb(s.services.worker.rssBytes),
      heap(s, 'worker'),
      mb(s.stack.kafka),
      mb(s.stack.clickhouse),
      mb(s.stack.redis),
      mb(s.stack.postgresql),
      `${lag(s.lag.worker)} / ${lag(s.lag.rules)} / ${lag(s.lag.delivery)}`,
      `${int(s.loadErrors)} / ${int(s.serviceErrors)}`,
    ]),
  );
}

export function verdictLines(r: SoakResults): string[] {
  const v = r.verdicts;
  const lines = v.rss.map((g) => `- RSS of the ${g.name} process after warm-up → end of load: ${mb(g.fromBytes)} → ${mb(g.toBytes)} MB (${pct(g.percent)}; limit +${v.maxRssGrowthPercent} %): ${pass(g.pass)}`);
  const kinds = Object.entries(v.errors.byKind).map(([k, n]) => `${k} ${int(n)}`);
  lines.push(`- Errors during the soak: ${int(v.errors.total)}${kinds.length > 0 ? ` (${kinds.join(', ')})` : ''}: ${pass(v.errors.pass)}`);
  for (const [name, n] of Object.entries(v.errors.degradations)) {
    lines.push(`  - not counted as errors: ${name} ${int(n)} (requests accepted without a rate-limit check: Redis answered slower than the limiter's deadline, usually a saturated machine)`);
  }
  const drained = v.lag.drainedSeconds === null ? `not back to 0 within ${v.lag.timeoutSeconds} s` : `back to 0 ${v.lag.drainedSeconds.toFixed(1)} s after the load stopped`;
  lines.push(`- Consumer lag (worker ${int(v.lag.after.worker)}, rules ${int(v.lag.after.rules)}, delivery ${int(v.lag.after.delivery)} at the end): ${drained}: ${pass(v.lag.pass)}`);
  lines.push(`- Overall: ${v.pass ? '**pass**' : '**FAIL**'}`);
  return lines;
}

function growthTable(rows: readonly Growth[]): string {
  return table(
    ['', 'after warm-up MB', 'end of load MB', 'growth', 'trend MB/h (least squares; runs of 10 min or more)'],
    rows.map((g) => [g.name, mb(g.fromBytes), mb(g.toBytes), pct(g.percent), g.mbPerHour === null ? 'n/a' : g.mbPerHour.toFixed(1)]),
  );
}

export function renderSoak(r: SoakResults): string {
  const s = r.settings;
  const code = r.code.start;
  const changed = r.code.end.srcDigest !== code.srcDigest ? ' (src/ changed during the run: figures mix two versions)' : '';
  const lat = r.load.latencyMs;
  const sections: string[] = [
    '# Soak test',
    '',
    `Written by \`npm run soak\` (bench/soak.ts) from bench/results/soak-latest.json; do not edit by hand.`,
    '',
    `${r.startedAt} → ${r.finishedAt}; command \`${r.command}\`; commit ${code.commit}` +
      `${code.uncommittedSrcFiles > 0 ? ` with ${code.uncommittedSrcFiles} uncommitted file(s) under src/` : ''}, src digest ${code.srcDigest}${changed}.`,
    '',
    '## Verdict',
    '',
    ...verdictLines(r),
    ...(s.warmupSeconds < 60
      ? ['', `A run this short judges little: after a warm-up of ${s.warmupSeconds} s the processes' memory is still settling, so its growth is mostly that. Memory is judged on a run of 30 minutes or more.`]
      : []),
    '',
    '## What ran',
    '',
    `- One \`api\` and one \`worker\` process of the service (distributed mode) on the local stack, with their own`,
    `  PostgreSQL and ClickHouse databases and Kafka topic prefix; a webhook destination to a receiver in the soak's process.`,
    `- Requests of ${s.batchSize} events, ${s.matchingPerRequest} of which the notification rule matches (${s.rule}).`,
    r.capacity
      ? `- Capacity first: ${s.rampStepSeconds} s at each of ${s.rampConnections.join(', ')} connections (closed loop); capacity = the best end-to-end rate (accepted and stored) of a step with p99 < 1 s and no errors: **${int(r.capacity.eventsPerSecond)} events/s**.`
      : '- No capacity ramp: the rate was given with --rate.',
    `- Then ${s.minutes} min paced (open loop) at **${int(r.offered.eventsPerSecond)} events/s** (${r.offered.requestsPerSecond.toFixed(1)} requests/s); achieved ${int(r.achievedEventsPerSecond)} events/s.`,
    `  Latency is counted from each request's due time to the end of its answer: p50 ${ms(lat?.p50)}, p90 ${ms(lat?.p90)}, p99 ${ms(lat?.p99)}, p99.9 ${ms(lat?.p999)}, max ${ms(lat?.max)} ms over ${int(r.load.sent)} requests.`,
    `- Samples after a warm-up of ${s.warmupSeconds} s (a minute or a tenth of the run, the smaller), then every ${s.sampleEverySeconds} s, at the end of the load, and after the lag drained (bounded by ${s.drainTimeoutSeconds} s).`,
    `- Alerts: ${int(r.alerts.fired)} fired (the worker's count), ${int(r.alerts.delivered)} reached the receiver (${int(r.alerts.duplicates)} duplicates, ${int(r.alerts.unreadable)} unreadable).`,
    '',
    '## Figures',
    '',
    'Memory in MB. api and worker: RSS from /proc, heap from their /metrics. Kafka, ClickHouse, Redis: VmRSS of the server',
    'that listens on the stack\'s address; PostgreSQL: proportional set size (Pss) of the postmaster and every backend,',
    'summed. The stack\'s servers are shared with whatever else runs on the machine. events/s and latency are over the',
    'interval since the previous sample; errors are counted from the start of the paced load.',
    '',
    figuresTable(r.samples),
    '',
    '### Growth from after the warm-up to the end of the load',
    '',
    growthTable([...r.verdicts.rss.map((g) => ({ ...g, name: `${g.name} RSS` })), ...r.verdicts.heapUsed.map((g) => ({ ...g, name: `${g.name} heap used` })), ...r.verdicts.stack]),
  ];
  const withCpu = r.samples.filter((x) => x.cpu !== null);
  if (withCpu.length > 0) {
    const groups = Object.keys(withCpu[0]!.cpu!.cores);
    sections.push(
      '',
      '### CPU over each interval (cores)',
      '',
      `The machine's total includes everything else running on it; what the named processes do not account for is other work.`,
      '',
      table(
        ['sample', 't', ...groups, `machine (of ${r.machine.cores})`],
        withCpu.map((x) => [x.label, clock(x.atSeconds), ...groups.map((g) => (x.cpu!.cores[g] ?? 0).toFixed(2)), x.cpu!.machine.toFixed(2)]),
      ),
    );
  }
  if (r.capacity) {
    sections.push(
      '',
      '## Capacity ramp',
      '',
      table(
        ['connections', 'accepted events/s', 'p50 / p99 / max ms', 'non-202', 'drain s', 'end to end events/s', 'counts?'],
        r.capacity.steps.map((step) => [
          String(step.connections),
          int(step.eventsPerSecond),
          `${ms(step.latencyMs.p50)} / ${ms(step.latencyMs.p99)} / ${ms(step.latencyMs.max)}`,
          int(Object.values(step.non202).reduce((a, b) => a + b, 0)),
          step.drainSeconds === null ? 'n/a' : step.drainSeconds.toFixed(1),
          int(step.endToEndEventsPerSecond),
          step.disqualified ?? 'yes',
        ]),
      ),
    );
  }
  const m = r.machine;
  sections.push(
    '',
    '## Machine',
    '',
    `${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB; ${m.os}; ${Object.entries(m.versions).map(([k, val]) => `${k} ${val}`).join(', ')}.`,
    `Load average ${r.loadAverage.start.map((l) => l.toFixed(2)).join(' ')} at the start, ${r.loadAverage.end.map((l) => l.toFixed(2)).join(' ')} at the end.`,
  );
  if (r.problems.length > 0) sections.push('', '## Problems during the run', '', ...r.problems.map((p) => `- ${p}`));
  return `${sections.join('\n')}\n`;
}
