import { Kafka, logLevel } from 'kafkajs';
import { topicsFor } from '../../src/domain/messages/topics.js';

/** Deletes every topic whose name starts with `prefix` (a suite's own topics, at its end). */
export async function deleteTopicsWithPrefix(brokers: string[], prefix: string): Promise<void> {
  if (!/^test_[A-Za-z0-9_]+\.$/.test(prefix)) throw new Error(`refusing to delete topics under ${JSON.stringify(prefix)}: not a test prefix`);
  const admin = new Kafka({ brokers, clientId: 'test-cleanup', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const topics = (await admin.listTopics()).filter((t) => t.startsWith(prefix));
    if (topics.length > 0) await admin.deleteTopics({ topics });
  } finally {
    await admin.disconnect();
  }
}

export interface PartitionLag {
  readonly group: string;
  readonly topic: string;
  readonly partition: number;
  /** The group's committed offset (-1: nothing committed). */
  readonly committed: number;
  readonly end: number;
}

/**
 * The partitions of the deployment under `prefix` that a consumer group has not consumed to the end:
 * for a failure message that must say which partition stalled, not only that events are missing.
 */
export async function laggingPartitions(brokers: string[], prefix: string): Promise<PartitionLag[]> {
  const topics = topicsFor(prefix);
  const admin = new Kafka({ brokers, clientId: 'test-lag', logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const lagging: PartitionLag[] = [];
    for (const [group, topic] of [[topics.workerGroup, topics.events], [topics.rulesGroup, topics.events], [topics.deliveryGroup, topics.deliveries]] as const) {
      const offsets = new Map((await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, { low: Number(o.low), end: Number(o.high) }]));
      const [committed] = await admin.fetchOffsets({ groupId: group, topics: [topic] });
      for (const p of committed?.partitions ?? []) {
        const { low, end } = offsets.get(p.partition) ?? { low: 0, end: 0 };
        // Nothing committed (-1) on a partition that holds nothing is not behind.
        if (Math.max(Number(p.offset), low) < end) lagging.push({ group, topic, partition: p.partition, committed: Number(p.offset), end });
      }
    }
    return lagging;
  } finally {
    await admin.disconnect();
  }
}
