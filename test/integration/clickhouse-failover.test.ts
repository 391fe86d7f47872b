import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClickHouseEventStore, type ClickHouseEventStoreOptions } from '../../src/adapters/event-store/clickhouse-event-store.js';
import type { EventStore } from '../../src/ports/event-store.js';
import type { StoredEvent } from '../../src/domain/events.js';
import { clickhouseSql, dropTestDatabase, testDatabaseName } from '../helpers/clickhouse.js';
import { makeEvent } from '../helpers/event-store-harness.js';
import { freePort } from '../helpers/net.js';
import { stackEnv, uniqueName } from '../helpers/stack-env.js';

/**
 * The ClickHouse event store given several node addresses: the local stack's server, and stand-ins on
 * 127.0.0.1 for a node that is down (a port nothing listens on), one that hangs up on every connection
 * at once or partway through a request, and one that answers every request with a SQL error. Every
 * check goes through the store's own methods, and each stand-in counts what reached it, so a request
 * sent to the wrong node is seen.
 */

/** An HTTP stand-in on 127.0.0.1 that records the path and query of every request it gets. */
interface FakeNode {
  readonly url: string;
  readonly requests: string[];
  close(): Promise<void>;
}

/** Starts `server` on a free port of 127.0.0.1 (nothing here is sent anywhere else) and returns its URL. */
async function listenOnLoopback(server: net.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

async function startNode(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<FakeNode> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    requests.push(req.url ?? '');
    answer(req, res);
  });
  return {
    url: await listenOnLoopback(server),
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Sends `req` on to `url` with `body` (the request's own stream, or what was read of it) and pipes the answer back. */
function forward(req: http.IncomingMessage, res: http.ServerResponse, url: URL, body: Buffer | http.IncomingMessage): void {
  const upstream = http.request(url, { method: req.method, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  upstream.on('error', () => res.destroy());
  if (Buffer.isBuffer(body)) upstream.end(body);
  else body.pipe(upstream);
}

/** The real server behind a counting node: what the store sends it can be told from what it sends others. */
function forwardingTo(target: string): Promise<FakeNode> {
  return startNode((req, res) => forward(req, res, new URL(req.url ?? '/', target), req));
}

/** ClickHouse 18.16's answer to a statement on a missing table: status 500, the exception as the body. */
const SQL_ERROR = "Code: 60, e.displayText() = DB::Exception: Table x doesn't exist., e.what() = DB::Exception";

/** A TCP stand-in on 127.0.0.1 that counts the connections and the bytes that reached it. */
interface TcpStandIn {
  readonly url: string;
  connections(): number;
  received(): number;
  close(): Promise<void>;
}

/**
 * A TCP stand-in that closes each connection once it has read `bytes` of its request, head and body
 * together. With 0 it closes every connection at once ("socket hang up" to the client); with more it
 * is a node that dies while an insert's rows are on their way to it.
 */
async function startClosingAfter(bytes: number): Promise<TcpStandIn> {
  let connections = 0;
  let received = 0;
  const server = net.createServer((socket) => {
    connections++;
    socket.on('error', () => {});
    if (bytes === 0) return void socket.destroy();
    let taken = 0;
    socket.on('data', (chunk: Buffer) => {
      taken += chunk.length;
      received += chunk.length;
      if (taken >= bytes) socket.destroy();
    });
  });
  return {
    url: await listenOnLoopback(server),
    connections: () => connections,
    received: () => received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('ClickHouseEventStore over several nodes (distributed)', () => {
  const database = testDatabaseName('failover');
  let real: string;
  let dead: string;
  let otherDead: string;
  const nodes: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    real = stackEnv().clickhouseUrl;
    dead = `http://127.0.0.1:${await freePort()}`;
    otherDead = `http://127.0.0.1:${await freePort()}`;
  });

  afterAll(async () => {
    await Promise.all(nodes.map((node) => node.close()));
    await dropTestDatabase(clickhouseSql(real), database);
  });

  async function withStore<T>(options: Omit<ClickHouseEventStoreOptions, 'database'>, body: (store: EventStore) => Promise<T>): Promise<T> {
    const store = new ClickHouseEventStore({ database, ...options });
    try {
      return await body(store);
    } finally {
      await store.close();
    }
  }

  /** Migrates, stores an event of a new app, reads it back and pings: all through the store. */
  async function expectWorking(store: EventStore): Promise<void> {
    await store.migrate();
    const event = makeEvent(uniqueName('app'));
    await store.insert([event]);
    expect(await store.query({ appId: event.appId, limit: 10 })).toEqual([event]);
    await expect(store.ping()).resolves.toBeUndefined();
  }

  it('works when the first node is down, and when the last one is', async () => {
    await withStore({ urls: [dead, real] }, expectWorking);
    await withStore({ urls: [real, dead] }, expectWorking);
  });

  it('moves to the node that answered: a node that hung up is not asked again while the other answers', async () => {
    const hangingUp = await startClosingAfter(0);
    const behind = await forwardingTo(real);
    nodes.push(hangingUp, behind);
    await withStore({ urls: [hangingUp.url, behind.url] }, expectWorking);
    expect(hangingUp.connections()).toBe(1);
    // migrate, insert, query and ping: several requests, all answered by the second node.
    expect(behind.requests.length).toBeGreaterThan(4);
  });

  it('sends an insert whole to the next node when the first one dies with part of its rows', async () => {
    await withStore({ urls: [real] }, (store) => store.migrate());
    const cuttingOff = await startClosingAfter(200_000);
    nodes.push(cuttingOff);
    const appId = uniqueName('app');
    // About 700 KB of rows: the stand-in takes part of them before it hangs up.
    const events = Array.from({ length: 1000 }, (_, i) => makeEvent(appId, { data: { i, note: `é€😀 ${'x'.repeat(600)}` }, customerId: `cus_${i}` }));
    await withStore({ urls: [cuttingOff.url, real] }, (store) => store.insert(events));
    expect(cuttingOff.received()).toBeGreaterThanOrEqual(200_000);
    const stored = await withStore({ urls: [real] }, (store) => store.query({ appId, limit: 1000 }));
    const byId = (list: readonly StoredEvent[]) => [...list].sort((a, b) => a.id.localeCompare(b.id));
    expect(byId(stored)).toEqual(byId(events));
  });

  it('pings through a dead node as its first request, so readiness holds while one node is down', async () => {
    await withStore({ urls: [dead, real] }, (store) => expect(store.ping()).resolves.toBeUndefined());
  });

  it('does not send a statement to another node when ClickHouse answered it with an error', async () => {
    const failing = await startNode((_req, res) => {
      res.writeHead(500, { 'Content-Type': 'text/plain', 'X-ClickHouse-Exception-Code': '60' });
      res.end(`${SQL_ERROR}\n`);
    });
    const behind = await forwardingTo(real);
    nodes.push(failing, behind);
    const appId = uniqueName('app');
    // The counting node does see the store's statements when it is asked: what follows can fail.
    await withStore({ urls: [behind.url] }, (store) => store.migrate());
    const seen = behind.requests.length;
    expect(seen).toBeGreaterThan(0);

    await withStore({ urls: [failing.url, behind.url] }, (store) => expect(store.query({ appId, limit: 10 })).rejects.toThrow(SQL_ERROR));
    expect(failing.requests).toHaveLength(1);
    expect(behind.requests).toHaveLength(seen);
  });

  it("rejects with the last node's connection error when no node can be reached", async () => {
    const lastPort = new URL(otherDead).port;
    await withStore({ urls: [dead, otherDead] }, async (store) => {
      await expect(store.ping()).rejects.toMatchObject({ code: 'ECONNREFUSED', message: expect.stringContaining(`:${lastPort}`) });
      await expect(store.query({ appId: uniqueName('app'), limit: 10 })).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      await expect(store.insert([makeEvent(uniqueName('app'))])).rejects.toMatchObject({ code: 'ECONNREFUSED', message: expect.stringContaining(`:${lastPort}`) });
    });
  });

  it('asks a cluster for synchronous distributed inserts, shard-local IN, replicas in order and no block deduplication; one server for nothing extra', async () => {
    const accepting = await startNode((_req, res) => res.end());
    nodes.push(accepting);
    const clusterSettings = { insert_distributed_sync: '1', distributed_product_mode: 'local', load_balancing: 'in_order', insert_deduplicate: '0' };
    const settingsOf = (request: string) => {
      const params = new URL(request, 'http://node').searchParams;
      return Object.fromEntries([...Object.keys(clusterSettings), 'deduplicate_insert'].flatMap((name) => (params.has(name) ? [[name, params.get(name)]] : [])));
    };

    // A node that knows no deduplicate_insert (it answers the question with no row): the insert goes
    // with the four settings of 18.16, after the one question.
    await withStore({ urls: [accepting.url], cluster: 'events' }, (store) => store.insert([makeEvent(uniqueName('app'))]));
    expect(accepting.requests).toHaveLength(2);
    expect(settingsOf(accepting.requests[1]!)).toEqual(clusterSettings);

    await withStore({ urls: [accepting.url] }, (store) => store.insert([makeEvent(uniqueName('app'))]));
    expect(accepting.requests).toHaveLength(3);
    expect(settingsOf(accepting.requests[2]!)).toEqual({});
  });

  it("asks each node of a cluster once which settings it knows, and disables deduplicate_insert (26.2's override of insert_deduplicate) where it is known", async () => {
    // A current release stands in front of the real server: it says it knows deduplicate_insert and
    // passes everything else on. 18.16 behind it would refuse the setting, so the stand-in takes it off
    // and records it, which is what is checked.
    const forwarded: URLSearchParams[] = [];
    const current = await startNode((req, res) => {
      const url = new URL(req.url ?? '/', real);
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        // Passed on byte for byte: its Content-Length still holds.
        const body = Buffer.concat(chunks);
        if (/FROM system\.settings/.test(body.toString('utf8'))) {
          res.end(`${JSON.stringify({ name: 'deduplicate_insert' })}\n`);
          return;
        }
        forwarded.push(new URLSearchParams(url.searchParams));
        url.searchParams.delete('deduplicate_insert');
        forward(req, res, url, body);
      });
    });
    const old = await forwardingTo(real);
    nodes.push(current, old);
    await withStore({ urls: [old.url] }, (store) => store.migrate());

    // The store's reads on a cluster name it in cluster(); the server behind is one server, so only
    // inserts go through the stand-in, and the event is read back on the server alone.
    const event = makeEvent(uniqueName('app'));
    await withStore({ urls: [current.url, old.url], cluster: 'events' }, async (store) => {
      await store.insert([event]);
      await store.insert([event]);
    });
    await withStore({ urls: [real] }, async (store) => expect(await store.query({ appId: event.appId, limit: 10 })).toEqual([event]));
    // One question, then the two inserts, each with deduplicate_insert=disable beside the rest.
    expect(current.requests.length - forwarded.length).toBe(1);
    expect(forwarded).toHaveLength(2);
    for (const params of forwarded) {
      expect(params.get('deduplicate_insert')).toBe('disable');
      expect(params.get('insert_deduplicate')).toBe('0');
    }

    // A node without the setting is asked too, and gets none of it.
    const before = old.requests.length;
    await withStore({ urls: [old.url], cluster: 'events' }, (store) => store.insert([makeEvent(uniqueName('app'))]));
    expect(old.requests.length - before).toBe(2);
    expect(old.requests.slice(before).some((request) => new URL(request, 'http://node').searchParams.has('deduplicate_insert'))).toBe(false);
  });
});
