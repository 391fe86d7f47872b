import type { EventCounts, EventFilter, EventGroupField } from '../../src/ports/event-store.js';
import type { StoredEvent } from '../../src/domain/events.js';

/**
 * Event counts worked out one event at a time, the answer the event store's counting reads and the
 * stats API must give: the suites compare the two.
 */

/** A deterministic stream of numbers in [0, 1), so a failing case can be replayed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const KEY_OF: Readonly<Record<EventGroupField, (e: StoredEvent) => string | null>> = {
  level: (e) => e.level,
  event: (e) => e.event,
  customer_id: (e) => e.customerId,
};

function matching(events: readonly StoredEvent[], filter: Omit<EventFilter, 'appId'>): StoredEvent[] {
  const unique = new Map(events.map((e) => [e.id, e]));
  return [...unique.values()].filter(
    (e) =>
      e.timestamp >= filter.from &&
      e.timestamp < filter.to &&
      (filter.level === undefined || e.level === filter.level) &&
      (filter.type === undefined || e.event === filter.type) &&
      (filter.customerId === undefined || e.customerId === filter.customerId),
  );
}

/** What counts() must answer, counted one event at a time. */
export function bruteCounts(events: readonly StoredEvent[], filter: Omit<EventFilter, 'appId'>, bucketMs: number, groupBy: EventGroupField | undefined, limit: number): EventCounts {
  const matched = matching(events, filter);
  const groups = new Map<string | null, StoredEvent[]>();
  for (const e of matched) {
    const key = groupBy === undefined ? null : KEY_OF[groupBy](e);
    if (groupBy !== undefined && key === null) continue;
    groups.set(key, [...(groups.get(key) ?? []), e]);
  }
  if (groupBy === undefined && groups.size === 0) groups.set(null, []);
  const series = [...groups.entries()]
    .map(([key, members]) => {
      const buckets = new Map<number, number>();
      for (const e of members) {
        const start = Math.floor(e.timestamp.getTime() / bucketMs) * bucketMs;
        buckets.set(start, (buckets.get(start) ?? 0) + 1);
      }
      return { key, total: members.length, buckets };
    })
    .sort((a, b) => b.total - a.total || String(a.key).localeCompare(String(b.key)))
    .slice(0, limit);
  return { total: matched.length, uniqueCustomers: new Set(matched.map((e) => e.customerId).filter((c) => c !== null)).size, series };
}

export function bruteTop(events: readonly StoredEvent[], filter: Omit<EventFilter, 'appId'>, by: EventGroupField, limit: number) {
  const groups = new Map<string, { count: number; last: number }>();
  for (const e of matching(events, filter)) {
    const key = KEY_OF[by](e);
    if (key === null) continue;
    const group = groups.get(key) ?? { count: 0, last: -Infinity };
    groups.set(key, { count: group.count + 1, last: Math.max(group.last, e.timestamp.getTime()) });
  }
  return [...groups.entries()]
    .sort(([ka, a], [kb, b]) => b.count - a.count || ka.localeCompare(kb))
    .slice(0, limit)
    .map(([key, { count, last }]) => ({ key, count, lastSeen: new Date(last) }));
}

/** Compares ordering-insensitive where the store leaves ties to the key order, as the brute force does. */
export function comparable(counts: EventCounts) {
  return { ...counts, series: counts.series.map((s) => ({ key: s.key, total: s.total, buckets: Object.fromEntries([...s.buckets].sort(([a], [b]) => a - b)) })) };
}

