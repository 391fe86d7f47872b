import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { createClient } from '@clickhouse/client';
import { Redis } from 'ioredis';
import { queryServer } from '../test/helpers/postgres.js';
import type { MachineInfo } from './results.js';
import type { StackAddresses } from './stack.js';

/**
 * What the figures were measured on, read from the machine and the running servers at run time:
 * a report that names the wrong ClickHouse or Kafka version is worse than one that names none.
 * A version that cannot be read is reported as such, never guessed.
 */

const run = promisify(execFile);
const UNKNOWN = 'unknown';

async function attempt(read: () => Promise<string>): Promise<string> {
  try {
    return (await read()).trim() || UNKNOWN;
  } catch (err) {
    return `${UNKNOWN} (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`;
  }
}

export async function describeMachine(stack: StackAddresses, kafkaClasspath: string | null): Promise<MachineInfo> {
  const cpus = os.cpus();
  const versions: Record<string, string> = {
    node: process.version,
    java: await attempt(async () => {
      // `java -version` writes to stderr: openjdk version "17.0.15" 2025-04-15
      const { stderr } = await run('java', ['-version']);
      return stderr.split('\n')[0] ?? '';
    }),
    kafka: await attempt(() => Promise.resolve(kafkaVersion(kafkaClasspath))),
    clickhouse: await attempt(async () => {
      const client = createClient({ url: stack.clickhouseUrl });
      try {
        const rows = await (await client.query({ query: 'SELECT version() AS v', format: 'JSONEachRow' })).json<{ v: string }>();
        return rows[0]?.v ?? '';
      } finally {
        await client.close();
      }
    }),
    chdb: await attempt(async () => chdbVersion()),
    postgresql: await attempt(async () => {
      const rows = await queryServer<{ server_version: string }>(stack.databaseUrl, 'show server_version');
      return rows[0]?.server_version ?? '';
    }),
    redis: await attempt(async () => {
      const redis = new Redis(stack.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await redis.connect();
        return /redis_version:(\S+)/.exec(await redis.info('server'))?.[1] ?? '';
      } finally {
        redis.disconnect();
      }
    }),
  };
  return {
    cpuModel: cpus[0]?.model ?? UNKNOWN,
    cores: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
    os: `${os.type()} ${os.release()} (${osRelease()})`,
    versions,
  };
}

/** From the broker's jar name, kafka_2.13-<version>.jar, in the classpath folder the broker runs from. */
function kafkaVersion(classpath: string | null): string {
  if (!classpath) throw new Error('no running broker found');
  const dir = classpath.replace(/\/\*$/, '');
  const jar = readdirSync(dir).find((f) => /^kafka_[\d.]+-[\w.-]+\.jar$/.test(f));
  if (!jar) throw new Error(`no kafka_<scala>-<version>.jar in ${dir}`);
  return jar.replace(/^kafka_[\d.]+-/, '').replace(/\.jar$/, '');
}

/**
 * The chdb package's version and the engine it embeds, asked from the engine itself. In a child
 * process: loading chDB's native library into the benchmark process would only add to what competes
 * with the service for memory and cores.
 */
async function chdbVersion(): Promise<string> {
  const require = createRequire(import.meta.url);
  const entry = require.resolve('chdb');
  const manifest = JSON.parse(readFileSync(path.join(path.dirname(entry), 'package.json'), 'utf8')) as { version?: string };
  const { stdout } = await run(process.execPath, ['-e', `process.stdout.write(require(${JSON.stringify(entry)}).query('SELECT version()', 'TSV'))`]);
  return `${manifest.version ?? UNKNOWN} (engine ${stdout.trim()})`;
}

function osRelease(): string {
  try {
    return /^PRETTY_NAME="?([^"\n]+)"?/m.exec(readFileSync('/etc/os-release', 'utf8'))?.[1] ?? UNKNOWN;
  } catch {
    return UNKNOWN;
  }
}
