import { expect } from 'vitest';
import { encodeComponent } from './fuzz-http.js';
import type { Event } from './fuzz-ingest-bodies.js';
import type { FuzzService } from './fuzz-service.js';
import { waitFor } from './service-process.js';

/** Longest an accepted event may take to be listed: the service promises 2 s at p99 under load, with room to spare here. */
const READABLE_WITHIN_MS = 5_000;

/**
 * The events of an app with the given ids, read through `GET /v1/apps/{appId}/events?type=…` and
 * polled until every one is listed (no fixed sleep: in embedded mode a 202 means already stored).
 */
export async function readBack(service: FuzzService, appId: string, type: string, ids: readonly string[]): Promise<Map<string, any>> {
  const found = new Map<string, any>();
  await waitFor(
    async () => {
      const answer = await service.client.send({ method: 'GET', path: `/v1/apps/${appId}/events?limit=100&type=${encodeComponent(type)}`, headers: service.auth });
      expect(answer.status, answer.text.slice(0, 300)).toBe(200);
      for (const item of answer.json.items) if (ids.includes(item.id)) found.set(item.id, item);
      return found.size === ids.length;
    },
    READABLE_WITHIN_MS,
    `events ${ids.join(', ')} of type ${type} to be listed`,
    20,
  );
  return found;
}

/** The value as JSON carries it: what any reader of the body the client sent would see. */
export function asJson(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

/**
 * A stored event is what was sent: the same data and metadata (over the app's defaults), level
 * (default info), customer_id (absent stays absent), and instant (default: the ingestion time).
 */
export function expectStoredAsSent(read: any, sent: Event, defaults: Record<string, unknown>, context: string): void {
  const why = `${context}\nsent: ${JSON.stringify(sent).slice(0, 1_000)}\nread: ${JSON.stringify(read).slice(0, 1_000)}`;
  expect(read.event, why).toBe(sent.event);
  expect(read.level, why).toBe(sent.level ?? 'info');
  expect(read.data, why).toStrictEqual(asJson(sent.data ?? {}));
  expect(read.metadata, why).toStrictEqual(asJson({ ...defaults, ...(sent.metadata as object | undefined) }));
  if (sent.customer_id === undefined) expect('customer_id' in read, why).toBe(false);
  else expect(read.customer_id, why).toBe(sent.customer_id);
  if (typeof sent.timestamp === 'string') expect(read.timestamp, why).toBe(new Date(Date.parse(sent.timestamp)).toISOString());
  else expect(read.timestamp, why).toBe(read.ingestedAt);
}
