import { expect } from 'vitest';

/** An event as the events list shows it, with the fields the fault tests look at. */
export interface ListedEvent {
  readonly id: string;
  readonly event: string;
  readonly level: string;
  readonly data: Record<string, unknown>;
  readonly timestamp: string;
}

export interface ListedDelivery {
  readonly id: string;
  readonly ruleId: string;
  readonly destinationId: string;
  readonly eventId: string;
  readonly status: string;
  readonly attempts: number;
  readonly lastError: string | null;
}

/** The largest page the cursor-paged lists give. */
const PAGE = 100;

async function getPage<T>(url: string, auth: Record<string, string>): Promise<{ items: T[]; nextCursor: string | null }> {
  const res = await fetch(url, { headers: auth });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as { items: T[]; nextCursor: string | null };
}

/** Every item of one cursor-paged list (`path` with its filters, without limit and cursor). */
async function readPaged<T>(baseUrl: string, path: string, auth: Record<string, string>): Promise<T[]> {
  const items: T[] = [];
  const join = path.includes('?') ? '&' : '?';
  let cursor: string | null = null;
  do {
    const page: { items: T[]; nextCursor: string | null } = await getPage<T>(
      `${baseUrl}${path}${join}limit=${PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      auth,
    );
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}

/**
 * Every event of the app with a timestamp in [from, to), as the API lists them (duplicates included,
 * should the API ever show one). A load test's hundred thousand events are a thousand pages: the
 * range is cut into slices of `sliceMs`, each paged with its own cursor, `concurrency` at a time.
 * The slices are disjoint, so an event shows up in exactly one of them.
 */
export async function readEventsByTime(
  baseUrl: string,
  appId: string,
  auth: Record<string, string>,
  range: { from: number; to: number; sliceMs: number; concurrency: number },
): Promise<ListedEvent[]> {
  const slices: Array<[number, number]> = [];
  for (let start = range.from; start < range.to; start += range.sliceMs) slices.push([start, Math.min(start + range.sliceMs, range.to)]);
  const results: ListedEvent[][] = [];
  let next = 0;
  const reader = async (): Promise<void> => {
    while (next < slices.length) {
      const i = next++;
      const [from, to] = slices[i]!;
      const query = `from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`;
      results[i] = await readPaged<ListedEvent>(baseUrl, `/v1/apps/${appId}/events?${query}`, auth);
    }
  };
  await Promise.all(Array.from({ length: range.concurrency }, reader));
  return results.flat();
}

/** Every delivery of the app (optionally only those with `status`). */
export function listDeliveries(baseUrl: string, appId: string, auth: Record<string, string>, status?: string): Promise<ListedDelivery[]> {
  return readPaged<ListedDelivery>(baseUrl, `/v1/apps/${appId}/deliveries${status ? `?status=${status}` : ''}`, auth);
}
