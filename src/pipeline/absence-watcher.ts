import { v5 as uuidv5 } from 'uuid';
import type { DueAbsence, StateStore } from '../ports/state-store.js';
import type { Logger } from '../observability/logger.js';
import { absenceAlert } from '../domain/rule-alerts.js';
import type { AppRuleSet } from '../services/rule-set-cache.js';
import type { DeliveryQueue, NewDeliveryJob } from './delivery-queue.js';
import { jobsOf } from './steps/evaluate-rules.js';

/** How often the state store is asked for passed deadlines: an absence alert is late by at most this. */
const POLL_INTERVAL_MS = 250;
/**
 * How long a claimed silence is this worker's to alert on. Longer than creating its deliveries can
 * take; when the worker dies first, another one claims the silence again after this.
 */
const CLAIM_LEASE_MS = 30_000;
const CLAIMS_PER_POLL = 100;
/** Names the ids of absence alerts: one per (rule, deadline), the same in every process. */
const ABSENCE_ID_NAMESPACE = 'a6f1b1e2-5c33-4f7e-9d0a-2b8f6c1e4d77';

export interface AbsenceWatcherDeps {
  readonly state: Pick<StateStore, 'claimDueAbsences' | 'completeAbsence' | 'disarmAbsence'>;
  readonly ruleSets: { forApp(appId: string): Promise<AppRuleSet> };
  readonly deliveries: DeliveryQueue;
  readonly logger: Logger;
  readonly now?: () => number;
  readonly onAlert?: (outcome: 'sent' | 'suppressed') => void;
}

/**
 * Sends the alerts of absence rules: every worker polls the state store for rules whose deadline
 * passed (StateStore.claimDueAbsences hands each silence to one worker), creates the deliveries of
 * that silence and completes the claim. The delivery's event id is derived from the rule and the
 * deadline, so a claim taken over after a crash re-creates the same deliveries, not new ones: one
 * alert per silence whatever the number of workers and crashes.
 */
export class AbsenceWatcher {
  readonly #deps: AbsenceWatcherDeps;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  #polling: Promise<void> | undefined;

  constructor(deps: AbsenceWatcherDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  start(): void {
    this.#timer = setInterval(() => {
      this.#polling ??= this.poll()
        .catch((err: unknown) => this.#deps.logger.warn({ err }, 'absence check failed; retrying'))
        .finally(() => (this.#polling = undefined));
    }, POLL_INTERVAL_MS);
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#polling;
  }

  /**
   * One round: claims what is due and alerts on it. The deliveries of every claim of the round are
   * created in one call (one transaction, one produce), then each claim is completed: a round of many
   * silences at once (rules created together share their deadlines) costs one write, not one per
   * rule. A claim is completed only once its deliveries are durable; when creating them fails, every
   * claim of the round is taken again after its lease. Exposed for tests.
   */
  async poll(): Promise<void> {
    const claims = await this.#deps.state.claimDueAbsences(this.#now(), CLAIM_LEASE_MS, CLAIMS_PER_POLL);
    const nowMs = this.#now();
    // A claim whose rule could not be looked up is left to its lease; the others go on.
    const looked = await Promise.allSettled(claims.map((claim) => this.#alertOf(claim, nowMs)));
    const alerts = looked.flatMap((result) => (result.status === 'fulfilled' && result.value !== undefined ? [result.value] : []));
    const jobs = alerts.flatMap((alert) => alert.jobs);
    if (jobs.length > 0) await this.#deps.deliveries.enqueue(jobs);
    await Promise.all(
      alerts.map(async ({ claim, suppressed }) => {
        if (await this.#deps.state.completeAbsence(claim, suppressed, nowMs)) {
          this.#deps.logger.debug({ appId: claim.appId, ruleId: claim.ruleId, deadline: new Date(claim.deadlineMs).toISOString(), suppressed }, 'absence rule triggered');
          this.#deps.onAlert?.(suppressed ? 'suppressed' : 'sent');
        }
      }),
    );
    const failed = looked.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /** The claim's deliveries (none while its rule is snoozed), or nothing when its rule no longer watches for silence. */
  async #alertOf(claim: DueAbsence, nowMs: number): Promise<{ claim: DueAbsence; suppressed: boolean; jobs: NewDeliveryJob[] } | undefined> {
    const ruleSet = await this.#deps.ruleSets.forApp(claim.appId);
    const rule = ruleSet.rulesById.get(claim.ruleId);
    if (!rule || rule.trigger.type !== 'absence') {
      // Deleted, disabled or changed since its clock started (the rules service disarms those; this
      // covers a race with it): no alert for a rule that no longer watches for silence. Logged, since it
      // is also what a deadline of another installation sharing the Redis (and its key prefix) looks like.
      this.#deps.logger.info({ appId: claim.appId, ruleId: claim.ruleId }, 'absence deadline of a rule that no longer watches for silence dropped');
      await this.#deps.state.disarmAbsence(claim.ruleId);
      return undefined;
    }
    const suppressed = rule.snoozedUntilMs > nowMs;
    const jobs = suppressed ? [] : jobsOf(rule, absenceAlert(ruleSet, rule, absenceAlertId(rule.id, claim.deadlineMs), claim.deadlineMs));
    return { claim, suppressed, jobs };
  }
}

/** The id an absence alert's deliveries are recorded under. */
export function absenceAlertId(ruleId: string, deadlineMs: number): string {
  return uuidv5(`${ruleId}:${deadlineMs}`, ABSENCE_ID_NAMESPACE);
}
