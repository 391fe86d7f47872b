import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { KafkaBus } from '../src/adapters/bus/kafka-bus.js';
import { positiveWhole } from './cli-options.js';
import { eventMessageBytes } from './events.js';
import { createBenchTopic, deleteBenchTopics, stackUp } from './stack.js';
import { median } from './statistics.js';
import { uniqueName } from '../test/helpers/stack-env.js';

/**
 * The edge's produce calls through kafkajs (the service's own bus, as the api uses it) and through
 * another maintained Kafka client, side by side: `@platformatic/kafka`, pure JavaScript, which needs
 * Node 22.22 or 24.6 and later, so it is not a dependency of the service (which supports Node 20.19).
 * Install it anywhere and name its directory:
 *
 *   mkdir -p /tmp/kc && (cd /tmp/kc && npm init -y && npm i @platformatic/kafka@2)
 *   npm run bench:kafka-clients -- --platformatic /tmp/kc/node_modules/@platformatic/kafka
 *
 * Each measurement is a child process of its own that connects one idempotent producer (acks=-1, as
 * the edge's), warms it up, then sends `--calls` produce calls one after the other, each one record
 * of a size the edge sends: one event (a lone request), 63 events (a produce call of the single-event
 * step at 128 connections) and about 1 MiB (the largest call the edge makes). It prints the process's
 * CPU time and the wall time per call. The two clients take turns, `--rounds` times, and the medians
 * and the median ratio of the pairs are printed and written to bench/results/kafka-clients-latest.json.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);
const CLIENTS = ['kafkajs', 'platformatic'] as const;
type Client = (typeof CLIENTS)[number];
const WARMUP_CALLS = 200;
/** A client that stops answering fails the bench instead of hanging it. */
const CHILD_TIMEOUT_MS = 300_000;

const { values: options } = parseArgs({
  options: {
    platformatic: { type: 'string' },
    calls: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '6' },
    child: { type: 'string' },
    brokers: { type: 'string' },
    topic: { type: 'string' },
    bytes: { type: 'string' },
  },
});

interface Measurement {
  readonly cpuMicrosPerCall: number;
  readonly wallMicrosPerCall: number;
}

/** The one call the two clients are compared on, behind the same signature. */
type Send = (value: Buffer) => Promise<void>;

interface Producer {
  readonly send: Send;
  close(): Promise<void>;
}

function kafkajsProducer(brokers: string[], topic: string, key: string): Producer {
  const bus = new KafkaBus({ brokers, clientId: 'bench-kafka-clients', fetch: { minBytes: 1, maxWaitMs: 100 } });
  return {
    send: (value) => bus.produce(topic, [{ key, value }]),
    close: () => bus.close(),
  };
}

/** The subset of @platformatic/kafka's Producer this bench uses. */
interface PlatformaticModule {
  Producer: new (options: Record<string, unknown>) => {
    send(options: { messages: Array<{ topic: string; key: Buffer; value: Buffer }>; acks: number }): Promise<unknown>;
    close(): Promise<void>;
  };
}

async function platformaticProducer(directory: string, brokers: string[], topic: string, key: string): Promise<Producer> {
  const entry = pathToFileURL(path.join(directory, 'dist', 'index.js')).href;
  const { Producer } = (await import(entry)) as PlatformaticModule;
  const producer = new Producer({ clientId: 'bench-kafka-clients', bootstrapBrokers: brokers, idempotent: true, acks: -1 });
  // Without serializers it takes keys and values as bytes, as kafkajs turns them into.
  const keyBytes = Buffer.from(key);
  return {
    send: async (value) => {
      await producer.send({ messages: [{ topic, key: keyBytes, value }], acks: -1 });
    },
    close: () => producer.close(),
  };
}

async function child(client: Client): Promise<void> {
  const brokers = (options.brokers ?? '').split(',');
  const topic = options.topic ?? '';
  const value = Buffer.alloc(positiveWhole('bytes', options.bytes ?? ''), 'x');
  const calls = positiveWhole('calls', options.calls);
  const key = randomUUID();
  const producer = client === 'kafkajs' ? kafkajsProducer(brokers, topic, key) : await platformaticProducer(options.platformatic ?? '', brokers, topic, key);
  try {
    for (let i = 0; i < WARMUP_CALLS; i++) await producer.send(value);
    const cpu = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < calls; i++) await producer.send(value);
    const wall = (performance.now() - started) * 1000;
    const used = process.cpuUsage(cpu);
    const measured: Measurement = { cpuMicrosPerCall: (used.user + used.system) / calls, wallMicrosPerCall: wall / calls };
    process.stdout.write(`${JSON.stringify(measured)}\n`);
  } finally {
    await producer.close();
  }
}

async function measureIn(client: Client, brokers: string[], topic: string, bytes: number): Promise<Measurement> {
  const args = ['--import', 'tsx', 'bench/kafka-clients.ts', '--child', client, '--brokers', brokers.join(','), '--topic', topic, '--bytes', String(bytes), '--calls', options.calls];
  if (options.platformatic) args.push('--platformatic', options.platformatic);
  const { stdout } = await run(process.execPath, args, { cwd: ROOT, maxBuffer: 1024 * 1024, timeout: CHILD_TIMEOUT_MS });
  const last = stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(last) as Measurement;
}

const round1 = (n: number): number => Math.round(n * 10) / 10;

async function main(): Promise<void> {
  if (!options.platformatic) throw new Error('--platformatic DIR: the directory of an installed @platformatic/kafka (see the comment at the top of bench/kafka-clients.ts)');
  const rounds = positiveWhole('rounds', options.rounds);
  const stack = await stackUp();
  // A topic of the benchmark's own (one partition, as one app's events), deleted at the end.
  const prefix = `${uniqueName('bench')}.`;
  const topic = `${prefix}kafka-clients`;
  await createBenchTopic(stack.kafkaBrokers, topic, 1);
  try {
    await compare(stack.kafkaBrokers, topic, rounds);
  } finally {
    await deleteBenchTopics(stack.kafkaBrokers, prefix);
  }
}

async function compare(brokers: string[], topic: string, rounds: number): Promise<void> {
  const event = eventMessageBytes();
  const sizes = [
    { name: 'one event', bytes: event },
    { name: '63 events', bytes: 63 * event },
    { name: 'about 1 MiB', bytes: Math.floor((1024 * 1024) / event) * event },
  ];
  const results = [];
  console.log(`[kafka-clients] Node ${process.version}, ${options.calls} calls per measurement, ${rounds} rounds, topic ${topic}`);
  for (const size of sizes) {
    const samples: Record<Client, Measurement[]> = { kafkajs: [], platformatic: [] };
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? CLIENTS : [...CLIENTS].reverse();
      for (const client of order) samples[client].push(await measureIn(client, brokers, topic, size.bytes));
      const last = (client: Client): Measurement => samples[client].at(-1)!;
      console.log(`[kafka-clients] ${size.name} (${size.bytes} B) round ${round + 1}: kafkajs ${round1(last('kafkajs').cpuMicrosPerCall)} µs CPU, ${round1(last('kafkajs').wallMicrosPerCall)} µs wall · platformatic ${round1(last('platformatic').cpuMicrosPerCall)} µs CPU, ${round1(last('platformatic').wallMicrosPerCall)} µs wall`);
    }
    const ratios = samples.platformatic.map((p, i) => p.cpuMicrosPerCall / samples.kafkajs[i]!.cpuMicrosPerCall);
    const wallRatios = samples.platformatic.map((p, i) => p.wallMicrosPerCall / samples.kafkajs[i]!.wallMicrosPerCall);
    const summary = {
      size: size.name,
      bytes: size.bytes,
      kafkajs: { cpuMicrosPerCall: round1(median(samples.kafkajs.map((s) => s.cpuMicrosPerCall))), wallMicrosPerCall: round1(median(samples.kafkajs.map((s) => s.wallMicrosPerCall))) },
      platformatic: { cpuMicrosPerCall: round1(median(samples.platformatic.map((s) => s.cpuMicrosPerCall))), wallMicrosPerCall: round1(median(samples.platformatic.map((s) => s.wallMicrosPerCall))) },
      medianCpuRatio: Math.round(median(ratios) * 1000) / 1000,
      medianWallRatio: Math.round(median(wallRatios) * 1000) / 1000,
      platformaticCheaperRounds: ratios.filter((r) => r < 1).length,
    };
    results.push(summary);
    console.log(`[kafka-clients] ${size.name}: CPU per call kafkajs ${summary.kafkajs.cpuMicrosPerCall} µs, platformatic ${summary.platformatic.cpuMicrosPerCall} µs (median ratio ${summary.medianCpuRatio}, cheaper in ${summary.platformaticCheaperRounds} of ${rounds}); wall ${summary.kafkajs.wallMicrosPerCall} against ${summary.platformatic.wallMicrosPerCall} µs (${summary.medianWallRatio})`);
  }
  const file = path.join(ROOT, 'bench', 'results', 'kafka-clients-latest.json');
  writeFileSync(file, `${JSON.stringify({ at: new Date().toISOString(), node: process.version, calls: Number(options.calls), rounds, results }, null, 2)}\n`);
  console.log(`[kafka-clients] wrote ${path.relative(ROOT, file)}`);
}

(options.child ? child(options.child as Client) : main()).catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
