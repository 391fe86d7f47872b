import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { COMMANDS } from '../../src/cli/commands.js';
import { envSchema, loadConfig } from '../../src/config.js';
import { generateClientSecret } from '../../src/domain/credentials.js';
import { EVENT_PARTITIONS, topicsFor } from '../../src/domain/messages/topics.js';
import { IMAGE_ENTRYPOINT, NODE_OWN_VARIABLES, WORKER_NODE_OPTIONS } from '../helpers/service-process.js';
import { ALERTS_FILE, ALERTS_TEST_FILE, FIRING_SCENARIOS, PROMETHEUS_RULE_FILE, PROMTOOL, alertsTestYaml, prometheusRuleYaml } from '../helpers/prometheus-assets.js';

/**
 * The operator assets under deploy/ (Prometheus rules and config, Grafana dashboard, Kubernetes
 * manifests) cannot be exercised without a cluster, so this checks what can go wrong in them quietly:
 * promtool rejecting the rules or the config, an alert or panel on a metric the service does not export,
 * an alert that never fires, a manifest starting the wrong command or setting a variable the config
 * does not read. promtool is Debian's `prometheus` package; test/run-all.sh installs it when missing.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

// --- docs/metrics.md is the list of metric names, types and labels ---

interface DocumentedMetric {
  type: string;
  labels: string[];
}
const documented = new Map<string, DocumentedMetric>();
for (const match of read('docs/metrics.md').matchAll(/^\| `([a-z_:][a-z0-9_:]*)` \| (counter|gauge|histogram|summary) \|([^|]*)\|/gm)) {
  documented.set(match[1]!, { type: match[2]!, labels: [...match[3]!.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!) });
}
it('reads every row of the docs/metrics.md table', () => {
  expect(documented.size).toBe(read('docs/metrics.md').match(/^\| `[a-z]/gm)?.length);
});

/** Exported by prom-client's default collectors and by Prometheus itself, not listed in the docs. */
const isStandardMetric = (name: string) => name === 'up' || /^(process|nodejs)_[a-z0-9_]+$/.test(name);
/** A documented metric, or the series a documented histogram exposes. */
function documentedBase(name: string): string | undefined {
  if (documented.has(name)) return name;
  const base = name.replace(/_(bucket|sum|count)$/, '');
  return documented.get(base)?.type === 'histogram' ? base : undefined;
}
/** Labels an expression may use: the documented ones, plus those Prometheus or histograms add. */
const knownLabels = new Set([...[...documented.values()].flatMap((m) => m.labels), 'job', 'instance', 'le']);

const PROMQL_KEYWORDS = new Set(['and', 'or', 'unless', 'offset', 'bool', 'inf', 'nan']);

/** The metric and label names a PromQL expression uses (strings, ranges, Grafana variables ignored). */
function promqlNames(expr: string): { metrics: string[]; labels: string[] } {
  const labels: string[] = [];
  let s = expr.replace(/"(?:[^"\\]|\\.)*"/g, '""').replace(/label_values\(([^,]*),\s*([a-z_]+)\)/g, (_m, selector: string, label: string) => {
    labels.push(label);
    return selector;
  });
  s = s.replace(/\{([^}]*)\}/g, (_m, body: string) => {
    for (const matcher of body.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g)) labels.push(matcher[1]!);
    return ' ';
  });
  s = s.replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g, (_m, body: string) => {
    labels.push(...body.split(',').map((l) => l.trim()).filter(Boolean));
    return ' ';
  });
  s = s.replace(/\[[^\]]*\]/g, ' ').replace(/\$\{?\w+\}?/g, ' ');
  const metrics = [...s.matchAll(/(?<![\w.])[a-zA-Z_:][a-zA-Z0-9_:]*/g)]
    .filter((m) => !/^\s*\(/.test(s.slice(m.index + m[0].length)) && !PROMQL_KEYWORDS.has(m[0].toLowerCase()))
    .map((m) => m[0]);
  return { metrics, labels };
}

function expectKnownNames(expr: string, where: string): string[] {
  const { metrics, labels } = promqlNames(expr);
  expect(metrics.length, `${where}: no metric found in ${expr}`).toBeGreaterThan(0);
  for (const name of metrics) {
    expect(documentedBase(name) !== undefined || isStandardMetric(name), `${where}: ${name} is neither in docs/metrics.md nor standard`).toBe(true);
  }
  for (const label of labels) expect(knownLabels, `${where}: label ${label}`).toContain(label);
  return metrics.map((name) => documentedBase(name) ?? name);
}

// --- promtool ---


function promtool(...args: string[]): string {
  const run = spawnSync(PROMTOOL, args, { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  if (run.error) {
    throw new Error(`promtool could not run (${run.error.message}): apt-get install -y --no-install-recommends prometheus (test/run-all.sh does)`);
  }
  const output = `${run.stdout}${run.stderr}`;
  expect(run.status, `promtool ${args.join(' ')}\n${output}`).toBe(0);
  return output;
}


// --- deploy/prometheus ---

interface AlertRule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
const rulesFile = parse(read('deploy/prometheus/alerts.yml')) as { groups: Array<{ name: string; rules: AlertRule[] }> };
const alerts = rulesFile.groups.flatMap((g) => g.rules);
const alertNames = alerts.map((a) => a.alert!);

interface ComposeService {
  command?: string[];
  volumes?: string[];
  environment?: Record<string, string>;
  ports?: string[];
}
const services = (parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, ComposeService> }).services;

/** The host file behind a path inside a compose service's container, through its bind mounts. */
function hostPath(service: ComposeService, containerPath: string): string | undefined {
  for (const volume of service.volumes ?? []) {
    const [host, target] = volume.split(':') as [string, string];
    if (!host.startsWith('.')) continue;
    if (containerPath === target || containerPath.startsWith(`${target}/`)) return path.join(host, path.relative(target, containerPath));
  }
  return undefined;
}

// promtool is a separate (Go) program: its cold start alone can take seconds while the other suites run.
describe('deploy/prometheus', { timeout: 60_000 }, () => {
  it('passes promtool check rules', () => {
    expect(promtool('check', 'rules', 'deploy/prometheus/alerts.yml')).toContain(`SUCCESS: ${alerts.length} rules found`);
  });

  it('is the one source of the PrometheusRule for Kubernetes, which carries its groups unchanged', () => {
    expect(read(PROMETHEUS_RULE_FILE), `${PROMETHEUS_RULE_FILE} is out of date: npm run prometheus-rules`).toBe(prometheusRuleYaml(read(ALERTS_FILE)));
    const [resource] = parseAllDocuments(read(PROMETHEUS_RULE_FILE)).map((doc) => doc.toJS() as { kind: string; spec: { groups: unknown } });
    expect(resource?.kind).toBe('PrometheusRule');
    expect(resource?.spec.groups).toEqual(rulesFile.groups);
  });

  it('passes promtool check config, which loads alerts.yml through rule_files', () => {
    const output = promtool('check', 'config', 'deploy/prometheus/prometheus.yml');
    expect(output).toContain('SUCCESS: 1 rule files found');
    expect(output).toContain('Checking deploy/prometheus/alerts.yml');
  });

  it('is what the compose Prometheus loads: the config and its rule files are mounted where it reads them', () => {
    const prometheus = services.prometheus!;
    const configPath = prometheus.command!.find((a) => a.startsWith('--config.file='))!.split('=')[1]!;
    expect(hostPath(prometheus, configPath)).toBe('deploy/prometheus/prometheus.yml');
    const config = parse(read('deploy/prometheus/prometheus.yml')) as { rule_files: string[] };
    // promtool and Prometheus resolve rule_files against the config file's directory.
    const ruleFiles = config.rule_files.map((f) => hostPath(prometheus, path.posix.join(path.posix.dirname(configPath), f)));
    expect(ruleFiles).toEqual(['deploy/prometheus/alerts.yml']);
  });

  it('gives every alert a unique name, a for, a severity and runbook annotations', () => {
    expect(new Set(alertNames).size).toBe(alerts.length);
    for (const rule of alerts) {
      expect(rule.alert, 'only alerting rules').toMatch(/^EventAlerting[A-Za-z0-9]+$/);
      expect(rule.for, rule.alert).toMatch(/^\d+[smh]$/);
      expect(['critical', 'warning'], rule.alert).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary?.length, rule.alert).toBeGreaterThan(20);
      // The runbook: what is wrong and where to look.
      expect(rule.annotations?.description?.length, rule.alert).toBeGreaterThan(200);
    }
  });

  it('alerts only on documented or standard metrics and labels, and covers what ops asked for', () => {
    const used = new Set(alerts.flatMap((rule) => expectKnownNames(rule.expr, rule.alert!)));
    for (const name of [
      'up',
      'eas_dependency_up',
      'eas_http_requests_total',
      'eas_rate_limiter_failing_open',
      'eas_kafka_consumer_lag',
      'eas_deliveries_total',
      'eas_clickhouse_insert_errors_total',
      'eas_kafka_produce_errors_total',
    ]) {
      expect([...used], `an alert on ${name}`).toContain(name);
    }
  });

  it('fires each alert on the failure it describes and stays quiet on a healthy service (promtool test rules alerts.test.yml)', () => {
    expect(promtool('test', 'rules', ALERTS_TEST_FILE)).toContain('SUCCESS');
    expect(read(ALERTS_TEST_FILE), `${ALERTS_TEST_FILE} is out of date: npm run prometheus-rules`).toBe(alertsTestYaml());
    const fired = new Set(FIRING_SCENARIOS.flatMap((t) => t.alert_rule_test.filter((a) => a.exp_alerts.length > 0).map((a) => a.alertname)));
    expect([...fired].sort(), 'every alert has a scenario in which it fires').toEqual([...alertNames].sort());
});
});

// --- deploy/grafana ---

interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { type: string; uid: string };
  targets?: Array<{ expr: string; datasource?: { uid: string } }>;
  panels?: Panel[];
}
const dashboard = JSON.parse(read('deploy/grafana/event-alerting.json')) as {
  schemaVersion: number;
  uid: string;
  panels: Panel[];
  templating: { list: Array<{ name: string; type: string; query: string | { query: string } }> };
};
const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);

describe('deploy/grafana', () => {
  it('is a current dashboard whose panels all query the Prometheus picked in its datasource variable', () => {
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(39);
    const variable = dashboard.templating.list.find((v) => v.type === 'datasource');
    expect(variable?.query).toBe('prometheus');
    const uid = `\${${variable!.name}}`;
    expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length);
    for (const panel of panels.filter((p) => p.type !== 'row')) {
      expect(panel.datasource?.uid, panel.title).toBe(uid);
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets!) expect(target.datasource?.uid ?? uid, panel.title).toBe(uid);
      expect(panel.gridPos.x + panel.gridPos.w, panel.title).toBeLessThanOrEqual(24);
    }
  });

  it('queries only documented or standard metrics and labels, and shows every documented metric', () => {
    const used = new Set<string>();
    for (const panel of panels) for (const target of panel.targets ?? []) expectKnownNames(target.expr, panel.title).forEach((n) => used.add(n));
    for (const variable of dashboard.templating.list.filter((v) => v.type === 'query')) {
      expectKnownNames(typeof variable.query === 'string' ? variable.query : variable.query.query, `variable ${variable.name}`);
    }
    for (const name of documented.keys()) expect([...used], `a panel on ${name}`).toContain(name);
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes']) expect([...used]).toContain(name);
  });

  it('is provisioned in the compose Grafana from the files it mounts', () => {
    const grafana = services.grafana!;
    const provisioning = hostPath(grafana, '/etc/grafana/provisioning/dashboards')!;
    const [provider] = readdirSync(path.join(ROOT, provisioning)).map(
      (f) => (parse(read(path.join(provisioning, f))) as { providers: Array<{ options: { path: string } }> }).providers[0]!,
    );
    expect(hostPath(grafana, path.posix.join(provider!.options.path, 'event-alerting.json'))).toBe('deploy/grafana/event-alerting.json');
    const datasources = (parse(read(path.join(hostPath(grafana, '/etc/grafana/provisioning/datasources')!, 'prometheus.yml'))) as {
      datasources: Array<{ type: string; url: string }>;
    }).datasources;
    expect(datasources[0]?.type).toBe('prometheus');
    const { hostname, port } = new URL(datasources[0]!.url);
    expect(Object.keys(services)).toContain(hostname);
    // The container's side of the mapping: Grafana reaches Prometheus inside the compose network.
    expect(services[hostname]!.ports?.map((mapping) => mapping.split(':').at(-1))).toContain(port);
  });
});

// --- deploy/k8s ---

interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  ports?: Array<{ name: string; containerPort: number }>;
  env?: Array<{ name: string; value?: string }>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  readinessProbe?: { httpGet: { path: string; port: string | number } };
  livenessProbe?: { httpGet: { path: string; port: string | number } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean };
}
interface PodSpec {
  containers: Container[];
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
}
interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  spec?: {
    replicas?: number;
    selector?: { matchLabels: Record<string, string> } | Record<string, string>;
    ports?: Array<{ targetPort: string | number }>;
    template?: { metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> }; spec: PodSpec };
  };
}

const K8S = 'deploy/k8s';
const manifestsOf = (file: string) =>
  parseAllDocuments(read(path.join(K8S, file))).map((doc) => {
    expect(doc.errors, file).toEqual([]);
    return doc.toJS() as Manifest;
  });
const kustomization = parse(read(path.join(K8S, 'kustomization.yaml'))) as { resources: string[]; images: Array<{ name: string }> };
const applied = kustomization.resources.flatMap(manifestsOf);
const find = (kind: string, name: string) => applied.find((m) => m.kind === kind && m.metadata.name === name);
const configMap = find('ConfigMap', 'event-alerting')!;
const [secretExample] = manifestsOf('secret.example.yaml');
/** The example's values as an operator fills them in: its own bootstrap secret is public and refused. */
const filledInSecret = { ...secretExample!.stringData, BOOTSTRAP_CLIENT_SECRET: generateClientSecret() };

/** Manifests an operator adds when the cluster has what they need (CRDs, a Secret of their own). */
const OPT_IN = ['podmonitor.yaml', 'prometheusrule.yaml', 'secret.example.yaml', 'worker-scaledobject.yaml'];

describe('deploy/k8s', () => {
  it('lists every manifest in the kustomization, namespace-free, except the opt-in ones', () => {
    const files = readdirSync(path.join(ROOT, K8S)).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
    expect([...kustomization.resources, ...OPT_IN].sort()).toEqual(files.sort());
    for (const manifest of [...applied, ...OPT_IN.flatMap(manifestsOf)]) {
      expect(manifest.apiVersion, manifest.metadata.name).toBeTruthy();
      expect(manifest.metadata.namespace, `${manifest.kind} ${manifest.metadata.name}`).toBeUndefined();
    }
    expect(secretExample?.kind).toBe('Secret');
    expect(Object.values(secretExample!.stringData!).every((v) => v.includes('CHANGE-ME'))).toBe(true);
  });

  it('sets only variables the config reads, and a ConfigMap plus Secret that make a valid distributed config', () => {
    const names = [...Object.keys(configMap.data!), ...Object.keys(secretExample!.stringData!)];
    for (const workload of applied.filter((m) => m.spec?.template)) {
      for (const container of workload.spec!.template!.spec.containers) {
        names.push(...(container.env ?? []).map((e) => e.name));
        // Every env source is the ConfigMap or the Secret checked here.
        expect(container.envFrom, workload.metadata.name).toEqual([
          { configMapRef: { name: configMap.metadata.name } },
          { secretRef: { name: secretExample!.metadata.name } },
        ]);
        expect(container.image, 'the name kustomization.yaml images rewrites').toBe(kustomization.images[0]!.name);
      }
    }
    for (const name of names.filter((n) => !NODE_OWN_VARIABLES.includes(n))) expect(Object.keys(envSchema.shape), name).toContain(name);
    // Applied as it is, the example's bootstrap secret (public, in this repository) stops the service.
    expect(() => loadConfig({ ...configMap.data, ...secretExample!.stringData, ROLE: 'api' })).toThrow(/BOOTSTRAP_CLIENT_SECRET: this value is published/);
    const config = loadConfig({ ...configMap.data, ...filledInSecret, ROLE: 'api' });
    expect(config.mode).toBe('distributed');
  });

  it.each([
    ['event-alerting-api', 'api', 2],
    ['event-alerting-worker', 'worker', 2],
  ] as const)('runs %s as `node dist/main.js %s` with probes, graceful shutdown and a locked-down pod', (name, role, replicas) => {
    const deployment = find('Deployment', name)!;
    const pod = deployment.spec!.template!;
    const [container] = pod.spec.containers;
    // The image's ENTRYPOINT is `node [flags] dist/main.js`: the role is the only argument.
    expect(read('deploy/Dockerfile').split('\n')).toContain(IMAGE_ENTRYPOINT);
    expect(container!.command).toBeUndefined();
    expect(container!.args).toEqual([role]);
    expect(deployment.spec!.replicas).toBe(replicas);
    expect((deployment.spec!.selector as { matchLabels: Record<string, string> }).matchLabels).toEqual(
      expect.objectContaining({ 'app.kubernetes.io/component': role }),
    );

    const http = container!.ports!.find((p) => p.name === 'http')!;
    expect(http.containerPort).toBe(Number(configMap.data!.PORT));
    expect(container!.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(container!.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
    expect(pod.metadata?.annotations).toEqual({ 'prometheus.io/scrape': 'true', 'prometheus.io/port': String(http.containerPort), 'prometheus.io/path': '/metrics' });

    // Longer than the shutdown budget plus the API's 5 s preStop pause, or SIGKILL cuts the drain short.
    const shutdownMs = loadConfig({ ...configMap.data, ...filledInSecret }).shutdownTimeoutMs;
    expect(pod.spec.terminationGracePeriodSeconds! * 1000).toBeGreaterThan(shutdownMs + 5_000);
    expect(pod.spec.securityContext).toEqual(expect.objectContaining({ runAsNonRoot: true, runAsUser: 1000 }));
    expect(container!.securityContext).toEqual(expect.objectContaining({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false }));
    expect(container!.resources?.requests).toEqual(expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }));
    expect(container!.resources?.limits?.memory).toBeDefined();
    // The worker's young generation, as the tests and the benchmarks run it; the api keeps the image's.
    expect(container!.env?.find((e) => e.name === 'NODE_OPTIONS')?.value).toBe(role === 'worker' ? WORKER_NODE_OPTIONS.join(' ') : undefined);
  });

  it("scales the worker on its consumer lag with KEDA: the worker's groups and topics, the ConfigMap's brokers, one replica per partition at most", () => {
    const [scaledObject] = manifestsOf('worker-scaledobject.yaml') as unknown as Array<{
      kind: string;
      spec: { scaleTargetRef: { name: string }; minReplicaCount: number; maxReplicaCount: number; triggers: Array<{ type: string; metadata: Record<string, string> }> };
    }>;
    expect(scaledObject!.kind).toBe('ScaledObject');
    expect(find('Deployment', scaledObject!.spec.scaleTargetRef.name)?.spec?.template?.spec.containers[0]?.args).toEqual(['worker']);
    const topics = topicsFor(configMap.data!.KAFKA_TOPIC_PREFIX!);
    expect(scaledObject!.spec.triggers.map((t) => [t.type, t.metadata.topic, t.metadata.consumerGroup])).toEqual([
      ['kafka', topics.events, topics.workerGroup],
      ['kafka', topics.events, topics.rulesGroup],
      ['kafka', topics.deliveries, topics.deliveryGroup],
    ]);
    for (const trigger of scaledObject!.spec.triggers) {
      expect(trigger.metadata.bootstrapServers).toBe(configMap.data!.KAFKA_BROKERS);
      expect(Number(trigger.metadata.lagThreshold)).toBeGreaterThan(0);
    }
    // Both topics have EVENT_PARTITIONS partitions: a worker beyond that gets none.
    expect(scaledObject!.spec.maxReplicaCount).toBe(EVENT_PARTITIONS);
    expect(scaledObject!.spec.minReplicaCount).toBeGreaterThanOrEqual(2);
  });

  it('migrates with the operator CLI in a Job', () => {
    const job = find('Job', 'event-alerting-migrate')!;
    const [container] = job.spec!.template!.spec.containers;
    expect(container!.command).toEqual(['node', 'dist/cli.js']);
    expect(container!.args).toEqual(['migrate']);
    expect(COMMANDS.migrate).toBeDefined();
    // dist/cli.js is what the build makes of src/cli.ts, and the image carries dist/.
    expect(existsSync(path.join(ROOT, 'src/cli.ts'))).toBe(true);
    expect(read('deploy/Dockerfile')).toMatch(/^COPY --from=build \/app\/dist \.\/dist$/m);
  });

  it('routes the Service and the disruption budgets to the pods that exist', () => {
    const api = find('Deployment', 'event-alerting-api')!;
    const service = find('Service', 'event-alerting-api')!;
    const podLabels = api.spec!.template!.metadata!.labels!;
    expect(podLabels).toEqual(expect.objectContaining(service.spec!.selector as Record<string, string>));
    expect(service.spec!.ports![0]!.targetPort).toBe('http');
    for (const pdb of applied.filter((m) => m.kind === 'PodDisruptionBudget')) {
      const selector = (pdb.spec!.selector as { matchLabels: Record<string, string> }).matchLabels;
      const target = applied.find((m) => m.kind === 'Deployment' && Object.entries(selector).every(([k, v]) => m.spec!.template!.metadata!.labels![k] === v));
      expect(target, pdb.metadata.name).toBeDefined();
    }
  });
});
