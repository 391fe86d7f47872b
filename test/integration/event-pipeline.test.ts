import { Kafka, logLevel } from 'kafkajs';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEAD_LETTER_REASON_HEADER, encodeEventEntry, encodeEventMessages, eventBatchMessage } from '../../src/domain/messages/event-message.js';
import { MODES, startApi, type ApiHarness } from '../helpers/api-harness.js';
import { waitFor } from '../helpers/service-process.js';
import { uniqueName } from '../helpers/stack-env.js';
import { entryObject } from '../helpers/pipeline-fixtures.js';
import type { StoredEvent } from '../../src/domain/events.js';

/**
 * The worker pipeline inside the real service: messages on the events topic end up in the event store
 * exactly once, in both modes (in-process bus + chDB, Kafka + ClickHouse server).
 */
function event(appId: string, n: number, overrides: Partial<StoredEvent> = {}): StoredEvent {
  return {
    id: uuidv7(),
    appId,
    event: 'order.created',
    customerId: `customer-${n % 3}`,
    level: 'info',
    data: { n, nested: { ok: true } },
    metadata: { region: 'eu' },
    timestamp: new Date(Date.now() - n),
    ingestedAt: new Date(),
    ...overrides,
  };
}

/** One event on its own message, as an edge whose produce call carried only it would write it. */
function encodeEventMessage(e: StoredEvent) {
  return encodeEventMessages([e])[0]!;
}

describe.each(MODES)('event pipeline (%s)', (mode) => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi(mode);
  });
  afterAll(async () => {
    await api.stop();
  });

  async function storedIds(appId: string): Promise<string[]> {
    const rows = await api.container.events.query({ appId, limit: 1000 });
    return rows.map((r) => r.id);
  }

  it('stores every produced event once, keeping each app apart', async () => {
    const apps = [uuidv7(), uuidv7(), uuidv7()];
    const sent = new Map(apps.map((app) => [app, Array.from({ length: 40 }, (_, n) => event(app, n))]));
    await api.container.bus.produce(api.container.topics.events, [...sent.values()].flat().map(encodeEventMessage));

    for (const [app, events] of sent) {
      await waitFor(async () => (await storedIds(app)).length === events.length, 30_000, `events of ${app}`);
      expect((await storedIds(app)).sort()).toEqual(events.map((e) => e.id).sort());
    }
    const [first] = await api.container.events.query({ appId: apps[0]!, limit: 1, type: 'order.created' });
    expect(first).toMatchObject({ customerId: expect.stringMatching(/^customer-/), data: { nested: { ok: true } }, metadata: { region: 'eu' } });
  });

  it('shows a redelivered event once', async () => {
    const app = uuidv7();
    const events = Array.from({ length: 10 }, (_, n) => event(app, n));
    const messages = events.map(encodeEventMessage);
    await api.container.bus.produce(api.container.topics.events, messages);
    await waitFor(async () => (await storedIds(app)).length === 10, 30_000, 'first delivery');
    // At-least-once delivery: the same messages again, as after a crash before the commit.
    const marker = event(app, 99);
    await api.container.bus.produce(api.container.topics.events, [...messages, encodeEventMessage(marker)]);
    await waitFor(async () => (await storedIds(app)).includes(marker.id), 30_000, 'second delivery');
    const ids = await storedIds(app);
    expect(ids).toHaveLength(11);
    expect(new Set(ids).size).toBe(11);
  });

  it('dead-letters a message it cannot understand and goes on with the rest', async () => {
    const app = uuidv7();
    const good = event(app, 1);
    const surrogate = encodeEventMessage(event(app, 2));
    const badSurrogate = { key: app, value: Buffer.from(surrogate.value.toString('utf8').replace('"order.created"', '"order\\ud800"')) };
    const reasons: string[] = [];
    const deadLetters = await api.container.bus.subscribe({
      groupId: uniqueName('test_dlq'),
      topic: api.container.topics.eventsDeadLetter,
      fromBeginning: true,
      handler: (batch) => {
        for (const m of batch.messages) if (m.key === app) reasons.push(m.headers[DEAD_LETTER_REASON_HEADER] ?? '');
        return Promise.resolve();
      },
    });
    try {
      await api.container.bus.produce(api.container.topics.events, [
        { key: app, value: Buffer.from('{"not": "an event"') },
        { key: app, value: Buffer.from(JSON.stringify({ v: 3, id: 'x' })) },
        badSurrogate,
        encodeEventMessage(good),
      ]);
      await waitFor(async () => (await storedIds(app)).includes(good.id), 30_000, 'the good event');
      await waitFor(() => Promise.resolve(reasons.length === 3), 30_000, 'three dead letters');
      expect(reasons).toEqual(['value is not JSON', expect.stringMatching(/^invalid event message: v:/), 'invalid event message: events.0.event: not well-formed Unicode']);
      expect(await storedIds(app)).toEqual([good.id]);
    } finally {
      await deadLetters.stop();
    }
  });

  it('stores the good entries of a message and dead-letters only its bad one', async () => {
    const app = uuidv7();
    const [first, second] = [event(app, 1), event(app, 2)];
    const bad = encodeEventEntry(event(app, 3)).replace('"level":"info"', '"level":"fatal"');
    const deadValues: string[] = [];
    const deadLetters = await api.container.bus.subscribe({
      groupId: uniqueName('test_dlq'),
      topic: api.container.topics.eventsDeadLetter,
      fromBeginning: true,
      handler: (batch) => {
        for (const m of batch.messages) if (m.key === app) deadValues.push(m.headers[DEAD_LETTER_REASON_HEADER] + ' ' + m.value.toString('utf8'));
        return Promise.resolve();
      },
    });
    try {
      await api.container.bus.produce(api.container.topics.events, [eventBatchMessage(app, [encodeEventEntry(first), bad, encodeEventEntry(second)])]);
      await waitFor(async () => (await storedIds(app)).length === 2, 30_000, 'the two good entries');
      await waitFor(() => Promise.resolve(deadValues.length === 1), 30_000, 'one dead letter');
      expect((await storedIds(app)).sort()).toEqual([first.id, second.id].sort());
      expect(deadValues[0]).toMatch(/^invalid event message: events\.1\.level: .* \{"v":3,"appId":"[^"]+"\}\n\{.*"level":"fatal".*\}\n\{.*\}\n\{.*\}$/);
    } finally {
      await deadLetters.stop();
    }
  });

  it('still reads version 1 and 2 messages (from an edge before the upgrade)', async () => {
    const app = uuidv7();
    const [old1, old2a, old2b] = [event(app, 1), event(app, 2), event(app, 3)];
    const v1 = { v: 1, appId: app, ...entryObject(old1) };
    const v2 = { v: 2, appId: app, events: [entryObject(old2a), entryObject(old2b)] };
    await api.container.bus.produce(
      api.container.topics.events,
      [v1, v2].map((message) => ({ key: app, value: Buffer.from(JSON.stringify(message)) })),
    );
    await waitFor(async () => (await storedIds(app)).length === 3, 30_000, 'the v1 and v2 events');
    const stored = await api.container.events.query({ appId: app, limit: 3 });
    expect(stored).toEqual(expect.arrayContaining([old1, old2a, old2b]));
  });
});

// Kafka specifics that the in-process bus cannot show: the real topic exists with its partitions.
describe('event pipeline topics on Kafka', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi('distributed');
  });
  afterAll(async () => {
    await api.stop();
  });

  it('creates the events and dead-letter topics with 12 partitions each', async () => {
    const admin = new Kafka({ brokers: [...api.container.config.distributed!.kafkaBrokers], logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const { topics } = await admin.fetchTopicMetadata({ topics: [api.container.topics.events, api.container.topics.eventsDeadLetter] });
      expect(topics.map((t) => t.partitions.length)).toEqual([12, 12]);
    } finally {
      await admin.disconnect();
    }
  });
});
