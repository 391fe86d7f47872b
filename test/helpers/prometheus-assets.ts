import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

/**
 * The Prometheus assets made from deploy/prometheus/alerts.yml, the one source of the alerting rules
 * (`npm run prometheus-rules` writes both; test/unit/ops-assets.test.ts fails when either is out of date):
 * - deploy/k8s/prometheusrule.yaml: the same groups in the Prometheus Operator's PrometheusRule;
 * - deploy/prometheus/alerts.test.yml: `promtool test rules` scenarios, one per alert in which it fires
 *   (and some in which it must not), and a healthy service on which none fires. promtool compares
 *   annotations verbatim, so the expected ones are those promtool itself renders from alerts.yml.
 */
export const ALERTS_FILE = 'deploy/prometheus/alerts.yml';
export const PROMETHEUS_RULE_FILE = 'deploy/k8s/prometheusrule.yaml';
export const ALERTS_TEST_FILE = 'deploy/prometheus/alerts.test.yml';
/** Debian's `prometheus` package puts it here; elsewhere it is looked up on the PATH. */
export const PROMTOOL = existsSync('/usr/bin/promtool') ? '/usr/bin/promtool' : 'promtool';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const RULE_HEADER = `# Made from ${ALERTS_FILE} by \`npm run prometheus-rules\`: edit that file, then run the command.
# For clusters with the Prometheus Operator (like podmonitor.yaml, not in kustomization.yaml: it needs the
# operator's CRDs). The operator loads it when its ruleSelector matches these labels; many installs
# select on a \`release\` label, so add yours in an overlay.
`;

const TEST_HEADER = `# Made from ${ALERTS_FILE} and test/helpers/prometheus-assets.ts by \`npm run prometheus-rules\`.
# Run with: promtool test rules ${ALERTS_TEST_FILE}
# One sample per minute; 'a+bxn' is n+1 samples from a, step b. Each alert has a scenario in which it
# fires; some have one in which it must not; the last test is a healthy service on which none fires.
`;

export function prometheusRuleYaml(alertsYaml: string): string {
  const { groups } = parse(alertsYaml) as { groups: unknown[] };
  const resource = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'event-alerting', labels: { 'app.kubernetes.io/name': 'event-alerting' } },
    spec: { groups },
  };
  return RULE_HEADER + stringify(resource, { lineWidth: 0 });
}

export function alertNamesOf(alertsYaml: string): string[] {
  const { groups } = parse(alertsYaml) as { groups: Array<{ rules: Array<{ alert?: string }> }> };
  return groups.flatMap((g) => g.rules.flatMap((r) => (r.alert === undefined ? [] : [r.alert])));
}

/**
 * alerts.test.yml for the rules in ALERTS_FILE. The annotations expected of each firing alert are read
 * from promtool's own report of a run without them (its "got" alerts, labels and annotations quoted as
 * Go strings).
 */
export function alertsTestYaml(): string {
  const rulesPath = path.join(ROOT, ALERTS_FILE);
  const tests = [...FIRING_SCENARIOS, healthyScenario(alertNamesOf(readFileSync(rulesPath, 'utf8')))];
  const rendered = renderedAnnotations(tests, rulesPath);
  const withAnnotations = tests.map((test) => ({
    ...test,
    alert_rule_test: test.alert_rule_test.map((check) => ({
      ...check,
      exp_alerts: check.exp_alerts.map(({ exp_labels }) => {
        const key = alertKey({ alertname: check.alertname, ...exp_labels });
        const annotations = rendered.get(key);
        if (annotations === undefined) throw new Error(`promtool did not report the alert ${key}: does it still fire in its scenario?`);
        return { exp_labels, exp_annotations: annotations };
      }),
    })),
  }));
  return TEST_HEADER + stringify({ rule_files: [path.basename(ALERTS_FILE)], evaluation_interval: '1m', tests: withAnnotations }, { lineWidth: 0 });
}

function alertKey(labels: Record<string, string>): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));
}

/** Each alert promtool reports firing in the tests (run without expected annotations): its annotations, by its labels. */
function renderedAnnotations(tests: readonly Scenario[], rulesPath: string): Map<string, Record<string, string>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'alerts-test-'));
  try {
    const file = path.join(dir, 'tests.yml');
    writeFileSync(file, stringify({ rule_files: [rulesPath], evaluation_interval: '1m', tests }));
    const run = spawnSync(PROMTOOL, ['test', 'rules', file], { encoding: 'utf8' });
    if (run.error) throw new Error(`promtool could not run (${run.error.message}): apt-get install -y --no-install-recommends prometheus`);
    const output = `${run.stdout}${run.stderr}`;
    const found = new Map<string, Record<string, string>>();
    const got = [...output.matchAll(/got:\[([\s\S]*?)\n\s*\]/g)].map((m) => m[1]!).join('\n');
    for (const [, labels, annotations] of got.matchAll(/Labels:(\{.*\})\n\s*Annotations:(\{.*\})/g)) {
      const key = alertKey(goLabels(labels!));
      const value = goLabels(annotations!);
      const known = found.get(key);
      if (known !== undefined && JSON.stringify(known) !== JSON.stringify(value)) throw new Error(`two renderings of the alert ${key}`);
      found.set(key, value);
    }
    return found;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `{a="x", b="y"}` as Go prints labels: names and Go-quoted values, whose escapes JSON reads alike. */
function goLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const [, name, quoted] of text.matchAll(/([A-Za-z_][A-Za-z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[name!] = JSON.parse(`"${quoted!}"`) as string;
  return labels;
}

// --- the scenarios ---

const api = { job: 'event-alerting-api', instance: 'api-1:3000' };
const worker = { job: 'event-alerting-worker', instance: 'worker-1:3000' };
const series = (name: string, labels: Record<string, string>, values: string) => ({
  series: `${name}{${Object.entries(labels).map(([k, v]) => `${k}="${v}"`).join(',')}}`,
  values,
});
const ingestRoute = { method: 'POST', route: '/v1/apps/{appId}/events' };

export interface Scenario {
  interval: string;
  input_series: Array<{ series: string; values: string }>;
  alert_rule_test: Array<{ eval_time: string; alertname: string; exp_alerts: Array<{ exp_labels: Record<string, string>; exp_annotations?: Record<string, string> }> }>;
}
const scenario = (input: Scenario['input_series'], evalTime: string, alertname: string, expected: Array<Record<string, string>>): Scenario => ({
  interval: '1m',
  input_series: input,
  alert_rule_test: [{ eval_time: evalTime, alertname, exp_alerts: expected.map((exp_labels) => ({ exp_labels })) }],
});

export const FIRING_SCENARIOS: readonly Scenario[] = [
  scenario([series('up', worker, '1 1 0x6'), series('up', api, '1x8')], '7m', 'EventAlertingTargetDown', [{ severity: 'critical', ...worker }]),
  scenario([series('up', api, '1x10')], '8m', 'EventAlertingTargetsMissing', [{ severity: 'critical', job: 'event-alerting-worker' }]),
  scenario(
    [series('eas_dependency_up', { ...api, dependency: 'redis' }, '1 0x6'), series('eas_dependency_up', { ...api, dependency: 'kafka' }, '1x7')],
    '5m',
    'EventAlertingDependencyDown',
    [{ severity: 'critical', ...api, dependency: 'redis' }],
  ),
  scenario(
    [series('eas_http_requests_total', { ...api, ...ingestRoute, status: '202' }, '0+90x20'), series('eas_http_requests_total', { ...api, ...ingestRoute, status: '503' }, '0+10x20')],
    '15m',
    'EventAlertingHighHttp5xxRate',
    [{ severity: 'critical', job: api.job }],
  ),
  // /readyz answering 503 is the dependency alert's business, not a 5xx rate of the API.
  scenario(
    [
      series('eas_http_requests_total', { ...api, ...ingestRoute, status: '202' }, '0+100x20'),
      series('eas_http_requests_total', { ...api, method: 'GET', route: '/readyz', status: '503' }, '0+100x20'),
    ],
    '15m',
    'EventAlertingHighHttp5xxRate',
    [],
  ),
  // A destination test answering 502 reports the customer's receiver failing, not the service.
  scenario(
    [
      series('eas_http_requests_total', { ...api, ...ingestRoute, status: '202' }, '0+10x20'),
      series('eas_http_requests_total', { ...api, method: 'POST', route: '/v1/apps/{appId}/destinations/{destinationId}/test', status: '502' }, '0+10x20'),
    ],
    '15m',
    'EventAlertingHighHttp5xxRate',
    [],
  ),
  scenario([series('eas_rate_limiter_failing_open', api, '0 0 1x6')], '6m', 'EventAlertingRateLimiterFailingOpen', [{ severity: 'warning', ...api }]),
  scenario(
    [
      series('eas_kafka_consumer_lag', { ...worker, topic: 'events', group: 'worker', partition: '0' }, '0+1000x40'),
      // A stale report of partition 0 from a worker that lost it in a rebalance: not counted twice.
      series('eas_kafka_consumer_lag', { ...worker, instance: 'worker-2:3000', topic: 'events', group: 'worker', partition: '0' }, '5000x40'),
      series('eas_kafka_consumer_lag', { ...worker, instance: 'worker-2:3000', topic: 'events', group: 'worker', partition: '1' }, '0+500x40'),
      // The other group on the topic keeps up: the alert names the group that lags.
      series('eas_kafka_consumer_lag', { ...worker, topic: 'events', group: 'rules', partition: '0' }, '0x40'),
    ],
    '30m',
    'EventAlertingConsumerLagGrowing',
    [{ severity: 'warning', topic: 'events', group: 'worker' }],
  ),
  // A large lag that is draining is not growing.
  scenario([series('eas_kafka_consumer_lag', { ...worker, topic: 'events', group: 'worker', partition: '0' }, '50000-1000x40')], '30m', 'EventAlertingConsumerLagGrowing', []),
  scenario(
    [series('eas_events_accepted_total', api, '0+10x40'), series('eas_clickhouse_insert_rows_total', worker, '100x40')],
    '25m',
    'EventAlertingPipelineStalled',
    [{ severity: 'critical' }],
  ),
  scenario([series('eas_clickhouse_insert_errors_total', worker, '0+1x20')], '10m', 'EventAlertingClickHouseInsertErrors', [{ severity: 'warning', ...worker }]),
  scenario([series('eas_event_upkeep_errors_total', worker, '0+1x70')], '65m', 'EventAlertingEventUpkeepFailing', [{ severity: 'warning', ...worker }]),
  // One failed round now and then (ClickHouse restarting) is not upkeep failing.
  scenario([series('eas_event_upkeep_errors_total', worker, '0 0 0 0 0 0 0 0 0 0 1x30 2x30')], '65m', 'EventAlertingEventUpkeepFailing', []),
  scenario([series('eas_kafka_produce_errors_total', { ...api, topic: 'events' }, '0+2x20')], '10m', 'EventAlertingKafkaProduceErrors', [
    { severity: 'critical', job: api.job, topic: 'events' },
  ]),
  scenario([series('eas_events_dead_lettered_total', worker, '0 0 1x10')], '5m', 'EventAlertingEventsDeadLettered', [{ severity: 'warning' }]),
  scenario(
    [
      series('eas_deliveries_total', { ...worker, channel: 'slack', outcome: 'retry' }, '0+6x60'),
      series('eas_deliveries_total', { ...worker, channel: 'slack', outcome: 'succeeded' }, '0+4x60'),
      series('eas_deliveries_total', { ...worker, channel: 'webhook', outcome: 'retry' }, '0+1x60'),
      series('eas_deliveries_total', { ...worker, channel: 'webhook', outcome: 'succeeded' }, '0+9x60'),
    ],
    '30m',
    'EventAlertingDeliveriesRetrying',
    [{ severity: 'warning', channel: 'slack' }],
  ),
  scenario(
    [
      series('eas_deliveries_total', { ...worker, channel: 'email', outcome: 'failed' }, '0+1x60'),
      series('eas_deliveries_total', { ...worker, channel: 'email', outcome: 'succeeded' }, '0+9x60'),
    ],
    '50m',
    'EventAlertingDeliveriesFailing',
    [{ severity: 'critical', channel: 'email' }],
  ),
];

/** Every metric at a healthy value for 40 minutes: none of the alerts may fire. */
export function healthyScenario(alertNames: readonly string[]): Scenario {
  const input = [
    series('up', api, '1x40'),
    series('up', worker, '1x40'),
    ...['kafka', 'clickhouse', 'redis', 'postgres'].map((dependency) => series('eas_dependency_up', { ...api, dependency }, '1x40')),
    series('eas_http_requests_total', { ...api, ...ingestRoute, status: '202' }, '0+100x40'),
    series('eas_http_requests_total', { ...api, ...ingestRoute, status: '500' }, '0+1x40'),
    series('eas_rate_limiter_failing_open', api, '0x40'),
    series('eas_kafka_consumer_lag', { ...worker, topic: 'events', group: 'worker', partition: '0' }, '200x40'),
    series('eas_events_accepted_total', api, '0+100x40'),
    series('eas_clickhouse_insert_rows_total', worker, '0+100x40'),
    series('eas_clickhouse_insert_errors_total', worker, '0x40'),
    series('eas_event_upkeep_errors_total', worker, '0x40'),
    series('eas_kafka_produce_errors_total', { ...api, topic: 'events' }, '0x40'),
    series('eas_events_dead_lettered_total', worker, '0x40'),
    series('eas_deliveries_total', { ...worker, channel: 'slack', outcome: 'succeeded' }, '0+10x40'),
    series('eas_deliveries_total', { ...worker, channel: 'slack', outcome: 'retry' }, '0+1x40'),
  ];
  return { interval: '1m', input_series: input, alert_rule_test: alertNames.map((alertname) => ({ eval_time: '40m', alertname, exp_alerts: [] })) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(path.join(ROOT, PROMETHEUS_RULE_FILE), prometheusRuleYaml(readFileSync(path.join(ROOT, ALERTS_FILE), 'utf8')));
  writeFileSync(path.join(ROOT, ALERTS_TEST_FILE), alertsTestYaml());
  console.log(`wrote ${PROMETHEUS_RULE_FILE} and ${ALERTS_TEST_FILE}`);
}
