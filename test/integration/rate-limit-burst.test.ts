import { once } from 'node:events';
import { connect } from 'node:net';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisRateLimiter } from '../../src/adapters/rate-limit/redis-rate-limiter.js';
import { AccountRateLimit } from '../../src/http/rate-limit.js';
import { outputField, printedClientSecret, runCli } from '../helpers/cli.js';
import { isolatedDistributedEnv, type IsolatedDistributedEnv } from '../helpers/distributed-env.js';
import { startService, type ServiceProcess } from '../helpers/service-process.js';
import { stackEnv, uniqueName } from '../helpers/stack-env.js';

/**
 * The per-account budget holds under bursts: three API processes share one budget of 300 requests per
 * 10 s in Redis, and 1,000 ingest requests of one account sent 30, 300 or all 1,000 at a time get
 * 300 accepted (± 10 %) every time. A burst keeps each process's event loop busy; the limiter must wait
 * for Redis's answers rather than take the delay for an outage and let every request through.
 */
const BUDGET = 300;
const REQUESTS = 1000;

/**
 * Each request a batch of 100 events: what a busy ingest client sends, and enough work that a third
 * of a burst keeps a process's event loop busy for longer than the limiter's 250 ms deadline.
 */
function requestBody(i: number): string {
  return JSON.stringify(Array.from({ length: 100 }, (_, j) => ({ event: 'burst', customer_id: `c${j % 7}`, data: { i, j, note: 'a burst of events' } })));
}

describe('a burst of requests does not switch the rate limit off (distributed mode, 3 API processes)', () => {
  let isolated: IsolatedDistributedEnv;
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    isolated = await isolatedDistributedEnv('ratelimit_burst');
    const env = { ROLE: 'api', ...isolated.env, RATE_LIMIT_POINTS: String(BUDGET), RATE_LIMIT_DURATION_S: '10' };
    processes.push(...(await Promise.all([startService(env), startService(env), startService(env)])));
  });

  afterAll(async () => {
    for (const p of processes) await p.stop();
    await isolated?.cleanup();
  });

  /** A new account with an app: its API key, and the budget left after making the app. */
  async function accountWithApp(name: string): Promise<{ apiKey: string; left: number }> {
    const created = await runCli(['create-account', '--name', name], isolated.env);
    expect(created.code, created.stderr).toBe(0);
    expect(outputField(created.stdout, 'account id')).not.toBe('');
    const res = await fetch(`${processes[0]!.url}/v1/apps`, {
      method: 'POST',
      headers: { authorization: `Bearer ${printedClientSecret(created.stdout)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    });
    expect(res.status).toBe(201);
    const { apiKey } = (await res.json()) as { apiKey: string };
    return { apiKey, left: BUDGET - 1 };
  }

  /** Sends `total` single-event ingests, `concurrency` at a time, round robin over the processes; the status of each. */
  async function burst(apiKey: string, total: number, concurrency: number): Promise<number[]> {
    const statuses: number[] = [];
    let next = 0;
    const one = async (i: number) => {
      const res = await fetch(`${processes[i % processes.length]!.url}/v1/ingest`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: requestBody(i),
      });
      await res.body?.cancel();
      statuses.push(res.status);
    };
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < total) await one(next++);
      }),
    );
    return statuses;
  }

  /**
   * Sends `total` single-event ingests truly at once: a connection each is opened first, round robin
   * over the processes, then every request is written in one go, so each process finds its share
   * waiting together (a pool of fetches would trickle them out as fast as this process runs).
   */
  async function burstAtOnce(apiKey: string, total: number): Promise<number[]> {
    const sockets = await Promise.all(
      Array.from({ length: total }, async (_, i) => {
        const socket = connect(Number(new URL(processes[i % processes.length]!.url).port), '127.0.0.1');
        await once(socket, 'connect');
        return socket;
      }),
    );
    const answers = sockets.map(async (socket) => {
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      await once(socket, 'end');
      socket.destroy();
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(Buffer.concat(chunks).toString('latin1'));
      return status === null ? 0 : Number(status[1]);
    });
    sockets.forEach((socket, i) => {
      const body = requestBody(i);
      socket.write(
        `POST /v1/ingest HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${apiKey}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
    });
    return Promise.all(answers);
  }

  it('warms the processes up', async () => {
    const { apiKey } = await accountWithApp('burst warm-up');
    const statuses = await burst(apiKey, 300, 30);
    expect(statuses.filter((s) => s === 202).length).toBeGreaterThan(0);
  });

  for (const concurrency of [30, 300, REQUESTS]) {
    it(`accepts the budget, within 10 %, of ${REQUESTS} requests sent ${concurrency === REQUESTS ? 'all at once' : `${concurrency} at a time`}`, async () => {
      const { apiKey, left } = await accountWithApp(`burst ${concurrency}`);
      const statuses = concurrency === REQUESTS ? await burstAtOnce(apiKey, REQUESTS) : await burst(apiKey, REQUESTS, concurrency);
      const accepted = statuses.filter((s) => s === 202).length;
      expect(statuses.filter((s) => s !== 202 && s !== 429), 'statuses other than 202 and 429').toEqual([]);
      expect(accepted).toBeGreaterThanOrEqual(Math.floor(left * 0.9));
      expect(accepted).toBeLessThanOrEqual(Math.ceil(left * 1.1));
    });
  }
});

describe('the edge limiter while its own process is busy (Redis of the local stack)', () => {
  /** Keeps this process's event loop busy, as a burst of requests or a descheduled process does. */
  function busy(ms: number): void {
    const until = performance.now() + ms;
    while (performance.now() < until);
  }

  it("waits for Redis's answers that arrived while the event loop was busy past the deadline, and keeps limiting", async () => {
    const limiter = new RedisRateLimiter({ url: stackEnv().redisUrl, policy: { points: 5, durationSeconds: 60 }, keyPrefix: `${uniqueName('test_burst')}:` });
    const warnings: unknown[] = [];
    const edge = new AccountRateLimit({ limiter, metrics: new Registry(), logger: { warn: (...args: unknown[]) => warnings.push(args), info: () => undefined } });
    try {
      await edge.admit('warm-up');
      const admitted = Array.from({ length: 8 }, () =>
        // Called now (the IIFE runs at once), its answer taken as a promise whether it came at once or not.
        (async () => edge.admit('account'))().then(
          (headers) => headers.RateLimit ?? 'unchecked',
          () => 'refused',
        ),
      );
      // The commands are on their way; the loop is busy for longer than the 250 ms deadline.
      busy(400);
      expect(await Promise.all(admitted)).toEqual([
        '"default";r=4;t=60',
        '"default";r=3;t=60',
        '"default";r=2;t=60',
        '"default";r=1;t=60',
        '"default";r=0;t=60',
        'refused',
        'refused',
        'refused',
      ]);
      expect(warnings).toEqual([]);
    } finally {
      await limiter.close();
    }
  });
});
