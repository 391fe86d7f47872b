import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Kafka, logLevel } from 'kafkajs';

/**
 * How well the edge's micro-batching works, seen from the broker: the record batches the edge wrote
 * to the events topic, read back with Kafka's own kafka.tools.DumpLogSegments (kafka-dump-log) from
 * the broker's log directory. Every produce call of the edge writes one record batch per partition
 * it touches, and all of one app's events share a partition, so for the benchmark's single app
 * "record batches" is "produce calls", and records per batch is how many events shared one.
 */

export interface RecordBatch {
  readonly partition: number;
  readonly baseOffset: number;
  readonly count: number;
}

/** Per partition, the offset the next record will get (the log end offset). */
export type EndOffsets = ReadonlyMap<number, number>;

export async function endOffsets(brokers: string[], topic: string): Promise<EndOffsets> {
  const admin = new Kafka({ brokers, clientId: 'bench-offsets', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return new Map(offsets.map((o) => [o.partition, Number(o.high)]));
  } finally {
    await admin.disconnect();
  }
}

/** Every record batch of `topic` on this broker, in one JVM run over all its segment files. */
export async function readRecordBatches(classpath: string, logDirs: readonly string[], topic: string): Promise<RecordBatch[]> {
  const files: Array<{ file: string; partition: number }> = [];
  for (const dir of logDirs) {
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir)) {
      // <topic>-<partition>; a deleted topic's folder has a further ".<id>-delete" suffix.
      const match = /^(.*)-(\d+)$/.exec(entry);
      if (!match || match[1] !== topic) continue;
      for (const f of readdirSync(path.join(dir, entry))) {
        if (f.endsWith('.log')) files.push({ file: path.join(dir, entry, f), partition: Number(match[2]) });
      }
    }
  }
  if (files.length === 0) return [];
  const partitionOf = new Map(files.map((f) => [f.file, f.partition]));
  const child = spawn('java', ['-cp', classpath, 'kafka.tools.DumpLogSegments', '--files', files.map((f) => f.file).join(',')], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => resolve(code));
  });
  const batches: RecordBatch[] = [];
  let partition = -1;
  // Streamed: a busy step writes tens of thousands of batches, one line each.
  for await (const line of createInterface({ input: child.stdout })) {
    const dumping = /^Dumping (.*)$/.exec(line);
    if (dumping) {
      partition = partitionOf.get(dumping[1]!.trim()) ?? -1;
      continue;
    }
    const batch = /^baseOffset: (\d+) lastOffset: \d+ count: (\d+)/.exec(line);
    if (batch && partition >= 0) batches.push({ partition, baseOffset: Number(batch[1]), count: Number(batch[2]) });
  }
  const code = await exited;
  if (code !== 0) throw new Error(`kafka.tools.DumpLogSegments exited with ${code}`);
  return batches;
}

export interface BatchStats {
  /** Record batches (= produce calls of the edge, for one app) written during the window. */
  readonly batches: number;
  readonly records: number;
  readonly recordsPerBatch: number;
  readonly batchesPerSecond: number;
}

/** The batches whose first offset falls between two snapshots of the end offsets. */
export function batchStats(batches: readonly RecordBatch[], from: EndOffsets, to: EndOffsets, seconds: number): BatchStats {
  let count = 0;
  let records = 0;
  for (const b of batches) {
    const start = from.get(b.partition) ?? 0;
    const end = to.get(b.partition) ?? 0;
    if (b.baseOffset >= start && b.baseOffset < end) {
      count++;
      records += b.count;
    }
  }
  return { batches: count, records, recordsPerBatch: count > 0 ? records / count : 0, batchesPerSecond: count / seconds };
}
