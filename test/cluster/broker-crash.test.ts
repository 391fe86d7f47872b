import { describe, expect, it } from 'vitest';
import { ANSWER_BOUND_MS, RECOVERY_BOUND_MS, acceptedEvents, answerMs, expectOnly202Or503, faultScenario, loadFigures, percentiles, runOutage, tally } from '../helpers/fault-scenario.js';
import { waitFor } from '../helpers/service-process.js';
import { clusterControl } from './cluster-control.js';

/**
 * The service on the local cluster's three Kafka brokers (replication factor 3, min.insync.replicas 2;
 * ClickHouse on the cluster's first node, used as one server): two api and two worker processes under
 * a steady load with an alerting rule, and one broker killed with SIGKILL mid-load, then started again.
 *
 * The partitions the dead broker led take no writes until the controllers make one of their in-sync
 * replicas leader, so some requests may be answered 503 meanwhile; none may be answered anything else,
 * and every event that got a 202 is stored once and alerted once (test/helpers/fault-scenario.ts).
 * With one broker of three gone, a write still reaches the two replicas acks=all asks for.
 */

const EVENTS_PER_SECOND = 1_000;
const BATCH = 20;
/** Events accepted before the kill: the pipeline is busy, alerts are flowing. */
const ACCEPTED_BEFORE_KILL = 5_000;
/** How long the broker stays dead while the load goes on: longer than a leader election takes. */
const DEAD_MS = 15_000;
/** Requests each api process must accept past the recovery bound before the load stops. */
const REQUESTS_AFTER_RECOVERY = 100;

describe('the service on three Kafka brokers, one killed under load (distributed)', () => {
  it('keeps every accepted event and alert when a broker crashes and comes back', async ({ annotate }) => {
    let killed = false;
    const scenario = await faultScenario('broker_crash', async () => {
      if (killed) await clusterControl('start', 'kafka-2');
    });
    const { apis, workers, app, running } = await scenario.launch({ eventsPerSecond: EVENTS_PER_SECOND, batch: BATCH });
    await waitFor(() => Promise.resolve(acceptedEvents(running.sent) >= ACCEPTED_BEFORE_KILL), 60_000, `${ACCEPTED_BEFORE_KILL} events accepted`, 50);
    const crash = await runOutage(running, {
      stop: async () => {
        killed = true;
        await clusterControl('kill', 'kafka-2');
      },
      start: async () => {
        await clusterControl('start', 'kafka-2');
        killed = false;
      },
      downMs: DEAD_MS,
      recoveryBoundMs: RECOVERY_BOUND_MS,
      targets: 2,
      requestsAfterRecovery: REQUESTS_AFTER_RECOVERY,
    });
    const summary = await running.stop();

    const unavailable = summary.sent.filter((r) => r.status === 503);
    const figures: Record<string, unknown> = {
      ...loadFigures(summary, BATCH),
      crash: {
        killMs: crash.downAt - crash.stopCalledAt,
        deadMs: crash.startCalledAt - crash.downAt,
        brokerStartMs: crash.upAt - crash.startCalledAt,
        answersWhileDead: tally(summary.sent.filter((r) => r.endedAt >= crash.stopCalledAt && r.sentAt <= crash.upAt).map((r) => r.status)),
        unavailable: unavailable.length,
        unavailableAnswerMs: percentiles(unavailable.map(answerMs)),
      },
    };
    console.log('broker-crash load', JSON.stringify(figures));

    expectOnly202Or503(summary.sent, { boundMs: ANSWER_BOUND_MS, from: crash.stopCalledAt, to: crash.recoveredAt });
    // The offered load kept its pace through the crash.
    expect(summary.skippedSlots).toBe(0);

    await scenario.verifyDrained({ api: apis[0], ...app, summary, workers, figures, label: 'broker-crash', annotate });
  }, 300_000);
});
