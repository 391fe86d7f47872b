import type { CpuUsage } from './cpu.js';
import { TARGETS, cores, effectiveP99, int, ms, table, verdict } from './report-format.js';
import type { AbsenceLatency, AlertLatency, AlertLoad, AlertsResult, AlertThroughput, ThresholdLatency } from './results.js';

/**
 * The alert parts of bench/REPORT.md: their rows of the targets table and the "Alerts" section.
 * Results written before threshold and absence rules existed have none of those fields: their parts
 * are left out, as they were then.
 */

/** The alert rows of the targets table: the targets are for distributed mode, so embedded absence is not among them. */
export function alertTargetRows(a: AlertsResult): string[][] {
  const rows: string[][] = [];
  const p99 = effectiveP99(a.latency.probe);
  rows.push([
    `ingest→alert delivered p99 ≤ ${int(TARGETS.alertDeliveredP99Ms)} ms, under a steady load of ${int(loadEvents(a.latency.load))} events/s`,
    a.label,
    `${p99.text} ms (${a.latency.probe.samples} samples)`,
    verdict(p99.value === null ? null : p99.value <= TARGETS.alertDeliveredP99Ms),
  ]);
  const t = a.thresholdLatency;
  if (t !== undefined) {
    const tp99 = effectiveP99(t?.probe ?? null);
    rows.push([
      `ingest→alert delivered p99 ≤ ${int(TARGETS.thresholdAlertDeliveredP99Ms)} ms with ${t ? int(t.rules) : 'the'} enabled threshold rules on the load's app, from the ingest of the triggering event`,
      a.label,
      t ? `${tp99.text} ms (${t.probe.samples} samples)` : 'not measured (see Problems)',
      verdict(tp99.value === null ? null : tp99.value <= TARGETS.thresholdAlertDeliveredP99Ms),
    ]);
  }
  const absence = a.absence?.find((x) => x.label === a.label);
  if (absence) {
    rows.push([
      `absence alert delivered within ${int(TARGETS.absenceAfterDeadlineMaxMs)} ms of its deadline, every one of ${int(absence.rules)} rules`,
      a.label,
      `max ${latestText(absence)} ms (p99 ${ms(absence.lateness.p99)} ms)`,
      absenceVerdict(absence),
    ]);
  }
  return rows;
}

export function alertsSection(a: AlertsResult): string {
  const lines = [
    '## Alerts',
    '',
    `Measured in ${a.label} with OUTBOUND_ALLOW_PRIVATE=true (bench/alerts.ts). The app, a webhook destination and the rules are made through the public API; ` +
      'the destination is a node:http receiver in the benchmark process (bench/alert-receiver.ts) that answers 204 at once and notes when each alert arrived, ' +
      "by the event id in the body's `data.event.id` (arrival times are taken on the event loop the load generator shares, so they are late rather than early).",
    '',
    '### Ingest→alert delivered under load, one `every` rule',
    '',
    latencyPart(a.latency, `The probes' rule matches ${a.latency.rule}.`, TARGETS.alertDeliveredP99Ms, 'one marked event every'),
  ];
  if (a.thresholdLatency !== undefined) {
    lines.push(`### Ingest→alert delivered under load, ${a.thresholdLatency ? int(a.thresholdLatency.rules) : ''} threshold rules`, '');
    lines.push(a.thresholdLatency ? thresholdLatencyPart(a.thresholdLatency, a.latency) : 'Not measured in this run (see Problems).\n');
  }
  if (a.absence !== undefined) lines.push('### Absence rules: from the deadline to the alert', '', absencePart(a.absence));
  lines.push('### Throughput: every event a match', '');
  lines.push(a.throughput ? throughputPart('Every event an alert (`every` rule).', a.throughput) : '**Every event an alert:** not measured in this run (see Problems).\n');
  if (a.thresholdThroughput !== undefined) {
    lines.push(a.thresholdThroughput ? throughputPart('Every event a match of a threshold rule.', a.thresholdThroughput) : '**Threshold rule:** not measured in this run (see Problems).\n');
    if (a.throughput && a.thresholdThroughput) lines.push(throughputComparison(a.throughput, a.thresholdThroughput));
  }
  if (a.unreadableWebhooks > 0) lines.push(`The receiver got ${int(a.unreadableWebhooks)} request(s) whose body was not an alert.`, '');
  if (a.duplicateWebhooks > 0) lines.push(`The receiver got ${int(a.duplicateWebhooks)} alert(s) a second time (deliveries are at least once); every figure above counts each once.`, '');
  return lines.join('\n');
}

function latencyPart(l: AlertLatency, rules: string, targetMs: number, probeWords: string): string {
  const p = l.probe;
  const p99 = effectiveP99(p);
  return [
    rules,
    '',
    `The background load, autocannon at a fixed rate (each connection still waits for its answer), ${int(loadEvents(l.load))} events/s in all:`,
    '',
    alertLoadTable(l.load),
    '',
    `Meanwhile ${probeWords} ${l.probeIntervalMs} ms into the same app; a sample is the time from its 202 to its webhook reaching the receiver. ` +
      `A probe not delivered within ${int(l.probeTimeoutMs / 1000)} s timed out and counts as slower than every sample.`,
    '',
    table(
      ['Samples', 'Timed out', 'Not accepted', 'p50 ms', 'p99 ms', 'max ms', 'Target', 'Verdict'],
      [[int(p.samples), int(p.timedOut), int(p.notAccepted), ms(p.p50), p99.text, ms(p.max), `p99 ≤ ${int(targetMs)} ms`, verdict(p99.value === null ? null : p99.value <= targetMs)]],
    ),
    '',
    `CPU during the background load, in cores (${l.cpu.wallSeconds.toFixed(1)} s):`,
    '',
    cpuUsageTable(l.cpu),
    '',
  ].join('\n');
}

function thresholdLatencyPart(t: ThresholdLatency, every: AlertLatency): string {
  const n = t.trigger.count;
  const rules =
    `${int(t.rules)} enabled threshold rules (N = ${n}, the smallest the API allows, window ${t.trigger.windowSeconds} s, grouped by \`${t.trigger.groupBy}\`) on the app the load goes to. ` +
      `Each probe request carries ${n} events of a customer_id of its own, so the rule it names triggers on the request's last event, and the sample runs from the 202 of that ` +
      `${n === 2 ? 'second' : `${n}th`} event to its alert: the latency of the alert from the ingest of the event that triggered it. ` +
      `The probes take the rules in turn, so every rule triggers; the load's events are evaluated against all ${int(t.rules)} rules and meet none of their conditions, ` +
      'so the trigger state written is the probes\' (the cost of counting every event is in the threshold throughput below). ' +
      `The same load and probe cadence as with the one \`every\` rule above, whose p99 in this run was ${effectiveP99(every.probe).text} ms.`;
  return latencyPart(t, rules, TARGETS.thresholdAlertDeliveredP99Ms, `one probe request of ${n} events every`);
}

function absencePart(runs: readonly AbsenceLatency[]): string {
  const rows = runs.map((r) => [
    r.label,
    int(r.rules),
    int(r.windowSeconds),
    r.deadlineSpreadSeconds === null ? 'n/a' : r.deadlineSpreadSeconds.toFixed(1),
    `${int(r.lateness.samples)}${r.lateness.timedOut > 0 ? ` (${int(r.lateness.timedOut)} missing)` : ''}`,
    ms(r.lateness.p50),
    ms(r.lateness.p99),
    latestText(r),
    `max ≤ ${int(TARGETS.absenceAfterDeadlineMaxMs)} ms`,
    absenceVerdict(r),
  ]);
  const extra = runs.filter((r) => r.extraAlerts > 0).map((r) => `${r.label}: ${int(r.extraAlerts)} absence alert(s) beyond one per rule.`);
  const first = runs[0];
  return [
    first
      ? `${int(first.rules)} absence rules of ${int(first.windowSeconds)} s (the shortest window the API allows), created together through the API on an event name nothing sends, ` +
        'with no other traffic: every deadline passes a window after its rule was created, all within a moment of each other. ' +
        "A rule's sample is its alert's arrival at the receiver (wall clock) minus the deadline the alert reports (`data.event.timestamp`, stamped by the service on the same clock). " +
        `The API promises each alert within 2 s of its deadline, so the verdict is on the largest; a rule with no alert within ${int(first.timeoutMs / 1000)} s after the latest possible deadline is missing and fails it.`
      : 'Not measured in this run.',
    '',
    table(['Mode', 'Rules', 'Window s', 'Deadlines spread over s', 'Alerts arrived', 'p50 ms', 'p99 ms', 'max ms', 'Target', 'Verdict'], rows),
    '',
    ...(extra.length > 0 ? [extra.join(' '), ''] : []),
  ].join('\n');
}

function absenceVerdict(r: AbsenceLatency): string {
  if (r.lateness.samples === 0 && r.lateness.timedOut === 0) return verdict(null);
  return verdict(r.lateness.timedOut === 0 && r.lateness.max !== null && r.lateness.max <= TARGETS.absenceAfterDeadlineMaxMs);
}

const latestText = (r: AbsenceLatency): string => (r.lateness.timedOut > 0 ? `> ${ms(r.lateness.max)} (${int(r.lateness.timedOut)} missing)` : ms(r.lateness.max));

/** Alerts the load's matches should make (older results: one per match). */
const expectedAlerts = (t: AlertThroughput): number => t.expectedAlerts ?? t.matchingEvents;

/** The capacity figure: the drain rate of the backlog; older results had only the delivery rate. */
const capacity = (t: AlertThroughput): number | null => (t.drainAlertsPerSecond === undefined ? t.alertsPerSecond : t.drainAlertsPerSecond);

function throughputPart(title: string, t: AlertThroughput): string {
  const expected = expectedAlerts(t);
  const undelivered = expected - t.delivered;
  const load =
    t.backlog === undefined
      ? 'The load offered a fixed rate; the delivery rate is alerts delivered ÷ the time from the first to the last of them, so it is the capacity only when the load offered more.'
      : `The load was a burst of the events of ${int(expected)} alerts, sent as fast as the edge took them; ` +
        `${int(t.backlog)} alerts (${expected > 0 ? Math.round((100 * t.backlog) / expected) : 0} %) were still to come when its last request was answered. ` +
        'Capacity: the alerts delivered after the burst ÷ the time from its end to the last alert, a backlog worked off with nothing more offered.';
  return [
    `**${title}** A rule of its own: ${t.rule}. The load:`,
    '',
    alertLoadTable([t.load]),
    '',
    table(
      ['Matching events', 'Alerts expected', 'Alerts delivered', 'of them during the load', 'First alert after s', 'Drained after the load, s', 'Capacity, alerts/s', 'End to end, alerts/s'],
      [[
        int(t.matchingEvents),
        int(expected),
        int(t.delivered),
        int(t.deliveredDuringLoad),
        t.firstAlertSeconds === null ? 'n/a' : t.firstAlertSeconds.toFixed(1),
        t.drainSeconds === null ? `not within ${int(t.drainTimeoutSeconds)}` : t.drainSeconds.toFixed(1),
        int(capacity(t)),
        int(t.endToEndAlertsPerSecond),
      ]],
    ),
    '',
    `${load} End to end: alerts expected ÷ the time from the start of the load until the last alert, when all arrived.` +
      (undelivered > 0 ? ` ${int(undelivered)} alerts were still undelivered when the benchmark stopped waiting.` : ''),
    '',
    `CPU from the start of the load until the last alert (or the drain timeout), ${t.cpu.wallSeconds.toFixed(1)} s; the second row is CPU time per delivered alert:`,
    '',
    cpuUsageTable(t.cpu, { count: t.delivered, unit: 'alert' }),
    '',
  ].join('\n');
}

/** The two capacity measurements side by side: the same backlog of alerts, N times the events for the threshold. */
function throughputComparison(every: AlertThroughput, threshold: AlertThroughput): string {
  const row = (name: string, t: AlertThroughput): string[] => {
    const expected = expectedAlerts(t);
    const perAlert = (c: number): string => (t.delivered > 0 ? ((c * t.cpu.wallSeconds * 1000) / t.delivered).toFixed(2) : 'n/a');
    const groups = Object.entries(t.cpu.cores);
    const named = groups.reduce((sum, [, c]) => sum + c, 0);
    const served = groups.reduce((sum, [group, c]) => (group.startsWith('load generator') ? sum : sum + c), 0);
    return [
      name,
      int(t.load.eventsPerSecond),
      expected > 0 ? (t.matchingEvents / expected).toFixed(0) : 'n/a',
      int(capacity(t)),
      int(t.endToEndAlertsPerSecond),
      perAlert(t.cpu.cores.worker ?? 0),
      perAlert(served),
      cores(Math.max(0, t.cpu.machine - named)),
    ];
  };
  return [
    'Side by side (the same run, the same number of alerts owed):',
    '',
    table(
      ['Rule', 'Matching events/s accepted', 'Matches per alert', 'Capacity, alerts/s', 'End to end, alerts/s', 'worker CPU per alert, ms', 'service and stack CPU per alert, ms', '"everything else", cores'],
      [row('`every`', every), row('threshold', threshold)],
    ),
    '',
    'The API allows no threshold below N = 2, so a threshold rule cannot alert on every event: its figure is in alerts per second, ' +
      'each alert being the end of N matches, all of them counted in the trigger state. Service and stack: every process group of the CPU tables but the ' +
      'load generator; "everything else" is CPU no named process accounts for (other users of the machine), which slows both figures when it is large.',
    '',
  ].join('\n');
}

const loadEvents = (loads: readonly AlertLoad[]): number => loads.reduce((sum, l) => sum + l.eventsPerSecond, 0);

function alertLoadTable(loads: readonly AlertLoad[]): string {
  const rows = loads.map((l) => {
    const non202 = l.non202Total === 0 ? '0' : `${int(l.non202Total)} (${Object.entries(l.non202).map(([k, v]) => `${k}: ${int(v)}`).join(', ')})`;
    return [l.shape, String(l.connections), int(l.requestsPerSecondLimit), int(l.requestsPerSecond), int(l.eventsPerSecond), ms(l.latency.p50), ms(l.latency.p99), non202];
  });
  return table(['Shape', 'Conns', 'req/s asked', 'req/s', 'events/s', 'p50 ms', 'p99 ms', 'non-202'], rows);
}

/** One CPU measurement as a table; with `per`, also the CPU time of each part per unit of work, in ms. */
function cpuUsageTable(cpu: CpuUsage, per?: { count: number; unit: string }): string {
  const groups = Object.keys(cpu.cores);
  const named = groups.reduce((sum, g) => sum + (cpu.cores[g] ?? 0), 0);
  const rows = [['cores', ...groups.map((g) => cores(cpu.cores[g])), cores(Math.max(0, cpu.machine - named)), cores(cpu.machine)]];
  if (per && per.count > 0) {
    const msPer = (c: number): string => ((c * cpu.wallSeconds * 1000) / per.count).toFixed(2);
    rows.push([`ms per ${per.unit}`, ...groups.map((g) => msPer(cpu.cores[g] ?? 0)), '', msPer(cpu.machine)]);
  }
  return table(['', ...groups, 'everything else', 'whole machine'], rows);
}
