import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse, type ScalarTag } from 'yaml';
import { envSchema, loadConfig } from '../../src/config.js';
import { IMAGE_ENTRYPOINT, NODE_OWN_VARIABLES, SERVICE_NODE_FLAGS, SERVICE_NODE_OPTIONS, WORKER_NODE_OPTIONS } from '../helpers/service-process.js';

/**
 * docker-compose.yml, docker-compose.cluster.yml and the Dockerfile cannot run on the CI machine (no
 * Docker engine), so this keeps them consistent with what the code actually reads and serves, and the
 * cluster's nodes and config files consistent with each other.
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

/** The configuration a role's environment gives, once every variable it sets is one the schema knows. */
function roleConfig(role: string, environment: Record<string, string | number> = {}) {
  // `${NAME:-default}` is the default when the operator passes nothing.
  const env = Object.fromEntries(
    Object.entries(environment)
      .filter(([k]) => !NODE_OWN_VARIABLES.includes(k))
      .map(([k, v]) => [k, String(v).replace(/\$\{[A-Z_]+:-(.*)\}/, '$1')]),
  );
  for (const name of Object.keys(env)) expect(Object.keys(envSchema.shape), `${role} sets ${name}`).toContain(name);
  return loadConfig({ ...env, ROLE: role });
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
    const config = roleConfig(role, service.environment);
    expect(config.mode).toBe('distributed');
    // The addresses must point at services that exist in the file.
    for (const address of [...config.distributed!.kafkaBrokers, ...config.distributed!.clickhouseUrls, config.distributed!.redisUrl, config.distributed!.databaseUrl]) {
      const host = /^(?:[a-z]+:\/\/)?(?:[^@/]*@)?([^:/]+)/.exec(address)?.[1];
      expect(Object.keys(services), `host of ${address}`).toContain(host);
    }
    expect(Object.keys(service.depends_on ?? {})).toEqual(expect.arrayContaining(['kafka', 'clickhouse', 'redis', 'postgres']));
  });

  it("runs the worker with the young generation the tests and the benchmarks give it, the api with the image's", () => {
    expect(services.worker?.environment?.NODE_OPTIONS).toBe(WORKER_NODE_OPTIONS.join(' '));
    expect(services.api?.environment?.NODE_OPTIONS).toBeUndefined();
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

/** Compose's `!reset` (its merge rules): the key leaves what the files before set. */
const RESET = Symbol('!reset');
const composeTags: ScalarTag[] = [{ tag: '!reset', resolve: () => RESET, identify: (value) => value === RESET }];

interface ClusterService {
  image?: string;
  restart?: string;
  profiles?: string[];
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  environment?: Record<string, string | number>;
  /** Both forms: a list of names, or names with their condition. */
  depends_on?: string[] | Record<string, { condition: string }>;
}

type Mapping = Record<string, unknown>;
const isMapping = (value: unknown): value is Mapping => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Compose's merge of an override into a service, as far as these files need it: mappings merge key by
 * key and `!reset` removes a key. Sequences are replaced, not appended; the override gives none to a
 * service the base file already has a sequence for.
 */
function mergeMapping(base: Mapping, override: Mapping): Mapping {
  const merged: Mapping = { ...base };
  for (const [key, value] of Object.entries(override)) {
    const before = merged[key];
    if (value === RESET) delete merged[key];
    else merged[key] = isMapping(value) && isMapping(before) ? mergeMapping(before, value) : value;
  }
  return merged;
}

interface XmlElement {
  readonly name: string;
  readonly attributes: Record<string, string>;
  readonly children: XmlElement[];
  text: string;
}

/**
 * Enough XML for the cluster's config files: elements, attributes and text; comments and the
 * declaration are skipped. Anything else, such as a stray `<` or an element left open, fails the test
 * instead of being read wrong.
 */
function parseXml(source: string): XmlElement {
  const document: XmlElement = { name: '', attributes: {}, children: [], text: '' };
  const open = [document];
  let end = 0;
  const token = /<!--[\s\S]*?-->|<\?[^>]*\?>|<(\/?)([\w.-]+)((?:\s+[\w.-]+="[^"]*")*)\s*(\/?)>|([^<]+)/gy;
  for (const match of source.matchAll(token)) {
    const [whole, closing, name, attributes, selfClosing, text] = match;
    end = match.index + whole.length;
    const current = open.at(-1)!;
    if (text !== undefined) current.text += text.trim();
    else if (name === undefined) continue;
    else if (closing) {
      if (current.name !== name) throw new Error(`</${name}> closes <${current.name}>`);
      open.pop();
    } else {
      const element: XmlElement = { name, attributes: Object.fromEntries([...attributes!.matchAll(/([\w.-]+)="([^"]*)"/g)].map(([, k, v]) => [k!, v!])), children: [], text: '' };
      current.children.push(element);
      if (!selfClosing) open.push(element);
    }
  }
  if (end !== source.length || open.length !== 1 || document.children.length !== 1) throw new Error(`not well-formed XML from character ${end}`);
  return document.children[0]!;
}

const childrenOf = (element: XmlElement, name: string) => element.children.filter((child) => child.name === name);
/** The one child of that name, along a path of names. */
const at = (element: XmlElement, ...path: string[]) =>
  path.reduce((parent, name) => {
    const found = childrenOf(parent, name);
    if (found.length !== 1) throw new Error(`<${parent.name}> has ${found.length} <${name}>, expected one`);
    return found[0]!;
  }, element);

/** `PLAINTEXT://:9092,CONTROLLER://:9093` as listener name → port. */
const listenerPorts = (listeners: string) => new Map([...listeners.matchAll(/(\w+):\/\/[^:,]*:(\d+)/g)].map(([, name, port]) => [name!, Number(port)]));

describe('docker-compose.cluster.yml', () => {
  const override = parse(read('docker-compose.cluster.yml'), { merge: true, customTags: composeTags }) as { services: Record<string, Mapping> };
  const base = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Mapping> };
  // What `docker compose -f docker-compose.yml -f docker-compose.cluster.yml` runs.
  const stack = Object.fromEntries(
    [...new Set([...Object.keys(base.services), ...Object.keys(override.services)])].map((name) => [
      name,
      mergeMapping(base.services[name] ?? {}, override.services[name] ?? {}) as ClusterService,
    ]),
  );
  const service = (name: string) => stack[name]!;
  const env = (name: string, variable: string) => String(service(name).environment?.[variable]);
  const running = Object.keys(stack).filter((name) => !service(name).profiles?.length);
  const withImage = (prefix: string) => running.filter((name) => service(name).image?.startsWith(prefix)).sort();
  const brokers = withImage('apache/kafka:');
  const nodes = withImage('clickhouse/clickhouse-server:');
  const keepers = withImage('clickhouse/clickhouse-keeper:');

  /** The files of this repository a service mounts, by their path in the container. */
  const mounted = (name: string) =>
    new Map(
      (service(name).volumes ?? [])
        .filter((volume) => volume.startsWith('./'))
        .map((volume) => {
          const [source, target] = volume.split(':');
          return [target!, source!.slice(2)];
        }),
    );
  /** A node's config.d/ files, parsed. */
  const nodeConfig = (node: string) =>
    [...mounted(node)].filter(([target]) => target.startsWith('/etc/clickhouse-server/config.d/')).map(([, source]) => parseXml(read(source)));
  /** The one section of that name among a node's config files (the server merges them). */
  const section = (node: string, name: string) => {
    const found = nodeConfig(node).flatMap((root) => childrenOf(root, name));
    expect(found, `<${name}> of ${node}`).toHaveLength(1);
    return found[0]!;
  };
  const keeperConfig = (keeper: string) => parseXml(read(mounted(keeper).get('/etc/clickhouse-keeper/keeper_config.xml')!));
  const remoteServers = (node: string) => {
    const clusters = section(node, 'remote_servers').children;
    expect(clusters, `clusters of ${node}`).toHaveLength(1);
    return clusters[0]!;
  };

  it('runs three brokers, three keepers and four ClickHouse nodes instead of the single Kafka and ClickHouse', () => {
    expect(brokers).toEqual(['kafka-1', 'kafka-2', 'kafka-3']);
    expect(keepers).toEqual(['keeper-1', 'keeper-2', 'keeper-3']);
    expect(nodes).toEqual(['clickhouse-1', 'clickhouse-2', 'clickhouse-3', 'clickhouse-4']);
    expect(service('kafka').profiles).toEqual(['single']);
    expect(service('clickhouse').profiles).toEqual(['single']);
    // Compose refuses to start a service that depends on one whose profile is off.
    for (const name of running) {
      const dependsOn = service(name).depends_on ?? [];
      expect(running, `dependencies of ${name}`).toEqual(expect.arrayContaining(Array.isArray(dependsOn) ? dependsOn : Object.keys(dependsOn)));
    }
    for (const role of ['api', 'worker']) {
      const dependsOn = service(role).depends_on as Record<string, { condition: string }>;
      for (const dependency of [...brokers, ...nodes]) expect(dependsOn[dependency]?.condition, `${role} on ${dependency}`).toBe('service_healthy');
    }
    // The same releases as the single stack; Keeper of the server's release.
    for (const broker of brokers) expect(service(broker).image).toBe(service('kafka').image);
    for (const node of nodes) expect(service(node).image).toBe(service('clickhouse').image);
    for (const keeper of keepers) expect(service(keeper).image).toBe(service('clickhouse').image!.replace('clickhouse-server', 'clickhouse-keeper'));
    for (const name of [...brokers, ...keepers, ...nodes]) {
      expect(service(name).restart, name).toBe('unless-stopped');
      expect(service(name).healthcheck?.test.length, name).toBeGreaterThan(0);
      expect(service(name).ports, name).toBeUndefined();
    }
  });

  it('forms one KRaft quorum of the three brokers, each a controller with its own volume', () => {
    const ids = brokers.map((broker) => Number(env(broker, 'KAFKA_NODE_ID')));
    expect(new Set(ids).size).toBe(brokers.length);
    const voters = brokers.map((broker) => env(broker, 'KAFKA_CONTROLLER_QUORUM_VOTERS'));
    expect(new Set(voters).size, 'every broker has the same voters').toBe(1);
    const quorum = voters[0]!.split(',').map((voter) => /^(\d+)@([^:]+):(\d+)$/.exec(voter)!);
    expect(quorum.map(([, id]) => Number(id)).sort()).toEqual([...ids].sort());
    for (const [, id, host, port] of quorum) {
      expect(env(host!, 'KAFKA_NODE_ID'), `voter ${id} is ${host}`).toBe(id);
      expect(env(host!, 'KAFKA_PROCESS_ROLES')).toBe('broker,controller');
      expect(listenerPorts(env(host!, 'KAFKA_LISTENERS')).get(env(host!, 'KAFKA_CONTROLLER_LISTENER_NAMES')), `controller port of ${host}`).toBe(Number(port));
    }
    expect(new Set(brokers.map((broker) => env(broker, 'CLUSTER_ID'))).size).toBe(1);
    const volumes = brokers.map((broker) => {
      const plaintext = listenerPorts(env(broker, 'KAFKA_LISTENERS')).get('PLAINTEXT');
      expect(env(broker, 'KAFKA_ADVERTISED_LISTENERS')).toBe(`PLAINTEXT://${broker}:${plaintext}`);
      const logs = service(broker).volumes?.find((volume) => volume.endsWith(`:${env(broker, 'KAFKA_LOG_DIRS')}`));
      expect(logs, `${broker} keeps its log directory on a volume`).toMatch(/^[a-z0-9-]+:/);
      return logs!.split(':')[0];
    });
    expect(new Set(volumes).size).toBe(brokers.length);
    // An acknowledged record is on two brokers, and every topic on all three.
    for (const broker of brokers) {
      expect(env(broker, 'KAFKA_DEFAULT_REPLICATION_FACTOR')).toBe(String(brokers.length));
      expect(env(broker, 'KAFKA_MIN_INSYNC_REPLICAS')).toBe('2');
      expect(env(broker, 'KAFKA_UNCLEAN_LEADER_ELECTION_ENABLE')).toBe('false');
      expect(env(broker, 'KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR')).toBe(String(brokers.length));
      expect(env(broker, 'KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR')).toBe(String(brokers.length));
    }
  });

  it('makes the four nodes two shards of two replicas: remote_servers names each once, its macros say which', () => {
    const cluster = remoteServers(nodes[0]!);
    for (const node of nodes) expect(remoteServers(node), `remote_servers of ${node}`).toEqual(cluster);
    const shards = childrenOf(cluster, 'shard');
    expect(shards.map((shard) => childrenOf(shard, 'replica').length)).toEqual([2, 2]);
    const macros = new Map(nodes.map((node) => [node, { shard: at(section(node, 'macros'), 'shard').text, replica: at(section(node, 'macros'), 'replica').text }]));
    expect(new Set([...macros.values()].map(({ shard, replica }) => `${shard}/${replica}`)).size).toBe(nodes.length);
    const hosts = shards.map((shard) => {
      expect(at(shard, 'internal_replication').text).toBe('true');
      const replicas = childrenOf(shard, 'replica');
      for (const replica of replicas) {
        const host = at(replica, 'host').text;
        expect(at(replica, 'port').text, `native port of ${host}`).toBe(section(host, 'tcp_port').text);
        expect(at(replica, 'user').text).toBe(env(host, 'CLICKHOUSE_USER'));
        expect(at(replica, 'password').text).toBe(env(host, 'CLICKHOUSE_PASSWORD'));
      }
      const names = replicas.map((replica) => at(replica, 'host').text);
      // The replicas of one shard share its macro and have their own.
      expect(new Set(names.map((name) => macros.get(name)?.shard)).size, `shard of ${names.join(', ')}`).toBe(1);
      expect(new Set(names.map((name) => macros.get(name)?.replica)).size).toBe(names.length);
      return names;
    });
    expect(hosts.flat().sort()).toEqual(nodes);
    expect(new Set(hosts.map((names) => macros.get(names[0]!)?.shard)).size, 'each shard its own macro').toBe(shards.length);
    for (const node of nodes) {
      expect(section(node, 'interserver_http_host').text).toBe(node);
      expect(at(section(node, 'distributed_ddl'), 'path').text).toBe('/clickhouse/task_queue/ddl');
    }
  });

  it('coordinates the nodes through three keepers that name each other', () => {
    const ids = keepers.map((keeper) => {
      expect(at(keeperConfig(keeper), 'keeper_server', 'server_id').attributes.from_env).toBe('KEEPER_SERVER_ID');
      return env(keeper, 'KEEPER_SERVER_ID');
    });
    expect(new Set(ids).size).toBe(keepers.length);
    for (const keeper of keepers) {
      const raft = childrenOf(at(keeperConfig(keeper), 'keeper_server', 'raft_configuration'), 'server');
      expect(raft.map((server) => at(server, 'id').text).sort(), `raft servers of ${keeper}`).toEqual([...ids].sort());
      for (const server of raft) expect(env(at(server, 'hostname').text, 'KEEPER_SERVER_ID'), `raft server ${at(server, 'id').text}`).toBe(at(server, 'id').text);
    }
    for (const node of nodes) {
      const zookeeper = childrenOf(section(node, 'zookeeper'), 'node');
      expect(zookeeper.map((keeper) => at(keeper, 'host').text).sort()).toEqual(keepers);
      for (const keeper of zookeeper) expect(at(keeper, 'port').text).toBe(at(keeperConfig(at(keeper, 'host').text), 'keeper_server', 'tcp_port').text);
    }
  });

  it.each(['api', 'worker'])('gives the %s role every broker, every node over HTTP and the cluster of remote_servers', (role) => {
    expect(env(role, 'KAFKA_BROKERS').split(',').sort()).toEqual(brokers.map((broker) => `${broker}:${listenerPorts(env(broker, 'KAFKA_LISTENERS')).get('PLAINTEXT')}`));
    const urls = env(role, 'CLICKHOUSE_URLS').split(',').map((url) => new URL(url));
    expect(urls.map((url) => url.hostname).sort()).toEqual(nodes);
    for (const url of urls) {
      expect(`${url.protocol}${url.port}`).toBe(`http:${section(url.hostname, 'http_port').text}`);
      expect(decodeURIComponent(url.username)).toBe(env(url.hostname, 'CLICKHOUSE_USER'));
      expect(decodeURIComponent(url.password)).toBe(env(url.hostname, 'CLICKHOUSE_PASSWORD'));
    }
    expect(env(role, 'CLICKHOUSE_CLUSTER')).toBe(remoteServers(nodes[0]!).name);
    // The single server's address is gone (the service refuses both), the rest of the base file's settings stay.
    expect(Object.keys(service(role).environment ?? {})).not.toContain('CLICKHOUSE_URL');
    expect(env(role, 'REDIS_URL')).toBe(String(services[role]?.environment?.REDIS_URL));
    const config = roleConfig(role, service(role).environment);
    expect(config.distributed?.clickhouseUrls).toHaveLength(nodes.length);
    expect(config.distributed?.clickhouseCluster).toBe(remoteServers(nodes[0]!).name);
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
    expect(dockerfile.split('\n')).toContain(IMAGE_ENTRYPOINT);
    expect(dockerfile).toMatch(/^CMD \["all"\]$/m);
    expect(dockerfile).toMatch(/^USER node$/m);
  });

  it('runs Node with the flags of `npm start` and of the tests', () => {
    const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toBe(`node ${SERVICE_NODE_FLAGS.join(' ')} dist/main.js`);
    expect(dockerfile).toMatch(new RegExp(`^\\s+NODE_OPTIONS=${SERVICE_NODE_OPTIONS.join(' ')}$`, 'm'));
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
