import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

/**
 * deploy/k8s/prometheusrule.yaml is made from deploy/prometheus/alerts.yml, the one source of the
 * alerting rules: the same groups, wrapped in the Prometheus Operator's PrometheusRule resource.
 * `npm run prometheus-rule` writes it; test/unit/ops-assets.test.ts fails when it is out of date.
 */
export const ALERTS_FILE = 'deploy/prometheus/alerts.yml';
export const PROMETHEUS_RULE_FILE = 'deploy/k8s/prometheusrule.yaml';

const HEADER = `# Made from ${ALERTS_FILE} by \`npm run prometheus-rule\`: edit that file, then run the command.
# For clusters with the Prometheus Operator (like podmonitor.yaml, not in kustomization.yaml: it needs the
# operator's CRDs). The operator loads it when its ruleSelector matches these labels; many installs
# select on a \`release\` label, so add yours in an overlay.
`;

export function prometheusRuleYaml(alertsYaml: string): string {
  const { groups } = parse(alertsYaml) as { groups: unknown[] };
  const resource = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'event-alerting', labels: { 'app.kubernetes.io/name': 'event-alerting' } },
    spec: { groups },
  };
  return HEADER + stringify(resource, { lineWidth: 0 });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(PROMETHEUS_RULE_FILE, prometheusRuleYaml(readFileSync(ALERTS_FILE, 'utf8')));
  console.log(`wrote ${PROMETHEUS_RULE_FILE}`);
}
