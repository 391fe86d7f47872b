import { describe, expect, it } from 'vitest';
import { ANSWER_BOUND_MS, RECOVERY_BOUND_MS, acceptedEvents, answerMs, expectOnly202Or503, faultScenario, loadFigures, percentiles, runOutage, tally } from '../helpers/fault-scenario.js';
import { waitFor } from '../helpers/service-process.js';
import { clusterControl, type ClusterNode } from './cluster-control.js';

/**
 * The service on the local cluster: three Kafka brokers (replication factor 3, min.insync.replicas 2)
 * and ClickHouse as 2 shards × 2 replicas, reached through all four nodes. Two api and two worker
 * processes under a steady load with an alerting rule, and one node killed with SIGKILL mid-load, then
 * started again: a Kafka broker, then the ClickHouse node every process talks to first.
 *
 * - A broker: the partitions it led take no writes until the controllers make one of their in-sync
 *   replicas leader, so some requests may be answered 503 meanwhile. With one broker of three gone, a
 *   write still reaches the two replicas acks=all asks for.
 * - A ClickHouse replica: the workers' inserts and the reads fail over to the next node, and the
 *   Distributed tables write to and read from the live replica of its shard; the dead one catches up
 *   from ZooKeeper's log when it returns.
 *
 * In both, no request may be answered anything but 202 or 503, and every event that got a 202 is
 * stored once and alerted once (test/helpers/fault-scenario.ts).
 */

const EVENTS_PER_SECOND = 1_000;
const BATCH = 20;
/** Events accepted before the kill: the pipeline is busy, alerts are flowing. */
const ACCEPTED_BEFORE_KILL = 5_000;
/** How long the node stays dead while the load goes on: longer than a leader election takes. */
const DEAD_MS = 15_000;
/** Requests each api process must accept past the recovery bound before the load stops. */
const REQUESTS_AFTER_RECOVERY = 100;

const CRASHES: ReadonlyArray<{ node: ClusterNode; label: string }> = [
  { node: 'kafka-2', label: 'broker-crash' },
  { node: 'clickhouse-1', label: 'clickhouse-crash' },
];

describe('the service on the local cluster, one node killed under load (distributed)', () => {
  for (const { node, label } of CRASHES) {
    it(`keeps every accepted event and alert when ${node} crashes and comes back`, async ({ annotate }) => {
      let killed = false;
      const scenario = await faultScenario(label.replace('-', '_'), async () => {
        if (killed) await clusterControl('start', node);
      });
      const { apis, workers, app, running } = await scenario.launch({ eventsPerSecond: EVENTS_PER_SECOND, batch: BATCH });
      await waitFor(() => Promise.resolve(acceptedEvents(running.sent) >= ACCEPTED_BEFORE_KILL), 60_000, `${ACCEPTED_BEFORE_KILL} events accepted`, 50);
      const crash = await runOutage(running, {
        stop: async () => {
          killed = true;
          await clusterControl('kill', node);
        },
        start: async () => {
          await clusterControl('start', node);
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
          node,
          killMs: crash.downAt - crash.stopCalledAt,
          deadMs: crash.startCalledAt - crash.downAt,
          nodeStartMs: crash.upAt - crash.startCalledAt,
          answersWhileDead: tally(summary.sent.filter((r) => r.endedAt >= crash.stopCalledAt && r.sentAt <= crash.upAt).map((r) => r.status)),
          unavailable: unavailable.length,
          unavailableAnswerMs: percentiles(unavailable.map(answerMs)),
        },
      };
      console.log(`${label} load`, JSON.stringify(figures));

      expectOnly202Or503(summary.sent, { boundMs: ANSWER_BOUND_MS, from: crash.stopCalledAt, to: crash.recoveredAt });
      // The offered load kept its pace through the crash.
      expect(summary.skippedSlots).toBe(0);

      await scenario.verifyDrained({ api: apis[0], ...app, summary, workers, figures, label, annotate });
    }, 300_000);
  }
});
