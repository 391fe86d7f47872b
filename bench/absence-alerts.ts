import { setTimeout as delay } from 'node:timers/promises';
import type { AlertReceiver } from './alert-receiver.js';
import { fmt } from './alert-latency.js';
import { managementApi, type ManagementApi } from './management-api.js';
import { summarise } from './probe.js';
import type { AbsenceLatency } from './results.js';
import type { Target } from './targets.js';

/**
 * Absence alerts: ABSENCE.rules rules of the shortest window the API allows, created together on an
 * event name nothing sends, so that every rule's deadline passes about `windowSeconds` after it was
 * created and all of them fall due within a moment of each other (the worst case for the watcher,
 * which claims a bounded number per poll). A rule's sample is its alert's arrival at the receiver
 * (wall clock) minus the deadline the alert reports (`data.event.timestamp`, stamped by the service
 * on the same machine's clock). The API promises delivery within 2 s of the deadline, for every
 * alert: the verdict is on the largest sample.
 */
export const ABSENCE = {
  rules: 100,
  windowSeconds: 10,
  /** Waited past the last rule's latest possible deadline before its missing alerts count as timed out. */
  timeoutMs: 10_000,
  /** The rules' event name: the benchmark never sends it. */
  eventName: 'bench.silence',
} as const;

export interface AbsenceBenchOptions {
  readonly label: string;
  readonly api: ManagementApi;
  readonly receiver: AlertReceiver;
  /** The actions of every rule: the receiver's destination. */
  readonly actions: ReadonlyArray<{ destinationId: string }>;
  readonly log: (message: string) => void;
}

export async function measureAbsence(o: AbsenceBenchOptions): Promise<AbsenceLatency> {
  o.log(`${o.label}: absence, ${ABSENCE.rules} rules of ${ABSENCE.windowSeconds} s on ${ABSENCE.eventName}, which nothing sends`);
  const rules = await Promise.all(
    Array.from({ length: ABSENCE.rules }, (_, i) =>
      o.api.post<{ id: string }>('notification-rules', {
        name: `bench: silence ${i + 1}`,
        eventName: ABSENCE.eventName,
        enabled: true,
        actions: o.actions,
        trigger: { type: 'absence', windowSeconds: ABSENCE.windowSeconds },
      }),
    ),
  );
  // Every rule's clock started before its 201, so every deadline is before this plus the window.
  const giveUpAt = Date.now() + ABSENCE.windowSeconds * 1000 + ABSENCE.timeoutMs;
  const waiting = (): boolean => rules.some((r) => o.receiver.absences(r.id).length === 0);
  while (waiting() && Date.now() < giveUpAt) await delay(100);

  const firsts = rules.flatMap((r) => o.receiver.absences(r.id).slice(0, 1));
  const samples = firsts.map((a) => a.arrivedAtMs - a.deadlineMs);
  const deadlines = firsts.map((a) => a.deadlineMs);
  const result: AbsenceLatency = {
    label: o.label,
    rules: rules.length,
    windowSeconds: ABSENCE.windowSeconds,
    deadlineSpreadSeconds: deadlines.length === 0 ? null : (Math.max(...deadlines) - Math.min(...deadlines)) / 1000,
    timeoutMs: ABSENCE.timeoutMs,
    lateness: { ...summarise(samples), timedOut: rules.length - firsts.length, samplesMs: samples },
    extraAlerts: rules.reduce((n, r) => n + Math.max(0, o.receiver.absences(r.id).length - 1), 0),
  };
  const l = result.lateness;
  o.log(`${o.label}: absence alert after its deadline p50 ${fmt(l.p50)} ms p99 ${fmt(l.p99)} ms max ${fmt(l.max)} ms (${l.samples} of ${rules.length} rules, ${l.timedOut} missing)`);
  return result;
}

/** The same on a service of its own (embedded mode): its app gets a destination to the receiver first. */
export async function benchAbsence(target: Target, label: string, receiver: AlertReceiver, log: (message: string) => void): Promise<AbsenceLatency> {
  if (!target.reader) throw new Error('the absence benchmark needs a target with a management API');
  const api = managementApi(target.url, target.reader.clientSecret, target.reader.appId);
  const destination = await api.post<{ id: string }>('destinations', { type: 'webhook', label: 'bench receiver', url: receiver.url });
  return measureAbsence({ label, api, receiver, actions: [{ destinationId: destination.id }], log });
}
