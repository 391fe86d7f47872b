import { describe, expect, it, onTestFinished } from 'vitest';
import { generateClientSecret } from '../../src/domain/credentials.js';
import { CONCURRENT_ATTEMPTS } from '../../src/pipeline/delivery-worker.js';
import { listDeliveries, readEventsByTime, type ListedEvent } from '../helpers/cluster-reads.js';
import { isolatedDistributedEnv } from '../helpers/distributed-env.js';
import { parseMetrics } from '../helpers/prometheus-text.js';
import { startHttpReceiver, type ReceivedRequest } from '../helpers/receivers.js';
import { laggingPartitions } from '../helpers/kafka.js';
import { problemReport, startService, waitFor, type ServiceProcess } from '../helpers/service-process.js';
import { stackControl } from '../helpers/stack-control.js';
import { startSteadyLoad, type SentRequest, type SteadyLoad } from '../helpers/steady-load.js';

/**
 * The distributed layout under faults, with real processes on the local stack: two api processes
 * behind a steady ingest load, two workers, a rule that matches a known share of the events and
 * alerts a webhook receiver. While the load runs, one worker is killed with SIGKILL, a third worker
 * joins, and Kafka's broker is stopped for OUTAGE_MS and started again.
 *
 * What must hold afterwards, read through the public API: every event that got a 202 is stored, none
 * twice; the rule counted one trigger per stored matching event (an event whose request got a 503 may
 * be stored too, when Kafka wrote it but did not acknowledge in time: it counts like any other); each
 * of those triggers reached the receiver under one webhook-id; a webhook-id arrives again only for an
 * attempt whose outcome its worker never learned (the kill cuts off at most CONCURRENT_ATTEMPTS, made
 * again once their lease runs out, see alerts-crash.test.ts; a timed-out attempt is retried); every
 * delivery ends succeeded.
 *
 * It stops the shared broker, so it relies on the integration project running files one at a time
 * (vitest.config.ts), and it starts the broker again whatever happens.
 */

const EVENTS_PER_SECOND = 2_000;
const BATCH = 20;
/**
 * Enough requests in flight to keep the pace while answers are slow: at 100 requests/s, answers held
 * for a few seconds (the first produce calls after the broker went away) hold a few hundred requests.
 */
const MAX_IN_FLIGHT = 1_000;
/** Every MATCH_EVERY-th event is an error, which the rule matches: a tenth of the load, 200 alerts/s. */
const MATCH_EVERY = 10;
const EVENT_NAME = 'order.placed';
const OUTAGE_MS = 10_000;
/**
 * The longest an ingest answer may take, outage included. A request waits for at most the produce
 * call in flight plus its own, each bounded to 5 s by the Kafka bus (PRODUCE_TIMEOUT_MS); once the
 * breaker is open, a 503 comes at once. The client gives up at twice the bound and records status 0,
 * which fails the status check.
 */
const ANSWER_BOUND_MS = 10_000;
/**
 * After `stack.sh up` returns, how soon every api process accepts events again: its breaker lets a
 * probe through within 2 s of the last failure, and a probe that finds the broker still starting fails
 * within the 5 s produce bound, so the next one succeeds.
 */
const RECOVERY_BOUND_MS = 10_000;
/** Requests each api process must accept past the recovery bound before the load stops: 5 s of load. */
const REQUESTS_AFTER_RECOVERY = 250;
/** Retries (there should be none but lease takeovers) come quickly. */
const RETRIES = '0,200ms,500ms,1s,2s';
/** Progress marks that put the faults mid-stream, with events stored and alerts sent steadily. */
const ACCEPTED_BEFORE_KILL = 10_000;
const ALERTS_BEFORE_KILL = 500;
const ACCEPTED_BEFORE_OUTAGE = 8_000;

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

function tally(values: readonly number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}

function percentiles(values: readonly number[]): { p50: number; p99: number; max: number } | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
  return { p50: at(0.5), p99: at(0.99), max: sorted.at(-1)! };
}

const acceptedEvents = (sent: readonly SentRequest[]): number => sent.reduce((n, r) => n + r.ids.length, 0);

/** Events accepted per second among the requests sent in [from, to). */
function acceptedRate(sent: readonly SentRequest[], from: number, to: number): number {
  return Math.round(acceptedEvents(sent.filter((r) => r.sentAt >= from && r.sentAt < to)) / ((to - from) / 1000));
}

/** Delivery attempts a worker made and will retry, from its /metrics. */
async function retriedAttempts(worker: ServiceProcess): Promise<number> {
  const samples = parseMetrics(await (await fetch(`${worker.url}/metrics`)).text());
  return [...samples.values()].filter((s) => s.name === 'eas_deliveries_total' && s.labels.outcome === 'retry').reduce((n, s) => n + s.value, 0);
}

describe('a cluster of api and worker processes under faults (distributed)', () => {
  it('keeps every accepted event and alert through a worker kill, a new worker and a Kafka outage', async ({ annotate }) => {
    const processes: ServiceProcess[] = [];
    const roles = new Map<ServiceProcess, string>();
    let load: SteadyLoad | undefined;
    let kafkaStopped = false;
    const receiver = await startHttpReceiver();
    const isolated = await isolatedDistributedEnv('cluster_faults');
    // Runs also when the test fails or times out: Kafka is started again before anything that needs it.
    onTestFinished(async ({ task }) => {
      await load?.stop();
      try {
        if (kafkaStopped) await stackControl('up', 'kafka');
        // A failure message says what the processes complained about, and which partitions a group
        // left unconsumed: a missing event is traced to a stalled partition and its worker's log.
        if (task.result?.state === 'fail') {
          const report = problemReport(processes.map((p) => ({ process: p, label: roles.get(p)! })), 40);
          if (report !== '') console.log(report);
          const lagging = await laggingPartitions(isolated.stack.kafkaBrokers, isolated.env.KAFKA_TOPIC_PREFIX!).catch((err: unknown) => String(err));
          console.log('cluster-faults partitions not consumed to the end', JSON.stringify(lagging));
        }
      } finally {
        await Promise.all(processes.map((p) => p.stop('SIGTERM')));
        await receiver.close();
        await isolated.cleanup();
      }
    });

    const secret = generateClientSecret();
    const serviceEnv = { ...isolated.env, BOOTSTRAP_CLIENT_SECRET: secret, OUTBOUND_ALLOW_PRIVATE: 'true', DELIVERY_RETRY_SCHEDULE: RETRIES };
    const start = async (role: 'api' | 'worker'): Promise<ServiceProcess> => {
      const started = await startService(serviceEnv, [role]);
      processes.push(started);
      roles.set(started, role);
      return started;
    };
    // The first process creates the databases and topics alone; the others find them. All three are
    // settled before going on, so that a failed start leaves no started process out of the clean-up.
    const firstApi = await start('api');
    const others = await Promise.allSettled([start('api'), start('worker'), start('worker')]);
    const [secondApi, doomedWorker, survivingWorker] = others.map((o) => {
      if (o.status === 'rejected') throw o.reason;
      return o.value;
    }) as [ServiceProcess, ServiceProcess, ServiceProcess];

    const auth = { authorization: `Bearer ${secret}` };
    const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
      const res = await fetch(`${firstApi.url}${path}`, {
        method,
        headers: { ...auth, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    };
    const created = await call('POST', '/v1/apps', { name: 'Cluster' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const appId = created.body.app.id as string;
    const destination = await call('POST', `/v1/apps/${appId}/destinations`, { type: 'webhook', label: 'receiver', url: `${receiver.baseUrl}/hook` });
    expect(destination.status, JSON.stringify(destination.body)).toBe(201);
    const rule = await call('POST', `/v1/apps/${appId}/notification-rules`, {
      name: 'errors',
      eventName: EVENT_NAME,
      enabled: true,
      conditions: [{ field: '$level', operator: 'equals', value: 'error' }],
      actions: [{ destinationId: destination.body.id }],
      cooldownSeconds: 0,
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(201);
    const ruleId = rule.body.id as string;

    // Request `seq` carries events (seq, 0) … (seq, BATCH-1): every stored event names the request it came in.
    const running = startSteadyLoad({
      targets: [firstApi.url, secondApi.url],
      apiKey: created.body.apiKey as string,
      eventsPerSecond: EVENTS_PER_SECOND,
      batchSize: BATCH,
      maxInFlight: MAX_IN_FLIGHT,
      requestTimeoutMs: 2 * ANSWER_BOUND_MS,
      batch: (seq) => {
        const matching: number[] = [];
        const events = Array.from({ length: BATCH }, (_, i) => {
          const error = (seq * BATCH + i) % MATCH_EVERY === 0;
          if (error) matching.push(i);
          return { event: EVENT_NAME, level: error ? 'error' : 'info', data: { seq, i } };
        });
        return { events, matching };
      },
    });
    load = running;
    const acceptedAtLeast = (mark: number) => (): Promise<boolean> => Promise.resolve(acceptedEvents(running.sent) >= mark);

    // 1. A worker dies mid-stream, with no chance to commit, record an attempt or leave its groups.
    await waitFor(acceptedAtLeast(ACCEPTED_BEFORE_KILL), 60_000, `${ACCEPTED_BEFORE_KILL} events accepted`, 50);
    await waitFor(() => Promise.resolve(receiver.requests.length >= ALERTS_BEFORE_KILL), 60_000, `${ALERTS_BEFORE_KILL} alerts received`, 50);
    const killedAt = Date.now();
    const atKill = { secondsIntoLoad: +((killedAt - running.startedAt) / 1000).toFixed(1), accepted: acceptedEvents(running.sent), alerts: receiver.requests.length };
    expect(await doomedWorker.stop('SIGKILL')).toBe('SIGKILL');

    // 2. A third worker joins while the load goes on (it is ready once it holds partitions of both groups).
    const thirdWorker = await start('worker');
    const joinedAt = Date.now();

    // 3. Kafka's broker stops for OUTAGE_MS, then starts again; the load never pauses.
    await waitFor(acceptedAtLeast(acceptedEvents(running.sent) + ACCEPTED_BEFORE_OUTAGE), 60_000, `${ACCEPTED_BEFORE_OUTAGE} more events accepted`, 50);
    const downCalledAt = Date.now();
    kafkaStopped = true;
    await stackControl('down', 'kafka');
    const downAt = Date.now();
    // The outage's length is the scenario itself, not a condition to wait for.
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
    const upCalledAt = Date.now();
    await stackControl('up', 'kafka');
    kafkaStopped = false;
    const upAt = Date.now();
    const recoveredAt = upAt + RECOVERY_BOUND_MS;
    const acceptedAfterRecovery = (target: number): number => running.sent.filter((r) => r.target === target && r.status === 202 && r.sentAt > recoveredAt).length;
    await waitFor(
      () => Promise.resolve(acceptedAfterRecovery(0) >= REQUESTS_AFTER_RECOVERY && acceptedAfterRecovery(1) >= REQUESTS_AFTER_RECOVERY),
      90_000,
      'both api processes accepting events again',
      50,
    );
    const summary = await running.stop();
    load = undefined;

    const sent = [...summary.sent].sort((a, b) => a.seq - b.seq);
    const unavailable = sent.filter((r) => r.status === 503);
    const answerMs = (r: SentRequest): number => r.endedAt - r.sentAt;
    const acceptedIds = sent.flatMap((r) => r.ids);
    const acceptedMatching = sent.flatMap((r) => r.matching.map((i) => r.ids[i]).filter((id): id is string => id !== undefined));
    const loadSeconds = (summary.lastSentAt - summary.startedAt) / 1000;
    const figures: Record<string, unknown> = {
      loadSeconds: +loadSeconds.toFixed(1),
      requests: sent.length,
      offeredPerSecond: Math.round((sent.length * BATCH) / loadSeconds),
      skippedSlots: summary.skippedSlots,
      acceptedPerSecond: {
        overall: Math.round(acceptedIds.length / loadSeconds),
        beforeOutage: acceptedRate(sent, summary.startedAt, downCalledAt),
        afterRecovery: acceptedRate(sent, recoveredAt, summary.lastSentAt),
      },
      statuses: tally(sent.map((r) => r.status)),
      accepted: acceptedIds.length,
      acceptedMatching: acceptedMatching.length,
      answerMs: percentiles(sent.map(answerMs)),
      kill: { ...atKill, thirdWorkerReadyAfterMs: joinedAt - killedAt },
      outage: {
        brokerStopMs: downAt - downCalledAt,
        brokerDownMs: upCalledAt - downAt,
        brokerStartMs: upAt - upCalledAt,
        answers: tally(sent.filter((r) => r.endedAt >= downCalledAt && r.sentAt <= upAt).map((r) => r.status)),
        /** From the first 503's request to the last 503: the outage as clients saw it. */
        unavailableForMs: unavailable.length > 0 ? unavailable.at(-1)!.endedAt - unavailable[0]!.sentAt : 0,
        unavailableAnswerMs: percentiles(unavailable.map(answerMs)),
        unavailableUnder250Ms: unavailable.filter((r) => answerMs(r) < 250).length,
        /** Per api process, its last 503 from the moment the broker was reported up (negative: before). */
        lastUnavailableAfterUpMs: [0, 1].map((target) => Math.max(...unavailable.filter((r) => r.target === target).map((r) => r.endedAt)) - upAt),
      },
    };
    console.log('cluster-faults load', JSON.stringify(figures));

    // Only 202 and 503, each within the bound; a 503 says when to retry and comes only while Kafka is away.
    expect(sent.filter((r) => r.status !== 202 && r.status !== 503).slice(0, 5)).toEqual([]);
    expect(sent.filter((r) => answerMs(r) > ANSWER_BOUND_MS).slice(0, 5)).toEqual([]);
    expect(unavailable.filter((r) => !(Number(r.retryAfter) > 0)).slice(0, 5)).toEqual([]);
    expect(unavailable.filter((r) => r.endedAt < downCalledAt || r.sentAt > recoveredAt).slice(0, 5)).toEqual([]);
    expect(unavailable.length).toBeGreaterThan(0);
    // The offered load kept its pace (EVENTS_PER_SECOND) through every fault.
    expect(summary.skippedSlots).toBe(0);
    expect(new Set(acceptedIds).size).toBe(acceptedIds.length);

    // Drained: every accepted event stored, the stored events the same on two reads in a row, a trigger
    // counted and an alert received for each stored matching event, and no delivery pending (the
    // attempts the kill cut off are made again only once their lease ran out).
    const drainStartedAt = Date.now();
    let stored: ListedEvent[] = [];
    let triggers = 0;
    /** What the last look saw, for the failure message should the drain never complete. */
    let progress = 'nothing read yet';
    const webhookIds = (): number => new Set(receiver.requests.map((r) => String(r.headers['webhook-id']))).size;
    await waitFor(
      async () => {
        const before = stored.length;
        stored = await readEventsByTime(firstApi.url, appId, auth, { from: summary.startedAt - 1_000, to: Date.now() + 1_000, sliceMs: 2_000, concurrency: 6 });
        const have = new Set(stored.map((e) => e.id));
        const missing = acceptedIds.filter((id) => !have.has(id)).length;
        progress = `${stored.length} events stored (${before} on the read before), ${missing} accepted ones missing`;
        if (stored.length !== before || missing > 0) return false;
        const matching = stored.filter((e) => e.level === 'error').length;
        const ruleRead = await call('GET', `/v1/apps/${appId}/notification-rules/${ruleId}`);
        expect(ruleRead.status).toBe(200);
        triggers = ruleRead.body.triggerCount as number;
        progress += `, ${matching} matching, ${triggers} triggers, ${webhookIds()} webhook-ids received`;
        if (triggers < matching || webhookIds() < matching) return false;
        const pending = await listDeliveries(firstApi.url, appId, auth, 'pending');
        progress += `, ${pending.length} deliveries pending`;
        return pending.length === 0;
      },
      120_000,
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
    const deliveries = await listDeliveries(firstApi.url, appId, auth);
    const deliveryByEvent = new Map(deliveries.map((d) => [d.eventId, d]));
    const attemptsOf = new Map(deliveries.map((d) => [d.id, d.attempts]));
    // Attempts that failed and were retried (a timeout, say), as the workers still running count them.
    const retried = (await Promise.all([survivingWorker, thirdWorker].map(retriedAttempts))).reduce((a, b) => a + b, 0);

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
    console.log('cluster-faults figures', JSON.stringify(figures));
    await annotate(`cluster-faults figures: ${JSON.stringify(figures)}`);

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
    // About 100 s here: four processes starting, about a minute of load (the third worker's start and
    // the broker's stop and start take most of it), then a drain whose tail is the lease (60 s from
    // the kill) of the attempts the kill cut off. The margin is for a loaded machine.
  }, 240_000);
});
