import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The webhook destination of the alerts benchmark: a node:http server on loopback in the benchmark
 * process (the service reaches it because the benchmark starts it with OUTBOUND_ALLOW_PRIVATE=true).
 * It notes when each alert arrived, by the event id in the Standard Webhooks body
 * (`data.event.id`), and answers 204 at once, so the receiver is never what a figure waits on. An
 * absence alert has no event: its `data.event.id` is the alert's own id and `data.event.timestamp`
 * the deadline that passed, which the receiver keeps with the wall-clock time of arrival (the
 * service stamps deadlines with its own Date.now(), on this machine's clock).
 * Signatures are not verified: the integration suite does that; here it would only cost CPU in
 * the process that also runs the load generator.
 *
 * An arrival time is taken when the body has been read, on the benchmark's event loop, which the load
 * generator shares: a busy loop makes a sample later, never earlier (an upper bound, like the
 * readability probe's).
 */

export interface AlertReceiver {
  /** Where the destination points. */
  readonly url: string;
  /**
   * Resolves with the performance.now() the alert for `eventId` arrived at (of rule `ruleId` when
   * given, else of any rule), or null if it has not by `deadline` (performance.now()).
   */
  arrival(eventId: string, deadline: number, ruleId?: string): Promise<number | null>;
  /** Arrival times of the alerts of one rule, in arrival order, each (rule, event) once. */
  arrivals(ruleId: string): readonly number[];
  /** The absence alerts of one rule, in arrival order. */
  absences(ruleId: string): readonly AbsenceArrival[];
  /** Requests whose body could not be read as an alert (answered 400). */
  readonly unreadable: number;
  /** Alerts for a (rule, event) that had arrived already: deliveries are at least once. */
  readonly duplicates: number;
  /** Closes the server and any connection the service kept open; safe to call twice. */
  stop(): Promise<void>;
}

export interface AbsenceArrival {
  /** Epoch milliseconds: the deadline the alert reports (`data.event.timestamp`). */
  readonly deadlineMs: number;
  /** Epoch milliseconds (Date.now()) when its body had been read. */
  readonly arrivedAtMs: number;
}

interface WebhookBody {
  readonly data?: { readonly ruleId?: unknown; readonly kind?: unknown; readonly event?: { readonly id?: unknown; readonly timestamp?: unknown } };
}

export async function startAlertReceiver(): Promise<AlertReceiver> {
  /** Event id → first arrival. A redelivered alert (at least once) keeps the first time. */
  const byEvent = new Map<string, number>();
  const byRule = new Map<string, number[]>();
  /** `${ruleId} ${eventId}` → first arrival. */
  const byRuleEvent = new Map<string, number>();
  const absences = new Map<string, AbsenceArrival[]>();
  /** Keyed by an event id, or by `${ruleId} ${eventId}` for a wait on one rule's alert. */
  const waiters = new Map<string, (at: number | null) => void>();
  let unreadable = 0;
  let duplicates = 0;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const at = performance.now();
      const wallAt = Date.now();
      let body: WebhookBody | null = null;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as WebhookBody;
      } catch {
        // Counted below with the other bodies that are not alerts.
      }
      const eventId = body?.data?.event?.id;
      const ruleId = body?.data?.ruleId;
      if (typeof eventId !== 'string' || typeof ruleId !== 'string') {
        unreadable++;
        res.writeHead(400).end();
        return;
      }
      res.writeHead(204).end();
      const key = `${ruleId} ${eventId}`;
      if (byRuleEvent.has(key)) {
        duplicates++;
        return;
      }
      byRuleEvent.set(key, at);
      waiters.get(key)?.(at);
      let times = byRule.get(ruleId);
      if (!times) byRule.set(ruleId, (times = []));
      times.push(at);
      const deadline = body?.data?.kind === 'absence' ? body.data.event?.timestamp : undefined;
      if (typeof deadline === 'string') {
        let list = absences.get(ruleId);
        if (!list) absences.set(ruleId, (list = []));
        list.push({ deadlineMs: Date.parse(deadline), arrivedAtMs: wallAt });
      }
      if (byEvent.has(eventId)) return;
      byEvent.set(eventId, at);
      waiters.get(eventId)?.(at);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  let stopping: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    get unreadable() {
      return unreadable;
    },
    get duplicates() {
      return duplicates;
    },
    arrival(eventId, deadline, ruleId) {
      const key = ruleId === undefined ? eventId : `${ruleId} ${eventId}`;
      const seen = (ruleId === undefined ? byEvent : byRuleEvent).get(key);
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise((resolve) => {
        const timer = setTimeout(() => finish(null), Math.max(0, deadline - performance.now()));
        const finish = (at: number | null): void => {
          clearTimeout(timer);
          waiters.delete(key);
          resolve(at);
        };
        waiters.set(key, finish);
      });
    },
    arrivals: (ruleId) => byRule.get(ruleId) ?? [],
    absences: (ruleId) => absences.get(ruleId) ?? [],
    stop: () =>
      (stopping ??= new Promise<void>((resolve, reject) => {
        for (const finish of waiters.values()) finish(null);
        server.close((error) => (error ? reject(error) : resolve()));
        // Keep-alive connections of the service's outbound client would hold close() open.
        server.closeAllConnections();
      })),
  };
}
