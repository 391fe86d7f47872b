import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { envSchema, loadConfig } from '../../src/config.js';
import { SERVICE_NODE_FLAGS } from '../helpers/service-process.js';

/**
 * docker-compose.yml and the Dockerfile cannot run on the CI machine (no Docker engine), so this
 * keeps them consistent with what the code actually reads and serves.
 */
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

interface ComposeService {
  image?: string;
  restart?: string;
  expose?: string[];
  command?: string[];
  environment?: Record<string, string | number>;
  ports?: string[];
  depends_on?: Record<string, unknown>;
  build?: { context: string; dockerfile: string; target?: string };
}

const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, ComposeService> };
const services = compose.services;

describe('docker-compose.yml', () => {
  it('has the distributed stack, both roles, the proxy, Prometheus and Grafana', () => {
    expect(Object.keys(services).sort()).toEqual(['api', 'clickhouse', 'grafana', 'kafka', 'postgres', 'prometheus', 'proxy', 'redis', 'worker']);
    expect(services.kafka?.image).toMatch(/^apache\/kafka:3\.9\./);
    expect(services.kafka?.environment?.KAFKA_PROCESS_ROLES).toBe('broker,controller');
  });

  it.each(['api', 'worker'])('runs the %s role from the one image with a config the schema accepts', (role) => {
    const service = services[role]!;
    expect(service.command).toEqual([role]);
    const env = Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, String(v).replace(/\$\{[A-Z_]+:-(.*)\}/, '$1')]));
    for (const name of Object.keys(env)) expect(Object.keys(envSchema.shape), `${role} sets ${name}`).toContain(name);
    const config = loadConfig({ ...env, ROLE: role });
    expect(config.mode).toBe('distributed');
    // The addresses must point at services that exist in the file.
    for (const address of [...config.distributed!.kafkaBrokers, ...config.distributed!.clickhouseUrls, config.distributed!.redisUrl, config.distributed!.databaseUrl]) {
      const host = /^(?:[a-z]+:\/\/)?(?:[^@/]*@)?([^:/]+)/.exec(address)?.[1];
      expect(Object.keys(services), `host of ${address}`).toContain(host);
    }
    expect(Object.keys(service.depends_on ?? {})).toEqual(expect.arrayContaining(['kafka', 'clickhouse', 'redis', 'postgres']));
  });

  it('is safe to run as it is: restarts every service, publishes only the API on every interface, sets no client secret', () => {
    for (const [name, service] of Object.entries(services)) expect(service.restart, name).toBe('unless-stopped');
    const published = Object.entries(services).flatMap(([name, service]) => (service.ports ?? []).map((port) => `${name} ${port}`));
    expect(published.sort()).toEqual(['grafana 127.0.0.1:3001:3000', 'prometheus 127.0.0.1:9090:9090', 'proxy 3000:3000']);
    // Empty means unset: no value at all unless the operator passes one.
    expect(services.api?.environment?.BOOTSTRAP_CLIENT_SECRET).toBe('${BOOTSTRAP_CLIENT_SECRET:-}');
    expect(read('docker-compose.yml')).not.toMatch(/svc_cs_[A-Za-z0-9_-]/);
  });

  it('scales the API behind the proxy: no fixed host port, and the proxy finds every replica by name', () => {
    expect(services.api?.ports).toBeUndefined();
    expect(services.api?.expose).toEqual([String(services.api?.environment?.PORT)]);
    const caddyfile = read('deploy/caddy/Caddyfile');
    expect(caddyfile).toMatch(new RegExp(`^\\s*dynamic a api ${String(services.api?.environment?.PORT)} \\{$`, 'm'));
    expect(caddyfile).toMatch(/^:3000 \{$/m);
  });

  it('builds the api image from the Dockerfile that the worker reuses: the slim one, for distributed mode', () => {
    expect(services.api?.build?.dockerfile).toBe('deploy/Dockerfile');
    expect(services.api?.build?.target).toBe('slim');
    expect(services.worker?.image).toBe(services.api?.image);
  });

  it('lets Prometheus scrape both roles on the port they listen on', () => {
    const prometheus = parse(read('deploy/prometheus/prometheus.yml')) as {
      scrape_configs: Array<{ job_name: string; metrics_path: string; dns_sd_configs: Array<{ names: string[]; port: number }> }>;
    };
    for (const role of ['api', 'worker']) {
      const job = prometheus.scrape_configs.find((j) => j.dns_sd_configs[0]?.names.includes(role));
      expect(job?.metrics_path).toBe('/metrics');
      expect(job?.dns_sd_configs[0]?.port).toBe(Number(services[role]?.environment?.PORT));
    }
  });
});

describe('deploy/Dockerfile', () => {
  const dockerfile = read('deploy/Dockerfile');

  it('builds a full image by default and a slim one without chDB from the same runtime stage', () => {
    const stages = [...dockerfile.matchAll(/^FROM (\S+) AS (\S+)$/gm)].map(([, from, name]) => ({ from: from!, name: name! }));
    expect(stages.at(-1), 'the default target is the last stage').toEqual({ from: 'runtime', name: 'full' });
    expect(stages).toContainEqual({ from: 'runtime', name: 'slim' });
    const stage = (name: string) => dockerfile.slice(dockerfile.indexOf(`AS ${name}\n`)).split(/^FROM /m)[0]!;
    expect(stage('slim')).toMatch(/^COPY --from=slim-modules \/app\/node_modules \.\/node_modules$/m);
    expect(stage('full')).toMatch(/^COPY --from=build \/app\/node_modules \.\/node_modules$/m);
    expect(stage('slim-modules')).toMatch(/^RUN rm -rf node_modules\/chdb node_modules\/@chdb$/m);
    // chDB's engine is the package the slim image leaves out: every chdb package installed here is under those two paths.
    const pkg = JSON.parse(read('package.json')) as { dependencies: Record<string, string> };
    expect(Object.keys(pkg.dependencies).filter((d) => d.includes('chdb'))).toEqual(['chdb']);
    expect(stage('runtime')).not.toMatch(/node_modules/);
  });

  it('is multi-stage and runs the compiled entry point, role by command', () => {
    expect(dockerfile.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["node", "dist\/main\.js"\]$/m);
    expect(dockerfile).toMatch(/^CMD \["all"\]$/m);
    expect(dockerfile).toMatch(/^USER node$/m);
  });

  it('runs Node with the flags of `npm start` and of the tests', () => {
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toBe(`node ${SERVICE_NODE_FLAGS.join(' ')} dist/main.js`);
    expect(dockerfile).toMatch(new RegExp(`^\\s+NODE_OPTIONS=${SERVICE_NODE_FLAGS.join(' ')}$`, 'm'));
  });

  it('puts the operator CLI on the PATH as event-alerting, as the package names it', () => {
    const wrapper = /printf '([^']*)' > \/usr\/local\/bin\/event-alerting/.exec(dockerfile)?.[1];
    // printf turns the escapes into the script's lines.
    expect(wrapper?.replaceAll('\\n', '\n')).toBe('#!/bin/sh\nexec node /app/dist/cli.js "$@"\n');
    expect(dockerfile).toMatch(/chmod 755 \/usr\/local\/bin\/event-alerting/);
    expect(dockerfile).toMatch(/^WORKDIR \/app$/m);
    expect(dockerfile).toMatch(/^COPY --from=build \/app\/dist \.\/dist$/m);
    const pkg = JSON.parse(read('package.json')) as { bin: Record<string, string> };
    expect(pkg.bin).toEqual({ 'event-alerting': 'dist/cli.js', 'event-alerting-service': 'dist/main.js' });
    expect(read('docker-compose.yml')).toContain('docker compose exec api event-alerting create-account');
  });

  it('builds with the same build script the package defines', () => {
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(pkg.scripts.build).toContain('tsconfig.build.json');
    expect(dockerfile).toContain('npm run build');
  });
});
