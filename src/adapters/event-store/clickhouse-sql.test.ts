import { v7 as uuidv7 } from 'uuid';
import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../domain/events.js';
import { EVENTS_TABLE, MAX_PARTITIONS_PER_INSERT, insertEventsSql } from './clickhouse-sql.js';
import { quoteIdentifier } from './sql.js';
import { decodeEventMessage } from '../../domain/messages/event-message.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 10, 1, 12);
const db = quoteIdentifier('events_test');

function event(appId: string, overrides: Partial<StoredEvent> = {}): StoredEvent {
  return { id: uuidv7(), appId, event: 'signup', customerId: null, level: 'info', data: {}, metadata: {}, timestamp: new Date(T0), ingestedAt: new Date(T0), ...overrides };
}

/** Each statement's rows as (app, id) pairs, after checking the statement's first line. */
function rowsOf(statements: readonly string[]): Array<Array<[string, string]>> {
  return statements.map((statement) => {
    const [head, ...rows] = statement.split('\n');
    expect(head).toBe(`INSERT INTO ${db}.${EVENTS_TABLE} (id, app_id, event, customer_id, level, data, metadata, timestamp_ms, ingested_at_ms) FORMAT TabSeparated`);
    return rows.map((row) => {
      const [id, appId] = row.split('\t');
      return [appId!, id!];
    });
  });
}

describe('insertEventsSql', () => {
  it('writes an event repeated within a batch once, and the same id of two apps twice', () => {
    const [appA, appB] = [uuidv7(), uuidv7()];
    const first = event(appA);
    const second = event(appA, { timestamp: new Date(T0 + DAY) });
    const sameIdOtherApp = event(appB, { id: first.id });
    const statements = insertEventsSql(db, [first, second, { ...first }, sameIdOtherApp, { ...second }]);
    const rows = rowsOf(statements).flat();
    expect(rows).toHaveLength(3);
    expect(new Set(rows.map((row) => row.join(' ')))).toEqual(new Set([`${appA} ${first.id}`, `${appA} ${second.id}`, `${appB} ${first.id}`]));
  });

  it('splits a batch spanning more days than one INSERT may touch, each day whole in one statement', () => {
    const appId = uuidv7();
    const days = MAX_PARTITIONS_PER_INSERT + 1;
    const events = Array.from({ length: days * 2 }, (_, i) => event(appId, { timestamp: new Date(T0 - (i % days) * DAY) }));
    const statements = rowsOf(insertEventsSql(db, events));
    expect(statements.map((rows) => rows.length)).toEqual([MAX_PARTITIONS_PER_INSERT * 2, 2]);
    const dayOf = new Map(events.map((e) => [e.id, Math.floor(e.timestamp.getTime() / DAY)]));
    const daysOf = statements.map((rows) => new Set(rows.map(([, id]) => dayOf.get(id))));
    expect(daysOf.map((set) => set.size)).toEqual([MAX_PARTITIONS_PER_INSERT, 1]);
    expect([...daysOf[0]!].some((day) => daysOf[1]!.has(day))).toBe(false);
  });

  it('writes the data and metadata of an event off the bus as the text they arrived in, escaped for the row', () => {
    const appId = uuidv7();
    const id = uuidv7();
    const fields = JSON.stringify({ id, event: 'signup', customerId: null, level: 'info', timestamp: T0, ingestedAt: T0 });
    const [data, metadata] = ['{ "b": 1,  "a": "tab\\there" }', '{"plan":"pro"}'];
    const decoded = decodeEventMessage(Buffer.from(`{"v":3,"appId":"${appId}"}\n${fields}\n${data}\n${metadata}`));
    if (!decoded.ok) throw new Error(decoded.reason);
    const [statement] = insertEventsSql(db, decoded.events);
    const row = statement!.split('\n')[1]!.split('\t');
    expect(row.slice(5, 7)).toEqual(['{ "b": 1,  "a": "tab\\\\there" }', '{"plan":"pro"}']);
    // The same event built in memory is written from its objects.
    const [fromObjects] = insertEventsSql(db, [{ ...decoded.events[0]! }]);
    expect(fromObjects!.split('\n')[1]!.split('\t').slice(5, 7)).toEqual(['{"b":1,"a":"tab\\\\there"}', '{"plan":"pro"}']);
  });
});
