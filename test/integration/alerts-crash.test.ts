import { describe, expect, it, onTestFinished } from 'vitest';
import { generateClientSecret } from '../../src/domain/credentials.js';
import { CONCURRENT_ATTEMPTS } from '../../src/pipeline/delivery-worker.js';
import { isolatedDistributedEnv } from '../helpers/distributed-env.js';
import { startHttpReceiver, type ReceivedRequest } from '../helpers/receivers.js';
import { startService, waitFor, type ServiceProcess } from '../helpers/service-process.js';

/**
 * In distributed mode, SIGKILL of a worker during a burst of matching events: every alert is
 * delivered, none twice. Real `api` and `worker` processes, a real webhook receiver on loopback, and
 * a worker killed with no chance to commit, record an attempt or say goodbye.
 *
 * "None twice" has one documented exception: an attempt the receiver got but the killed worker never
 * recorded is made again once its claim's lease (LEASE_MS, 60 s, in delivery-worker.ts) runs out,
 * under the same webhook-id, which Standard Webhooks receivers deduplicate on. So the test allows
 * repeated requests only under one webhook-id per event, only for deliveries whose recorded attempts
 * show one the kill cut off (`abandoned`), and no more such attempts than one worker can have in
 * flight.
 *
 * On a loaded machine an attempt can also fail without the kill (a connection dropped before the
 * receiver read the request); the worker retries it like any failure, under the same webhook-id. Such
 * an attempt is allowed only as a recorded, retriable transport failure that a later attempt made
 * good, and the annotation lists them: an alert the receiver got twice because of one still fails.
 */

const EVENTS = 2_000;
const BATCH = 20;
/** The worker dies when the receiver gets this alert: well into the burst, far from its end. */
const KILL_AT = 150;
/** Retries (there should be none but the lease takeovers) come quickly. */
const RETRIES = '0,200ms,500ms,1s,2s';
/** Attempts one worker can have in flight, so at most this many can be cut off by one kill. */
const MAX_IN_FLIGHT_PER_WORKER = CONCURRENT_ATTEMPTS;

interface Alert {
  readonly webhookId: string;
  readonly eventId: string;
  readonly ruleId: string;
  readonly body: string;
}

interface Delivery {
  id: string;
  ruleId: string;
  destinationId: string;
  eventId: string;
  status: string;
  attempts: number;
  lastError: string | null;
}

/** One attempt as a delivery's detail view lists it. */
interface Attempt {
  number: number;
  outcome: 'in_progress' | 'succeeded' | 'failed' | 'abandoned';
  error?: string;
}

function alertOf(request: ReceivedRequest): Alert {
  const body = JSON.parse(request.body) as { data: { ruleId: string; event: { id: string } } };
  return { webhookId: String(request.headers['webhook-id']), eventId: body.data.event.id, ruleId: body.data.ruleId, body: request.body };
}

describe('alerts when a worker is killed mid-burst (distributed)', () => {
  it('delivers an alert for every event, each under one webhook-id, repeated only for attempts the kill cut off', async ({ annotate }) => {
    // Set once the first worker runs; the receiver calls it on every request it records.
    let onAlert: (received: number) => void = () => undefined;
    const receiver = await startHttpReceiver(() => {
      onAlert(receiver.requests.length);
      return { status: 200, body: 'ok' };
    });
    const isolated = await isolatedDistributedEnv('alerts_kill');
    const processes: ServiceProcess[] = [];
    // Not a `finally`: this also runs when the test times out, while its body may still be waiting.
    onTestFinished(async () => {
      for (const p of processes) await p.stop('SIGTERM');
      await receiver.close();
      await isolated.cleanup();
    });
    const secret = generateClientSecret();
    const serviceEnv = { ...isolated.env, BOOTSTRAP_CLIENT_SECRET: secret, OUTBOUND_ALLOW_PRIVATE: 'true', DELIVERY_RETRY_SCHEDULE: RETRIES };

    const apiProcess = await startService(serviceEnv, ['api']);
    processes.push(apiProcess);
    const firstWorker = await startService(serviceEnv, ['worker']);
    processes.push(firstWorker);

    const auth = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = auth) => {
      const res = await fetch(`${apiProcess.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as any };
    };
    const created = await call('POST', '/v1/apps', { name: 'Crash' });
    expect(created.status).toBe(201);
    const appId = created.body.app.id as string;
    const apiKey = created.body.apiKey as string;
    const destination = await call('POST', `/v1/apps/${appId}/destinations`, { type: 'webhook', label: 'receiver', url: `${receiver.baseUrl}/hook` });
    expect(destination.status, JSON.stringify(destination.body)).toBe(201);
    const rule = await call('POST', `/v1/apps/${appId}/notification-rules`, {
      name: 'every crash',
      eventName: 'crash.burst',
      enabled: true,
      conditions: [],
      actions: [{ destinationId: destination.body.id }],
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(201);
    const ruleId = rule.body.id as string;

    const listDeliveries = async (): Promise<Delivery[]> => {
      const all: Delivery[] = [];
      let cursor: string | null = null;
      do {
        const page = await call('GET', `/v1/apps/${appId}/deliveries?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        expect(page.status).toBe(200);
        all.push(...(page.body.items as Delivery[]));
        cursor = page.body.nextCursor as string | null;
      } while (cursor);
      return all;
    };

    let acceptedSoFar = 0;
    /** Ingests events `from` to `to` of the burst, `lanes` batches at a time; their accepted ids in order. */
    const ingest = async (from: number, to: number, lanes: number): Promise<string[]> => {
      const batches = Array.from({ length: (to - from) / BATCH }, (_, b) =>
        Array.from({ length: BATCH }, (_, n) => ({ event: 'crash.burst', level: 'error', data: { n: from + b * BATCH + n } })),
      );
      const ids: string[][] = [];
      let next = 0;
      const lane = async (): Promise<void> => {
        while (next < batches.length) {
          const i = next++;
          const res = await call('POST', '/v1/ingest', batches[i], { 'x-api-key': apiKey, 'content-type': 'application/json' });
          expect(res.status, JSON.stringify(res.body)).toBe(202);
          ids[i] = (res.body.events as Array<{ id: string }>).map((e) => e.id);
          acceptedSoFar += BATCH;
        }
      };
      await Promise.all(Array.from({ length: lanes }, lane));
      return ids.flat();
    };

    // Killed from inside the receiver while it holds the KILL_AT-th request: that attempt (and any
    // other in flight) reached the receiver, but its worker never learns the answer.
    let receivedAtKill = 0;
    let acceptedAtKill = 0;
    onAlert = (received) => {
      if (received < KILL_AT || receivedAtKill > 0) return;
      receivedAtKill = received;
      acceptedAtKill = acceptedSoFar;
      firstWorker.child.kill('SIGKILL');
    };

    // The burst spans the alerts: half of it at once, the rest streamed from the first alert on, so
    // the worker is usually still storing and evaluating events, not only sending alerts, when it
    // dies (the annotation says how far it got). What the dead worker left is the next worker's.
    const firstHalf = await ingest(0, EVENTS / 2, EVENTS / 2 / BATCH);
    await waitFor(() => Promise.resolve(receiver.requests.length > 0), 60_000, 'the first alert', 20);
    const [secondHalf] = await Promise.all([ingest(EVENTS / 2, EVENTS, 1), waitFor(() => Promise.resolve(receivedAtKill > 0), 60_000, `alert ${KILL_AT}`, 20)]);
    const accepted = [...firstHalf, ...secondHalf];
    expect(new Set(accepted).size).toBe(EVENTS);

    expect(await firstWorker.stop('SIGKILL')).toBe('SIGKILL');
    const triggersAtKill = (await call('GET', `/v1/apps/${appId}/notification-rules/${ruleId}`)).body.triggerCount as number;
    processes.push(await startService(serviceEnv, ['worker']));

    // Every event's alert, then every delivery recorded as succeeded: the attempts the kill cut off
    // are made again only after their lease, and until then their rows stay pending.
    // The receiver answers from this process: each poll parses every request once, not once per
    // event, or the poll itself would hold the receiver's answers past the worker's timeout.
    const allAlerted = (): boolean => {
      const alerted = new Set(receiver.requests.map((r) => alertOf(r).eventId));
      return accepted.every((id) => alerted.has(id));
    };
    await waitFor(() => Promise.resolve(allAlerted()), 120_000, `alerts for all ${EVENTS} events`, 500);
    let deliveries: Delivery[] = [];
    await waitFor(
      async () => {
        deliveries = await listDeliveries();
        return deliveries.length >= EVENTS && deliveries.every((d) => d.status === 'succeeded');
      },
      90_000,
      'every delivery succeeded (lease takeovers included)',
      1_000,
    );

    // One delivery per event, all succeeded (how many attempts each took is checked below).
    expect(deliveries).toHaveLength(EVENTS);
    const deliveryByEvent = new Map(deliveries.map((d) => [d.eventId, d]));
    expect(deliveryByEvent.size).toBe(EVENTS);
    expect(new Set(deliveryByEvent.keys())).toEqual(new Set(accepted));
    const odd = deliveries.filter((d) => d.ruleId !== ruleId || d.destinationId !== destination.body.id || d.status !== 'succeeded' || d.lastError !== null);
    expect(odd).toEqual([]);

    // The deliveries that took more than one attempt, with their attempts in order. Each ends in the
    // success; before it, at most one attempt the kill cut off (abandoned: its lease ran out) and
    // transport failures the worker retried.
    const retried = new Map<string, Attempt[]>();
    for (const d of deliveries.filter(({ attempts }) => attempts > 1)) {
      const detail = await call('GET', `/v1/apps/${appId}/deliveries/${d.id}`);
      expect(detail.status).toBe(200);
      retried.set(d.id, detail.body.attempts as Attempt[]);
    }
    const earlier = [...retried].flatMap(([id, attempts]) => attempts.slice(0, -1).map((attempt) => ({ id, ...attempt })));
    const unexpected = [...retried].filter(
      ([, attempts]) => attempts.at(-1)?.outcome !== 'succeeded' || attempts.filter(({ outcome }) => outcome === 'abandoned').length > 1,
    );
    expect(unexpected).toEqual([]);
    const abandoned = earlier.filter(({ outcome }) => outcome === 'abandoned');
    const failed = earlier.filter(({ outcome }) => outcome === 'failed');
    expect(earlier.filter(({ outcome }) => outcome !== 'abandoned' && outcome !== 'failed')).toEqual([]);
    // A failed attempt here is one the receiver never answered: it answers every request with 200.
    expect(failed.filter(({ error }) => !/request failed|no response in time/.test(error ?? ''))).toEqual([]);
    expect(abandoned.length).toBeGreaterThanOrEqual(1);
    expect(abandoned.length).toBeLessThanOrEqual(MAX_IN_FLIGHT_PER_WORKER);

    // Every alert is for an accepted event of this rule, and each event's alerts carry one
    // webhook-id: its delivery's id.
    const alerts = receiver.requests.map(alertOf);
    expect(new Set(alerts.map((a) => a.eventId))).toEqual(new Set(accepted));
    expect(alerts.filter((a) => a.ruleId !== ruleId)).toEqual([]);
    const idsByEvent = new Map<string, Set<string>>();
    for (const a of alerts) idsByEvent.set(a.eventId, (idsByEvent.get(a.eventId) ?? new Set()).add(a.webhookId));
    expect([...idsByEvent].filter(([, ids]) => ids.size !== 1)).toEqual([]);
    expect([...idsByEvent].filter(([eventId, ids]) => !ids.has(deliveryByEvent.get(eventId)!.id))).toEqual([]);

    // Repeats: the same webhook-id and alert twice, never three times, only for a delivery with an
    // attempt the kill cut off, and so no more than one worker had in flight.
    const byWebhookId = new Map<string, Alert[]>();
    for (const a of alerts) byWebhookId.set(a.webhookId, [...(byWebhookId.get(a.webhookId) ?? []), a]);
    const repeated = [...byWebhookId.values()].filter((same) => same.length > 1);
    const cutOff = new Set(abandoned.map(({ id }) => id));
    for (const same of repeated) {
      expect(same).toHaveLength(2);
      // The envelope's timestamp is the send time; the alert itself is the same.
      expect(JSON.parse(same[1]!.body).data).toEqual(JSON.parse(same[0]!.body).data);
      expect(cutOff.has(same[0]!.webhookId), `${same[0]!.webhookId} was sent twice: ${JSON.stringify(retried.get(same[0]!.webhookId))}`).toBe(true);
    }
    // The request that triggered the kill was answered only after its worker was gone.
    expect(repeated.length).toBeGreaterThanOrEqual(1);
    expect(repeated.length).toBeLessThanOrEqual(abandoned.length);
    expect(receiver.requests.length).toBe(EVENTS + repeated.length);

    // The trigger was counted once per event, across the kill and the redelivered events.
    expect((await call('GET', `/v1/apps/${appId}/notification-rules/${ruleId}`)).body.triggerCount).toBe(EVENTS);

    await annotate(
      `killed at alert ${receivedAtKill}, with ${acceptedAtKill} events accepted and ${triggersAtKill} triggers counted; ` +
        `${abandoned.length} deliveries taken over after the lease, ${repeated.length} repeated requests; ` +
        `${failed.length} attempts failed and were retried${failed.length > 0 ? ` (${[...new Set(failed.map(({ error }) => error))].join('; ')})` : ''}`,
    );
    // Setup, the burst, then a lease (60 s) before the cut-off attempts are taken over.
  }, 180_000);
});
