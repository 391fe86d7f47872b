import { Kafka, logLevel } from 'kafkajs';

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
