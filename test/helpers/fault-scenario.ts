import { expect, onTestFinished } from 'vitest';
import { generateClientSecret } from '../../src/domain/credentials.js';
import { CONCURRENT_ATTEMPTS } from '../../src/pipeline/delivery-worker.js';
import { listDeliveries, readEventsByTime, type ListedEvent } from './cluster-reads.js';
import { isolatedDistributedEnv, type IsolatedDistributedEnv } from './distributed-env.js';
import { laggingPartitions } from './kafka.js';
import { parseMetrics } from './prometheus-text.js';
import { startHttpReceiver, type ReceivedRequest } from './receivers.js';
import { problemReport, startService, waitFor, type ServiceProcess } from './service-process.js';
import { startSteadyLoad, type LoadSummary, type SentRequest, type SteadyLoad } from './steady-load.js';

/**
 * The distributed layout under a steady load with an alerting rule, for the fault tests (the single
 * stack's test/integration/cluster-faults.test.ts and the local cluster's test/cluster/): api and worker
 * processes, an app whose rule matches a known share of the events and alerts a webhook receiver, the
 * load, and, once the faults are over, the checks that nothing was lost or repeated, read through the
 * public API: every event that got a 202 is stored, none twice; the rule counted one trigger per stored
 * matching event (an event whose request got a 503 may be stored too, when Kafka wrote it but did not
 * acknowledge in time: it counts like any other); each of those triggers reached the receiver under one
 * webhook-id; a webhook-id arrives again only for an attempt whose outcome its worker never learned (a
 * killed worker cuts off at most CONCURRENT_ATTEMPTS, made again once their lease runs out; a timed-out
 * attempt is retried); every delivery ends succeeded.
 */

export const EVENT_NAME = 'order.placed';
/** Every MATCH_EVERY-th event is an error, which the rule matches. */
export const MATCH_EVERY = 10;
/**
 * Enough requests in flight to keep the pace while answers are slow: at 100 requests/s, answers held
 * for a few seconds (the first produce calls after a broker went away) hold a few hundred requests.
 */
export const MAX_IN_FLIGHT = 1_000;
/**
 * The longest an ingest answer may take, faults included. A request waits for at most the produce
 * call in flight plus its own, each bounded to 5 s by the Kafka bus (PRODUCE_TIMEOUT_MS); once the
 * breaker is open, a 503 comes at once. The load gives up at twice the bound and records status 0,
 * which fails the status check.
 */
export const ANSWER_BOUND_MS = 10_000;
/**
 * After a broker is back, how soon every api process accepts events again: its breaker lets a probe
 * through within 2 s of the last failure, and a probe that finds the broker still starting fails
 * within the 5 s produce bound, so the next one succeeds.
 */
export const RECOVERY_BOUND_MS = 10_000;
/** Retries (there should be none but lease takeovers) come quickly. */
const RETRIES = '0,200ms,500ms,1s,2s';

interface Alert {
  readonly webhookId: string;
  readonly eventId: string;
  readonly ruleId: string;
  readonly data: unknown;
}

function alertOf(request: ReceivedRequest): Alert {
  const body = JSON.parse(request.body) as { data: { ruleId: string; event: { id: string } } };
  return { webhookId: String(request.headers['webhook-id']), eventId: body.data.event.id, ruleId: body.data.ruleId, data: body.data };
}

export function tally(values: readonly number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}

export function percentiles(values: readonly number[]): { p50: number; p99: number; max: number } | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: at(0.5), p99: at(0.99), max: sorted.at(-1)! };
}

export const acceptedEvents = (sent: readonly SentRequest[]): number => sent.reduce((n, r) => n + r.ids.length, 0);

/** Events accepted per second among the requests sent in [from, to). */
export function acceptedRate(sent: readonly SentRequest[], from: number, to: number): number {
  return Math.round(acceptedEvents(sent.filter((r) => r.sentAt >= from && r.sentAt < to)) / ((to - from) / 1000));
}

/** How long a request took to be answered. */
export const answerMs = (r: SentRequest): number => r.endedAt - r.sentAt;

/** The load as it went: its pace, what was answered, how fast. */
export function loadFigures(summary: LoadSummary, batch: number): Record<string, unknown> {
  const loadSeconds = (summary.lastSentAt - summary.startedAt) / 1000;
  const accepted = acceptedEvents(summary.sent);
  return {
    loadSeconds: +loadSeconds.toFixed(1),
    requests: summary.sent.length,
    offeredPerSecond: Math.round((summary.sent.length * batch) / loadSeconds),
    skippedSlots: summary.skippedSlots,
    acceptedPerSecond: Math.round(accepted / loadSeconds),
    statuses: tally(summary.sent.map((r) => r.status)),
    accepted,
    acceptedMatching: summary.sent.reduce((n, r) => n + (r.status === 202 ? r.matching.length : 0), 0),
    answerMs: percentiles(summary.sent.map(answerMs)),
  };
}

/**
 * What clients may see of a fault: a 202 or a 503, each within `boundMs`; a 503 says when to retry, and
 * comes only between `from` (when the fault began) and `to` (when the service had recovered).
 */
export function expectOnly202Or503(sent: readonly SentRequest[], bounds: { boundMs: number; from: number; to: number }): void {
  const unavailable = sent.filter((r) => r.status === 503);
  expect(sent.filter((r) => r.status !== 202 && r.status !== 503).slice(0, 5)).toEqual([]);
  expect(sent.filter((r) => answerMs(r) > bounds.boundMs).slice(0, 5)).toEqual([]);
  expect(unavailable.filter((r) => !(Number(r.retryAfter) > 0)).slice(0, 5)).toEqual([]);
  expect(unavailable.filter((r) => r.endedAt < bounds.from || r.sentAt > bounds.to).slice(0, 5)).toEqual([]);
}

/** When each step of an outage happened (epoch milliseconds). */
export interface OutageTimes {
  readonly stopCalledAt: number;
  readonly downAt: number;
  readonly startCalledAt: number;
  readonly upAt: number;
  /** `upAt` plus the recovery bound: from then on, every request must be accepted. */
  readonly recoveredAt: number;
}

/**
 * Takes a dependency away for `downMs` while the load goes on, brings it back, and waits until every
 * api process (the load's targets, `targets` of them) accepted `requestsAfterRecovery` requests sent
 * after the recovery bound.
 */
export async function runOutage(
  running: SteadyLoad,
  outage: { stop(): Promise<void>; start(): Promise<void>; downMs: number; recoveryBoundMs: number; targets: number; requestsAfterRecovery: number },
): Promise<OutageTimes> {
  const stopCalledAt = Date.now();
  await outage.stop();
  const downAt = Date.now();
  // How long the dependency stays away is the scenario itself, not a condition to wait for.
  await new Promise((resolve) => setTimeout(resolve, outage.downMs));
  const startCalledAt = Date.now();
  await outage.start();
  const upAt = Date.now();
  const recoveredAt = upAt + outage.recoveryBoundMs;
  const acceptedAfterRecovery = (target: number): number => running.sent.filter((r) => r.target === target && r.status === 202 && r.sentAt > recoveredAt).length;
  await waitFor(
    () => Promise.resolve(Array.from({ length: outage.targets }, (_, target) => acceptedAfterRecovery(target)).every((n) => n >= outage.requestsAfterRecovery)),
    90_000,
    'every api process accepting events again',
    50,
  );
  return { stopCalledAt, downAt, startCalledAt, upAt, recoveredAt };
}

/** Delivery attempts a worker made and will retry, from its /metrics. */
async function retriedAttempts(worker: ServiceProcess): Promise<number> {
  const samples = parseMetrics(await (await fetch(`${worker.url}/metrics`)).text());
  return [...samples.values()].filter((s) => s.name === 'eas_deliveries_total' && s.labels.outcome === 'retry').reduce((n, s) => n + s.value, 0);
}

export interface FaultScenario {
  readonly isolated: IsolatedDistributedEnv;
  readonly processes: ServiceProcess[];
  readonly auth: Record<string, string>;
  /** Alert requests the receiver got so far. */
  alertsReceived(): number;
  /** Starts a service process of `role` on the scenario's settings; it is stopped when the test ends. */
  start(role: 'api' | 'worker'): Promise<ServiceProcess>;
  /**
   * Starts several at once, once the first has created the databases and topics; all are settled
   * before it returns or throws, so that a failed start leaves no started process out of the clean-up.
   */
  startAll(roles: ReadonlyArray<'api' | 'worker'>): Promise<ServiceProcess[]>;
  /** The app, its rule and its key, made through the first api process. */
  createApp(api: ServiceProcess): Promise<{ appId: string; apiKey: string; ruleId: string }>;
  /** The paced load of `eventsPerSecond` in batches of `batch` over the api processes, every MATCH_EVERY-th event matching. */
  startLoad(options: { targets: ServiceProcess[]; apiKey: string; eventsPerSecond: number; batch: number; maxInFlight: number; requestTimeoutMs: number }): SteadyLoad;
  /**
   * The layout the fault tests share: two api and two worker processes, the app and its rule, and the
   * load at `eventsPerSecond` in batches of `batch` over both api processes.
   */
  launch(load: { eventsPerSecond: number; batch: number }): Promise<{
    apis: [ServiceProcess, ServiceProcess];
    workers: [ServiceProcess, ServiceProcess];
    app: { appId: string; apiKey: string; ruleId: string };
    running: SteadyLoad;
  }>;
  /** Waits for the pipeline to drain and checks that every accepted event and alert came through once. */
  verifyDrained(options: {
    api: ServiceProcess;
    appId: string;
    ruleId: string;
    summary: LoadSummary;
    /** The workers still running, whose retried attempts may repeat an alert. */
    workers: ServiceProcess[];
    figures: Record<string, unknown>;
    label: string;
    annotate: (message: string) => Promise<unknown>;
    drainTimeoutMs?: number;
  }): Promise<void>;
}

/**
 * A scenario of its own (databases, topics, receiver), torn down when the test ends however it ends:
 * `beforeTeardown` first (to start again what the test stopped), then, on a failure, what the
 * processes complained about and which partitions a group left unconsumed.
 */
export async function faultScenario(purpose: string, beforeTeardown: () => Promise<void> = () => Promise.resolve()): Promise<FaultScenario> {
  const processes: ServiceProcess[] = [];
  const roles = new Map<ServiceProcess, string>();
  let load: SteadyLoad | undefined;
  const receiver = await startHttpReceiver();
  const isolated = await isolatedDistributedEnv(purpose);
  onTestFinished(async ({ task }) => {
    await load?.stop();
    try {
      await beforeTeardown();
      if (task.result?.state === 'fail') {
        const report = problemReport(processes.map((p) => ({ process: p, label: roles.get(p)! })), 40);
        if (report !== '') console.log(report);
        const lagging = await laggingPartitions(isolated.stack.kafkaBrokers, isolated.env.KAFKA_TOPIC_PREFIX!).catch((err: unknown) => String(err));
        console.log(`${purpose}: partitions not consumed to the end`, JSON.stringify(lagging));
      }
    } finally {
      await Promise.all(processes.map((p) => p.stop('SIGTERM')));
      await receiver.close();
      await isolated.cleanup();
    }
  });

  const secret = generateClientSecret();
  const auth = { authorization: `Bearer ${secret}` };
  const serviceEnv = { ...isolated.env, BOOTSTRAP_CLIENT_SECRET: secret, OUTBOUND_ALLOW_PRIVATE: 'true', DELIVERY_RETRY_SCHEDULE: RETRIES };
  const call = async (api: ServiceProcess, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
    const res = await fetch(`${api.url}${path}`, { method, headers: { ...auth, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: await res.json() };
  };

  const start = async (role: 'api' | 'worker'): Promise<ServiceProcess> => {
    const started = await startService(serviceEnv, [role]);
    processes.push(started);
    roles.set(started, role);
    return started;
  };

  const scenario: FaultScenario = {
    isolated,
    processes,
    auth,
    alertsReceived: () => receiver.requests.length,
    start,

    async startAll(wanted) {
      const settled = await Promise.allSettled(wanted.map(start));
      return settled.map((o) => {
        if (o.status === 'rejected') throw o.reason;
        return o.value;
      });
    },

    async createApp(api) {
      const created = await call(api, 'POST', '/v1/apps', { name: 'Faults' });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const appId = created.body.app.id as string;
      const destination = await call(api, 'POST', `/v1/apps/${appId}/destinations`, { type: 'webhook', label: 'receiver', url: `${receiver.baseUrl}/hook` });
      expect(destination.status, JSON.stringify(destination.body)).toBe(201);
      const rule = await call(api, 'POST', `/v1/apps/${appId}/notification-rules`, {
        name: 'errors',
        eventName: EVENT_NAME,
        enabled: true,
        conditions: [{ field: '$level', operator: 'equals', value: 'error' }],
        actions: [{ destinationId: destination.body.id }],
        cooldownSeconds: 0,
      });
      expect(rule.status, JSON.stringify(rule.body)).toBe(201);
      return { appId, apiKey: created.body.apiKey as string, ruleId: rule.body.id as string };
    },

    async launch({ eventsPerSecond, batch }) {
      const firstApi = await start('api');
      const [secondApi, ...workers] = (await this.startAll(['api', 'worker', 'worker'])) as [ServiceProcess, ServiceProcess, ServiceProcess];
      const app = await this.createApp(firstApi);
      const running = this.startLoad({ targets: [firstApi, secondApi], apiKey: app.apiKey, eventsPerSecond, batch, maxInFlight: MAX_IN_FLIGHT, requestTimeoutMs: 2 * ANSWER_BOUND_MS });
      return { apis: [firstApi, secondApi], workers, app, running };
    },

    startLoad(options) {
      // Request `seq` carries events (seq, 0) … (seq, batch-1): every stored event names the request it came in.
      load = startSteadyLoad({
        targets: options.targets.map((api) => api.url),
        apiKey: options.apiKey,
        eventsPerSecond: options.eventsPerSecond,
        batchSize: options.batch,
        maxInFlight: options.maxInFlight,
        requestTimeoutMs: options.requestTimeoutMs,
        batch: (seq) => {
          const matching: number[] = [];
          const events = Array.from({ length: options.batch }, (_, i) => {
            const error = (seq * options.batch + i) % MATCH_EVERY === 0;
            if (error) matching.push(i);
            return { event: EVENT_NAME, level: error ? 'error' : 'info', data: { seq, i } };
          });
          return { events, matching };
        },
      });
      return load;
    },

    async verifyDrained({ api, appId, ruleId, summary, workers, figures, label, annotate, drainTimeoutMs = 120_000 }) {
      load = undefined;
      const sent = [...summary.sent].sort((a, b) => a.seq - b.seq);
      const acceptedIds = sent.flatMap((r) => r.ids);
      const acceptedMatching = sent.flatMap((r) => r.matching.map((i) => r.ids[i]).filter((id): id is string => id !== undefined));
      expect(new Set(acceptedIds).size).toBe(acceptedIds.length);

      // Drained: every accepted event stored, the stored events the same on two reads in a row, a trigger
      // counted and an alert received for each stored matching event, and no delivery pending (the
      // attempts a kill cut off are made again only once their lease ran out).
      const drainStartedAt = Date.now();
      let stored: ListedEvent[] = [];
      let triggers = 0;
      /** What the last look saw, for the failure message should the drain never complete. */
      let progress = 'nothing read yet';
      const webhookIds = (): number => new Set(receiver.requests.map((r) => String(r.headers['webhook-id']))).size;
      await waitFor(
        async () => {
          const before = stored.length;
          stored = await readEventsByTime(api.url, appId, auth, { from: summary.startedAt - 1_000, to: Date.now() + 1_000, sliceMs: 2_000, concurrency: 6 });
          const have = new Set(stored.map((e) => e.id));
          const missing = acceptedIds.filter((id) => !have.has(id)).length;
          progress = `${stored.length} events stored (${before} on the read before), ${missing} accepted ones missing`;
          if (stored.length !== before || missing > 0) return false;
          const matching = stored.filter((e) => e.level === 'error').length;
          const ruleRead = await call(api, 'GET', `/v1/apps/${appId}/notification-rules/${ruleId}`);
          expect(ruleRead.status).toBe(200);
          triggers = ruleRead.body.triggerCount as number;
          progress += `, ${matching} matching, ${triggers} triggers, ${webhookIds()} webhook-ids received`;
          if (triggers < matching || webhookIds() < matching) return false;
          const pending = await listDeliveries(api.url, appId, auth, 'pending');
          progress += `, ${pending.length} deliveries pending`;
          return pending.length === 0;
        },
        drainTimeoutMs,
        'the pipeline to drain',
        1_000,
      ).catch((err: unknown) => {
        throw new Error(`${err instanceof Error ? err.message : String(err)}; last seen: ${progress}`, { cause: err });
      });
      const drainMs = Date.now() - drainStartedAt;

      // Stored exactly once: no id twice, every accepted id present, and each stored event one the load
      // sent (seq, i), at most once, under the id its 202 gave, or from a request that got a 503.
      const storedIds = stored.map((e) => e.id);
      const storedOnce = new Set(storedIds);
      const slotOf = (e: ListedEvent): string => `${String(e.data.seq)}:${String(e.data.i)}`;
      const acceptedIdOf = new Map<string, string>(sent.flatMap((r) => r.ids.map((id, i) => [`${r.seq}:${i}`, id] as const)));
      const statusOf = new Map(sent.map((r) => [r.seq, r.status]));
      const storedUnacknowledged = stored.filter((e) => statusOf.get(Number(e.data.seq)) !== 202);
      const storedMatching = stored.filter((e) => e.event === EVENT_NAME && e.level === 'error');
      const storedMatchingIds = new Set(storedMatching.map((e) => e.id));

      // Alerts: one webhook-id per stored matching event; repeats are the same webhook-id and alert.
      const alerts = receiver.requests.map(alertOf);
      const webhookIdsByEvent = new Map<string, Set<string>>();
      for (const a of alerts) webhookIdsByEvent.set(a.eventId, (webhookIdsByEvent.get(a.eventId) ?? new Set()).add(a.webhookId));
      const copies = new Map<string, Alert[]>();
      for (const a of alerts) copies.set(a.webhookId, [...(copies.get(a.webhookId) ?? []), a]);
      const repeated = [...copies.values()].filter((same) => same.length > 1);
      const repeats = alerts.length - copies.size;
      const deliveries = await listDeliveries(api.url, appId, auth);
      const deliveryByEvent = new Map(deliveries.map((d) => [d.eventId, d]));
      const attemptsOf = new Map(deliveries.map((d) => [d.id, d.attempts]));
      // Attempts that failed and were retried (a timeout, say), as the workers still running count them.
      const retried = (await Promise.all(workers.map(retriedAttempts))).reduce((a, b) => a + b, 0);

      Object.assign(figures, {
        drainMs,
        stored: storedIds.length,
        storedFrom503: storedUnacknowledged.length,
        duplicates: storedIds.length - storedOnce.size,
        storedMatching: storedMatching.length,
        triggers,
        alertRequests: alerts.length,
        distinctWebhookIds: copies.size,
        repeats,
        deliveries: deliveries.length,
        deliveriesWithTwoOrMoreAttempts: deliveries.filter((d) => d.attempts > 1).length,
        retriedAttempts: retried,
      });
      console.log(`${label} figures`, JSON.stringify(figures));
      await annotate(`${label} figures: ${JSON.stringify(figures)}`);

      expect(storedIds.length - storedOnce.size).toBe(0);
      expect(new Set(stored.map(slotOf)).size).toBe(stored.length);
      expect(acceptedIds.filter((id) => !storedOnce.has(id))).toEqual([]);
      expect(stored.filter((e) => acceptedIdOf.has(slotOf(e)) && acceptedIdOf.get(slotOf(e)) !== e.id)).toEqual([]);
      expect(storedUnacknowledged.filter((e) => statusOf.get(Number(e.data.seq)) !== 503)).toEqual([]);

      expect(acceptedMatching.filter((id) => !storedMatchingIds.has(id))).toEqual([]);
      expect(triggers).toBe(storedMatching.length);

      expect(alerts.filter((a) => a.ruleId !== ruleId)).toEqual([]);
      expect(new Set(webhookIdsByEvent.keys())).toEqual(storedMatchingIds);
      expect([...webhookIdsByEvent].filter(([, ids]) => ids.size !== 1)).toEqual([]);
      expect(copies.size).toBe(storedMatching.length);
      for (const same of repeated) {
        // The envelope's timestamp is the send time; the alert itself is the same. Each copy is an attempt.
        for (const copy of same.slice(1)) expect(copy.data).toEqual(same[0]!.data);
        expect(same.length).toBeLessThanOrEqual(attemptsOf.get(same[0]!.webhookId)!);
      }
      expect(repeats).toBeLessThanOrEqual(CONCURRENT_ATTEMPTS + retried);

      expect(deliveries).toHaveLength(storedMatching.length);
      expect(new Set(deliveryByEvent.keys())).toEqual(storedMatchingIds);
      expect([...webhookIdsByEvent].filter(([eventId, ids]) => !ids.has(deliveryByEvent.get(eventId)!.id))).toEqual([]);
      expect(deliveries.filter((d) => d.status !== 'succeeded' || d.lastError !== null || d.ruleId !== ruleId)).toEqual([]);
    },
  };
  return scenario;
}
