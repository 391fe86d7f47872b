import { describe, expect, it } from 'vitest';
import {
  ANSWER_BOUND_MS,
  RECOVERY_BOUND_MS,
  acceptedEvents,
  acceptedRate,
  answerMs,
  expectOnly202Or503,
  faultScenario,
  loadFigures,
  percentiles,
  runOutage,
  tally,
} from '../helpers/fault-scenario.js';
import { waitFor } from '../helpers/service-process.js';
import { stackControl } from '../helpers/stack-control.js';

/**
 * The distributed layout under faults, with real processes on the local stack: two api processes
 * behind a steady ingest load, two workers, a rule that matches a known share of the events and
 * alerts a webhook receiver. While the load runs, one worker is killed with SIGKILL, a third worker
 * joins, and Kafka's broker is stopped for OUTAGE_MS and started again.
 *
 * What must hold afterwards is test/helpers/fault-scenario.ts's: every accepted event stored once, every
 * matching one alerted once, every delivery succeeded.
 *
 * It stops the shared broker, so it relies on the integration project running files one at a time
 * (vitest.config.ts), and it starts the broker again whatever happens.
 */

const EVENTS_PER_SECOND = 2_000;
const BATCH = 20;
const OUTAGE_MS = 10_000;
/** Requests each api process must accept past the recovery bound before the load stops: 5 s of load. */
const REQUESTS_AFTER_RECOVERY = 250;
/** Progress marks that put the faults mid-stream, with events stored and alerts sent steadily. */
const ACCEPTED_BEFORE_KILL = 10_000;
const ALERTS_BEFORE_KILL = 500;
const ACCEPTED_BEFORE_OUTAGE = 8_000;

describe('a cluster of api and worker processes under faults (distributed)', () => {
  it('keeps every accepted event and alert through a worker kill, a new worker and a Kafka outage', async ({ annotate }) => {
    let kafkaStopped = false;
    // Kafka is started again before anything that needs it, also when the test fails or times out.
    const scenario = await faultScenario('cluster_faults', async () => {
      if (kafkaStopped) await stackControl('up', 'kafka');
    });
    const {
      apis: [firstApi],
      workers: [doomedWorker, survivingWorker],
      app,
      running,
    } = await scenario.launch({ eventsPerSecond: EVENTS_PER_SECOND, batch: BATCH });
    const acceptedAtLeast = (mark: number) => (): Promise<boolean> => Promise.resolve(acceptedEvents(running.sent) >= mark);

    // 1. A worker dies mid-stream, with no chance to commit, record an attempt or leave its groups.
    await waitFor(acceptedAtLeast(ACCEPTED_BEFORE_KILL), 60_000, `${ACCEPTED_BEFORE_KILL} events accepted`, 50);
    await waitFor(() => Promise.resolve(scenario.alertsReceived() >= ALERTS_BEFORE_KILL), 60_000, `${ALERTS_BEFORE_KILL} alerts received`, 50);
    const killedAt = Date.now();
    const atKill = { secondsIntoLoad: +((killedAt - running.startedAt) / 1000).toFixed(1), accepted: acceptedEvents(running.sent), alerts: scenario.alertsReceived() };
    expect(await doomedWorker.stop('SIGKILL')).toBe('SIGKILL');

    // 2. A third worker joins while the load goes on (it is ready once it holds partitions of both groups).
    const thirdWorker = await scenario.start('worker');
    const joinedAt = Date.now();

    // 3. Kafka's broker stops for OUTAGE_MS, then starts again; the load never pauses.
    await waitFor(acceptedAtLeast(acceptedEvents(running.sent) + ACCEPTED_BEFORE_OUTAGE), 60_000, `${ACCEPTED_BEFORE_OUTAGE} more events accepted`, 50);
    const outage = await runOutage(running, {
      stop: async () => {
        kafkaStopped = true;
        await stackControl('down', 'kafka');
      },
      start: async () => {
        await stackControl('up', 'kafka');
        kafkaStopped = false;
      },
      downMs: OUTAGE_MS,
      recoveryBoundMs: RECOVERY_BOUND_MS,
      targets: 2,
      requestsAfterRecovery: REQUESTS_AFTER_RECOVERY,
    });
    const { stopCalledAt: downCalledAt, downAt, startCalledAt: upCalledAt, upAt, recoveredAt } = outage;
    const summary = await running.stop();

    const sent = [...summary.sent].sort((a, b) => a.seq - b.seq);
    const unavailable = sent.filter((r) => r.status === 503);
    const figures: Record<string, unknown> = {
      ...loadFigures(summary, BATCH),
      acceptedPerSecondAround: {
        beforeOutage: acceptedRate(sent, summary.startedAt, downCalledAt),
        afterRecovery: acceptedRate(sent, recoveredAt, summary.lastSentAt),
      },
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
    expectOnly202Or503(sent, { boundMs: ANSWER_BOUND_MS, from: downCalledAt, to: recoveredAt });
    expect(unavailable.length).toBeGreaterThan(0);
    // The offered load kept its pace (EVENTS_PER_SECOND) through every fault.
    expect(summary.skippedSlots).toBe(0);

    await scenario.verifyDrained({ api: firstApi, ...app, summary, workers: [survivingWorker, thirdWorker], figures, label: 'cluster-faults', annotate });
    // About 100 s here: four processes starting, about a minute of load (the third worker's start and
    // the broker's stop and start take most of it), then a drain whose tail is the lease (60 s from
    // the kill) of the attempts the kill cut off. The margin is for a loaded machine.
  }, 240_000);
});
