import { expect } from 'vitest';

/** Every event id of the app, newest first, following the events list's cursor to the end. */
export async function readAllIds(url: string, appId: string, auth: Record<string, string>): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const res = await fetch(`${url}/v1/apps/${appId}/events?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers: auth });
    expect(res.status).toBe(200);
    const page = (await res.json()) as { items: Array<{ id: string }>; nextCursor: string | null };
    ids.push(...page.items.map((e) => e.id));
    cursor = page.nextCursor;
  } while (cursor);
  return ids;
}
