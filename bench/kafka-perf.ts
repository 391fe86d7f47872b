import { spawn } from 'node:child_process';
import type { KafkaPerfResult } from './results.js';

/**
 * The broker's ceiling: Kafka's own kafka-producer-perf-test (org.apache.kafka.tools.ProducerPerformance,
 * which the kafka-producer-perf-test.sh script runs) from the jars the local broker runs on, with
 * acks=-1 as the edge uses, records the size of the edge's event messages, as fast as it can go.
 * Java's producer batches by itself (batch.size, linger.ms), so this is what the broker takes from
 * a client that batches well, on this machine, while nothing else of ours runs.
 */

export interface KafkaPerfOptions {
  /** The broker's classpath, e.g. ~/.local/state/event-alerting/stack/kafka/libs/*. */
  readonly classpath: string;
  readonly bootstrapServers: string;
  readonly topic: string;
  readonly records: number;
  readonly recordSize: number;
}

/** Longest one perf-test may run; it normally takes seconds, a hung broker must not hang the bench. */
const PERF_TIMEOUT_MS = 180_000;

export function kafkaPerfCommand(options: KafkaPerfOptions): string[] {
  return [
    'java',
    '-cp',
    options.classpath,
    'org.apache.kafka.tools.ProducerPerformance',
    '--topic',
    options.topic,
    '--num-records',
    String(options.records),
    '--record-size',
    String(options.recordSize),
    '--throughput',
    '-1',
    '--producer-props',
    `bootstrap.servers=${options.bootstrapServers}`,
    'acks=-1',
  ];
}

export async function runKafkaPerf(options: KafkaPerfOptions): Promise<Omit<KafkaPerfResult, 'cpu' | 'topicPartitions'>> {
  const [command = 'java', ...args] = kafkaPerfCommand(options);
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (out += d.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), PERF_TIMEOUT_MS);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`kafka-producer-perf-test exited with ${code ?? signal}:\n${out}`));
    });
  });
  return { command: [command, ...args].map(shellQuote).join(' '), ...parseKafkaPerf(output, options) };
}

/**
 * The last line of ProducerPerformance is the summary of the whole run, e.g.
 * "300000 records sent, 29234.06 records/sec (8.36 MB/sec), 2270.53 ms avg latency, 3429.00 ms max
 * latency, 2486 ms 50th, 3231 ms 95th, 3378 ms 99th, 3417 ms 99.9th." (the lines before it are
 * 5-second windows).
 */
export function parseKafkaPerf(output: string, options: Pick<KafkaPerfOptions, 'records' | 'recordSize'>): Omit<KafkaPerfResult, 'cpu' | 'topicPartitions' | 'command'> {
  const summary =
    /(\d+) records sent, ([\d.]+) records\/sec \(([\d.]+) MB\/sec\), ([\d.]+) ms avg latency, ([\d.]+) ms max latency, (\d+) ms 50th, (\d+) ms 95th, (\d+) ms 99th, (\d+) ms 99\.9th/.exec(
      output,
    );
  if (!summary) throw new Error(`could not find the summary line in kafka-producer-perf-test's output:\n${output}`);
  const n = summary.slice(1).map(Number);
  return {
    records: n[0]!,
    recordSize: options.recordSize,
    recordsPerSecond: n[1]!,
    mbPerSecond: n[2]!,
    latencyMs: { avg: n[3]!, max: n[4]!, p50: n[5]!, p95: n[6]!, p99: n[7]!, p999: n[8]! },
  };
}

function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
