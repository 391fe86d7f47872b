import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { generateClientSecret } from '../../src/domain/credentials.js';
import { absenceAlertId } from '../../src/pipeline/absence-watcher.js';
import { listDeliveries } from '../helpers/cluster-reads.js';
import { lockDeliveryTable, type DeliveryWriteBarrier } from '../helpers/delivery-write-barrier.js';
import { isolatedDistributedEnv, type IsolatedDistributedEnv } from '../helpers/distributed-env.js';
import { parseMetrics } from '../helpers/prometheus-text.js';
import { startHttpReceiver, type ReceivedRequest } from '../helpers/receivers.js';
import { isAlive, problemReport, startService, waitFor, type ServiceProcess } from '../helpers/service-process.js';

/**
 * Threshold and absence rules keep state across events (counts in a window, a deadline, a claimed
 * silence). In distributed mode that state lives in Redis and is shared by every worker, while the
 * events themselves are at-least-once: a worker killed with SIGKILL leaves its batch uncommitted,
 * and Kafka hands it to another worker, which evaluates those events again. What must hold: each
 * matching event counts once, each threshold triggers once, each silence alerts once.
 *
 * One api process and two workers share one set of topics and databases. Where the scenario needs a
 * worker killed at a precise point, the test locks the `delivery` table of its metadata database
 * (test/helpers/delivery-write-barrier.ts): the worker that triggered a rule, or claimed a silence,
 * then waits on its delivery INSERT, after its trigger or claim is in Redis and before its offsets
 * are committed or its claim completed. The lock also names that worker (through its PostgreSQL
 * connection), and that is the one killed. No timing guess decides where the kill lands.
 */

const RETRIES = '0,200ms,500ms,1s,2s';
const THRESHOLD = { type: 'threshold', count: 5, windowSeconds: 600 } as const;
/** 12 matches with a threshold of 5 and no cooldown: exactly two triggers (the trigger consumes the 5 it counted). */
const MATCHES = 12;
const ABSENCE_WINDOW_S = 10;
/** An absence alert is due within 2 s of its deadline; the delivery itself (Kafka, HTTP) gets the rest. */
const ABSENCE_LATENESS_MS = 2_500;
/** How long a claimed silence is its worker's before another may claim it (CLAIM_LEASE_MS in src/pipeline/absence-watcher.ts). */
const ABSENCE_CLAIM_LEASE_MS = 30_000;

/** One request the webhook receiver got, as the alert it carries. */
interface Alert {
  readonly webhookId: string;
  readonly receivedAt: number;
  readonly type: string;
  readonly ruleId: string;
  readonly kind: string;
  readonly count: number | null;
  readonly windowSeconds: number | null;
  readonly group: string | null;
  readonly eventId: string;
  /** The event's time; for an absence alert, the deadline that passed. */
  readonly timestamp: number;
  readonly level: string;
  readonly customerId: string | null;
}

function alertOf(request: ReceivedRequest, receivedAt: number): Alert {
  const body = JSON.parse(request.body);
  const data = body.data;
  return {
    webhookId: String(request.headers['webhook-id']),
    receivedAt,
    type: body.type,
    ruleId: data.ruleId,
    kind: data.kind,
    count: data.count,
    windowSeconds: data.windowSeconds,
    group: data.group,
    eventId: data.event.id,
    timestamp: Date.parse(data.event.timestamp),
    level: data.event.level,
    customerId: data.event.customer_id,
  };
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

describe('stateful rules when a worker is killed (distributed: 1 api, 2 workers)', () => {
  let isolated: IsolatedDistributedEnv | undefined;
  let serviceEnv: Record<string, string> = {};
  const secret = generateClientSecret();
  const auth = { authorization: `Bearer ${secret}` };
  const processes: ServiceProcess[] = [];
  let api: ServiceProcess;

  const start = async (role: 'api' | 'worker'): Promise<ServiceProcess> => {
    const started = await startService(serviceEnv, [role]);
    processes.push(started);
    return started;
  };
  const liveWorkers = (): ServiceProcess[] => processes.filter((p) => p !== api && isAlive(p));
  /** Each test starts with two workers, whatever an earlier one (or its failure) left. */
  const ensureTwoWorkers = async (): Promise<void> => {
    const missing = 2 - liveWorkers().length;
    if (missing > 0) await Promise.all(Array.from({ length: missing }, () => start('worker')));
  };

  beforeAll(async () => {
    isolated = await isolatedDistributedEnv('stateful_crash');
    serviceEnv = { ...isolated.env, BOOTSTRAP_CLIENT_SECRET: secret, OUTBOUND_ALLOW_PRIVATE: 'true', DELIVERY_RETRY_SCHEDULE: RETRIES };
    // The first process creates the databases and topics alone; the workers find them.
    api = await start('api');
    const workers = await Promise.allSettled([start('worker'), start('worker')]);
    for (const w of workers) if (w.status === 'rejected') throw w.reason;
  }, 120_000);

  // A failure message says what the processes complained about (their warnings and errors).
  beforeEach(({ onTestFailed }) => {
    onTestFailed(() => {
      const report = problemReport(processes.map((p) => ({ process: p, label: p === api ? 'api' : 'worker' })));
      if (report !== '') console.log(report);
    });
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGTERM')));
    await isolated?.cleanup();
  });

  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = auth): Promise<{ status: number; body: any }> => {
    const res = await fetch(`${api.url}${path}`, {
      method,
      headers: { ...headers, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  /** A fresh app with a webhook destination pointing at a fresh loopback receiver. */
  const newApp = async (name: string) => {
    const receivedAt: number[] = [];
    const receiver = await startHttpReceiver(() => {
      receivedAt.push(Date.now());
      return { status: 200, body: 'ok' };
    });
    onTestFinished(() => receiver.close());
    const created = await call('POST', '/v1/apps', { name });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const appId = created.body.app.id as string;
    const apiKey = created.body.apiKey as string;
    const destination = await call('POST', `/v1/apps/${appId}/destinations`, { type: 'webhook', label: 'receiver', url: `${receiver.baseUrl}/hook` });
    expect(destination.status, JSON.stringify(destination.body)).toBe(201);
    const destinationId = destination.body.id as string;

    const createRule = async (rule: Record<string, unknown>): Promise<{ id: string; createdAt: string }> => {
      const res = await call('POST', `/v1/apps/${appId}/notification-rules`, { enabled: true, conditions: [], actions: [{ destinationId }], cooldownSeconds: 0, ...rule });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body;
    };
    const readRule = async (ruleId: string): Promise<{ triggerCount: number; suppressedCount: number }> => {
      const res = await call('GET', `/v1/apps/${appId}/notification-rules/${ruleId}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body;
    };
    /** One ingest request; the accepted ids in order. */
    const ingest = async (events: readonly object[]): Promise<string[]> => {
      const res = await call('POST', '/v1/ingest', events, { 'x-api-key': apiKey });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      return (res.body.events as Array<{ id: string }>).map((e) => e.id);
    };
    /** All requests at once; the accepted ids in request order. */
    const ingestConcurrently = async (requests: ReadonlyArray<readonly object[]>): Promise<string[]> => (await Promise.all(requests.map(ingest))).flat();
    const alerts = (ruleId?: string): Alert[] =>
      receiver.requests.map((r, i) => alertOf(r, receivedAt[i]!)).filter((a) => ruleId === undefined || a.ruleId === ruleId);
    /**
     * The pipeline has moved past everything ingested so far: an `every` rule's alert for an event
     * sent now has arrived (an app's events are evaluated in order, on one partition), and no delivery
     * of the app is pending. What has not happened by then is not going to.
     */
    const drain = async (sentinelRuleId: string): Promise<void> => {
      const [sentinelId] = await ingest([{ event: 'sentinel.ping' }]);
      await waitFor(() => Promise.resolve(alerts(sentinelRuleId).some((a) => a.eventId === sentinelId)), 60_000, 'the sentinel event\'s alert', 100);
      await waitFor(async () => (await listDeliveries(api.url, appId, auth, 'pending')).length === 0, 60_000, 'no delivery pending', 250);
    };
    return { appId, destinationId, receiver, createRule, readRule, ingest, ingestConcurrently, alerts, drain };
  };

  /** The rule-trigger outcomes each live worker has counted so far, by process id. */
  const triggerOutcomes = async (): Promise<Map<number, Record<string, number>>> => {
    const byWorker = new Map<number, Record<string, number>>();
    for (const worker of liveWorkers()) {
      const samples = parseMetrics(await (await fetch(`${worker.url}/metrics`)).text());
      const counts: Record<string, number> = {};
      for (const s of samples.values()) if (s.name === 'eas_rule_triggers_total') counts[s.labels.outcome!] = s.value;
      byWorker.set(worker.child.pid!, counts);
    }
    return byWorker;
  };
  /** What the workers alive now counted since `before` (a worker started since counts from 0). */
  const outcomesSince = async (before: Map<number, Record<string, number>>): Promise<Record<string, number>> => {
    const moved: Record<string, number> = {};
    for (const [pid, counts] of await triggerOutcomes()) {
      for (const [outcome, value] of Object.entries(counts)) moved[outcome] = (moved[outcome] ?? 0) + value - (before.get(pid)?.[outcome] ?? 0);
    }
    return moved;
  };

  /**
   * Waits for a worker's delivery INSERT to block on the barrier, SIGKILLs that worker, ends the
   * sessions it left waiting on the lock, and releases the lock. Returns when it all happened.
   */
  const killBlockedWorker = async (barrier: DeliveryWriteBarrier, timeoutMs: number, progress: () => Promise<string>) => {
    const blocked = await barrier.blockedInsert(timeoutMs).catch(async (err: unknown) => {
      throw new Error(`${err instanceof Error ? err.message : String(err)}; by then: ${await progress().catch((e: unknown) => String(e))}`, { cause: err });
    });
    const blockedAt = Date.now();
    const workers = liveWorkers();
    const ownerPid = await barrier.ownerOf(blocked, workers.map((w) => w.child.pid!));
    const doomed = workers.find((w) => w.child.pid === ownerPid);
    if (!doomed) throw new Error(`the blocked delivery INSERT (client port ${blocked.clientPort}) belongs to none of the live workers`);
    expect(await doomed.stop('SIGKILL')).toBe('SIGKILL');
    const orphans = await barrier.endOrphans([api.child.pid!, ...liveWorkers().map((w) => w.child.pid!)]);
    // The killed worker's INSERT must not run once the lock goes: it is among the sessions ended.
    expect(orphans.map((o) => o.pid)).toContain(blocked.pid);
    await barrier.release();
    return { killedPid: doomed.child.pid!, blockedAt, orphans: orphans.length };
  };

  /**
   * Once the sentinel's alert proves the pipeline moved past the burst: the rule's alerts and
   * deliveries, and the trigger outcomes since `before`, noted with the kill in the test's report.
   */
  const settled = async (
    app: Awaited<ReturnType<typeof newApp>>,
    ruleId: string,
    sentinelId: string,
    before: Awaited<ReturnType<typeof triggerOutcomes>>,
    kill: { killedPid: number; orphans: number },
    annotate: (note: string) => Promise<unknown>,
  ) => {
    await app.drain(sentinelId);
    const alerts = app.alerts(ruleId);
    const deliveries = (await listDeliveries(api.url, app.appId, auth)).filter((d) => d.ruleId === ruleId);
    const outcomes = await outcomesSince(before);
    const note = `killed worker pid ${kill.killedPid} (${kill.orphans} orphaned sessions ended); outcomes since: ${JSON.stringify(outcomes)}`;
    console.log(`stateful-rules-crash: ${note}`);
    await annotate(note);
    return { alerts, deliveries, outcomes };
  };

  const holdDeliveryWrites = async (): Promise<DeliveryWriteBarrier> => {
    const barrier = await lockDeliveryTable(isolated!.env.DATABASE_URL!);
    onTestFinished(() => barrier.release());
    return barrier;
  };

  it('counts a threshold exactly once per 5 matches when the worker holding the partition dies mid-batch', async ({ annotate }) => {
    await ensureTwoWorkers();
    const app = await newApp('Threshold crash');
    const rule = await app.createRule({ name: 'five failures', eventName: 'payment.failed', trigger: THRESHOLD });
    const sentinel = await app.createRule({ name: 'sentinel', eventName: 'sentinel.ping' });
    const outcomesBefore = await triggerOutcomes();

    // 12 matches within the window (event time), a second apart, in six concurrent requests of two:
    // they reach the partition in any order, and a burst within one window triggers as often in any
    // order (the window ends at the group's newest match).
    const firstAt = Date.now() - 60_000;
    const events = Array.from({ length: MATCHES }, (_, n) => ({ event: 'payment.failed', level: 'error', timestamp: new Date(firstAt + n * 1000).toISOString(), data: { n } }));
    const requests = chunks(events, 2);

    // The first three requests (6 matches) reach whichever worker holds the app's partition (all of
    // an app's events are keyed to one). The batch that makes the 5th match triggers, and its worker
    // blocks creating the delivery: trigger recorded in Redis, offsets not committed. That worker is
    // the one killed, so Kafka must hand the very batch that triggered to the other worker.
    const barrier = await holdDeliveryWrites();
    const firstIds = await app.ingestConcurrently(requests.slice(0, 3));
    const kill = await killBlockedWorker(barrier, 30_000, async () => `triggerCount ${(await app.readRule(rule.id)).triggerCount}, outcomes ${JSON.stringify(await outcomesSince(outcomesBefore))}`);
    // The rest of the burst goes in while the partition's owner is dead; then a replacement joins (rebalance).
    const restIds = await app.ingestConcurrently(requests.slice(3));
    await start('worker');
    const accepted = new Set([...firstIds, ...restIds]);
    expect(accepted.size).toBe(MATCHES);

    await waitFor(async () => app.alerts(rule.id).length >= 2 && (await app.readRule(rule.id)).triggerCount >= 2, 60_000, 'two threshold alerts', 200);
    const { alerts, deliveries, outcomes } = await settled(app, rule.id, sentinel.id, outcomesBefore, kill, annotate);

    expect(alerts.map((a) => ({ type: a.type, kind: a.kind, count: a.count, windowSeconds: a.windowSeconds, group: a.group }))).toEqual([
      { type: 'alert.triggered', kind: 'threshold', count: 5, windowSeconds: 600, group: null },
      { type: 'alert.triggered', kind: 'threshold', count: 5, windowSeconds: 600, group: null },
    ]);
    expect(new Set(alerts.map((a) => a.webhookId)).size).toBe(2);
    expect(new Set(alerts.map((a) => a.eventId)).size).toBe(2);
    for (const a of alerts) expect(accepted.has(a.eventId)).toBe(true);
    expect((await app.readRule(rule.id)).triggerCount).toBe(2);
    expect(deliveries.map((d) => d.status)).toEqual(['succeeded', 'succeeded']);
    expect(new Set(deliveries.map((d) => d.id))).toEqual(new Set(alerts.map((a) => a.webhookId)));
    // The killed worker's batch was evaluated again: its trigger was found recorded (`again`), not made twice.
    expect(outcomes.again ?? 0).toBeGreaterThanOrEqual(1);
  }, 120_000);

  it('groups a threshold by $customer_id: exactly 2 triggers per customer across a kill mid-burst', async ({ annotate }) => {
    await ensureTwoWorkers();
    const app = await newApp('Grouped threshold crash');
    const rule = await app.createRule({ name: 'five per customer', eventName: 'payment.failed', trigger: { ...THRESHOLD, groupBy: '$customer_id' } });
    const sentinel = await app.createRule({ name: 'sentinel', eventName: 'sentinel.ping' });
    const outcomesBefore = await triggerOutcomes();

    // 40 customers × 12 matches, interleaved (event k is customer k % 40's), 100 ms apart: all within the window.
    const CUSTOMERS = 40;
    const customer = (c: number): string => `cus_${String(c).padStart(2, '0')}`;
    const firstAt = Date.now() - 120_000;
    const events = Array.from({ length: CUSTOMERS * MATCHES }, (_, k) => ({
      event: 'payment.failed',
      level: 'error',
      customer_id: customer(k % CUSTOMERS),
      timestamp: new Date(firstAt + k * 100).toISOString(),
      data: { k },
    }));
    const requests = chunks(events, 20);

    // The first half (6 matches of every customer) goes in while deliveries are held: the first batch
    // that makes some customer's 5th match blocks its worker, which is then killed (as above).
    const barrier = await holdDeliveryWrites();
    const firstIds = await app.ingestConcurrently(requests.slice(0, requests.length / 2));
    const kill = await killBlockedWorker(barrier, 30_000, async () => `triggerCount ${(await app.readRule(rule.id)).triggerCount}, outcomes ${JSON.stringify(await outcomesSince(outcomesBefore))}`);
    const restIds = await app.ingestConcurrently(requests.slice(requests.length / 2));
    await start('worker');
    const accepted = new Set([...firstIds, ...restIds]);
    expect(accepted.size).toBe(CUSTOMERS * MATCHES);

    const expected = 2 * CUSTOMERS;
    await waitFor(
      async () => app.alerts(rule.id).length >= expected && (await app.readRule(rule.id)).triggerCount >= expected,
      60_000,
      `${expected} threshold alerts`,
      250,
    );
    const { alerts, deliveries, outcomes } = await settled(app, rule.id, sentinel.id, outcomesBefore, kill, annotate);

    expect(alerts).toHaveLength(expected);
    expect(countBy(alerts, (a) => String(a.group))).toEqual(Object.fromEntries(Array.from({ length: CUSTOMERS }, (_, c) => [customer(c), 2])));
    // Each alert is its group's: the event that made the 5th match is that customer's own.
    expect(alerts.filter((a) => a.customerId !== a.group || a.kind !== 'threshold' || a.count !== 5 || a.windowSeconds !== 600 || !accepted.has(a.eventId))).toEqual([]);
    expect(new Set(alerts.map((a) => a.webhookId)).size).toBe(expected);
    expect(new Set(alerts.map((a) => a.eventId)).size).toBe(expected);
    expect((await app.readRule(rule.id)).triggerCount).toBe(expected);
    expect(deliveries).toHaveLength(expected);
    expect(deliveries.filter((d) => d.status !== 'succeeded')).toEqual([]);
    expect(new Set(deliveries.map((d) => d.id))).toEqual(new Set(alerts.map((a) => a.webhookId)));
    expect(outcomes.again ?? 0).toBeGreaterThanOrEqual(1);
  }, 120_000);

  it('sends one absence alert per silence, on time, and one recovery per return, even when the claiming worker dies', async ({ annotate }) => {
    await ensureTwoWorkers();
    const app = await newApp('Absence crash');
    const rule = await app.createRule({ name: 'heartbeat lost', eventName: 'heartbeat', trigger: { type: 'absence', windowSeconds: ABSENCE_WINDOW_S } });
    const windowMs = ABSENCE_WINDOW_S * 1000;
    const absences = (): Alert[] => app.alerts(rule.id).filter((a) => a.kind === 'absence');
    const recoveries = (): Alert[] => app.alerts(rule.id).filter((a) => a.kind === 'recovered');
    const lateness = (a: Alert): number => a.receivedAt - a.timestamp;

    /** One matching event; resolves once its recovery alert has arrived. */
    const heartbeat = async (nth: number): Promise<{ sentAt: number; id: string; recovery: Alert }> => {
      const sentAt = Date.now();
      const [id] = await app.ingest([{ event: 'heartbeat' }]);
      await waitFor(() => Promise.resolve(recoveries().length >= nth), 30_000, `recovery alert ${nth}`, 50);
      return { sentAt, id: id!, recovery: recoveries()[nth - 1]! };
    };

    // Silence 1: the clock started when the rule was created; both workers watch it.
    await waitFor(() => Promise.resolve(absences().length >= 1), windowMs + 20_000, 'absence alert 1', 50);
    const first = absences()[0]!;
    const createdAt = Date.parse(rule.createdAt);
    expect(first.timestamp - (createdAt + windowMs)).toBeGreaterThanOrEqual(0);
    expect(first.timestamp - (createdAt + windowMs)).toBeLessThan(1_000);

    // A match ends the silence (one recovery) and restarts the clock from its processing.
    const beat1 = await heartbeat(1);
    await waitFor(() => Promise.resolve(absences().length >= 2), windowMs + 20_000, 'absence alert 2', 50);
    const second = absences()[1]!;
    expect(second.timestamp).toBeGreaterThanOrEqual(beat1.sentAt + windowMs);
    expect(second.timestamp).toBeLessThanOrEqual(beat1.recovery.receivedAt + windowMs);

    // Silence 3: its claimer blocks creating the delivery (claimed, not completed) and is killed. The
    // claim's lease runs out and a live worker claims the same silence again: one alert, late by the lease.
    const beat2 = await heartbeat(2);
    // Its delivery recorded first: the lock would otherwise also hold the recording of that attempt,
    // and if the killed worker made it, the recovery would be sent again after its delivery lease.
    await waitFor(async () => (await listDeliveries(api.url, app.appId, auth, 'pending')).length === 0, 30_000, 'no delivery pending', 100);
    const barrier = await holdDeliveryWrites();
    const kill = await killBlockedWorker(barrier, windowMs + 20_000, async () => `triggerCount ${(await app.readRule(rule.id)).triggerCount}, ${absences().length} absence alerts`);
    await start('worker');
    await waitFor(() => Promise.resolve(absences().length >= 3), ABSENCE_CLAIM_LEASE_MS + 20_000, 'absence alert 3 (taken over)', 100);
    const third = absences()[2]!;
    expect(third.timestamp).toBeGreaterThanOrEqual(beat2.sentAt + windowMs);
    expect(third.timestamp).toBeLessThanOrEqual(beat2.recovery.receivedAt + windowMs);
    expect(third.receivedAt).toBeGreaterThanOrEqual(third.timestamp + ABSENCE_CLAIM_LEASE_MS);
    expect(third.receivedAt).toBeLessThanOrEqual(kill.blockedAt + ABSENCE_CLAIM_LEASE_MS + ABSENCE_LATENESS_MS);

    // The positive marker: the next match's recovery. Every absence alert due has arrived by then.
    const beat3 = await heartbeat(3);
    const deliveries = (await listDeliveries(api.url, app.appId, auth)).filter((d) => d.ruleId === rule.id);
    const note = `absence lateness ms: ${[first, second, third].map(lateness).join(', ')}; killed claimer pid ${kill.killedPid} (${kill.orphans} orphaned sessions ended)`;
    console.log(`stateful-rules-crash: ${note}`);
    await annotate(note);

    // Silences 1 and 2 (two workers alive, none killed) alerted within the bound of their deadline.
    expect(lateness(first)).toBeGreaterThanOrEqual(0);
    expect(lateness(first)).toBeLessThanOrEqual(ABSENCE_LATENESS_MS);
    expect(lateness(second)).toBeGreaterThanOrEqual(0);
    expect(lateness(second)).toBeLessThanOrEqual(ABSENCE_LATENESS_MS);

    // Exactly one alert per silence and one recovery per return, each its own delivery.
    const all = app.alerts(rule.id);
    expect(all.map((a) => a.kind)).toEqual(['absence', 'recovered', 'absence', 'recovered', 'absence', 'recovered']);
    for (const a of absences()) {
      expect({ level: a.level, count: a.count, windowSeconds: a.windowSeconds, group: a.group, customerId: a.customerId }).toEqual({
        level: 'warning',
        count: null,
        windowSeconds: ABSENCE_WINDOW_S,
        group: null,
        customerId: null,
      });
      // One id per (rule, deadline): a silence taken over after a crash is the same alert.
      expect(a.eventId).toBe(absenceAlertId(rule.id, a.timestamp));
    }
    expect(recoveries().map((a) => a.eventId)).toEqual([beat1.id, beat2.id, beat3.id]);
    expect(new Set(all.map((a) => a.webhookId)).size).toBe(6);
    expect(deliveries).toHaveLength(6);
    expect(deliveries.filter((d) => d.status !== 'succeeded' || d.attempts !== 1)).toEqual([]);
    expect(new Set(deliveries.map((d) => d.id))).toEqual(new Set(all.map((a) => a.webhookId)));
    // Three silences are three triggers; recoveries are not triggers.
    expect((await app.readRule(rule.id)).triggerCount).toBe(3);
  }, 150_000);
});
