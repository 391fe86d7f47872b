import { v5 as uuidv5 } from 'uuid';
import type { DueAbsence, StateStore } from '../ports/state-store.js';
import type { Logger } from '../observability/logger.js';
import { absenceAlert } from '../domain/rule-alerts.js';
import type { AppRuleSet } from '../services/rule-set-cache.js';
import type { DeliveryQueue } from './delivery-queue.js';
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

  /** One round: claims what is due and alerts on it. Exposed for tests. */
  async poll(): Promise<void> {
    const claims = await this.#deps.state.claimDueAbsences(this.#now(), CLAIM_LEASE_MS, CLAIMS_PER_POLL);
    await Promise.all(claims.map((claim) => this.#alert(claim)));
  }

  async #alert(claim: DueAbsence): Promise<void> {
    const ruleSet = await this.#deps.ruleSets.forApp(claim.appId);
    const rule = ruleSet.rulesById.get(claim.ruleId);
    if (!rule || rule.trigger.type !== 'absence') {
      // Deleted, disabled or changed since its clock started (the rules service disarms those; this
      // covers a race with it): no alert for a rule that no longer watches for silence. Logged, since it
      // is also what a deadline of another installation sharing the Redis (and its key prefix) looks like.
      this.#deps.logger.info({ appId: claim.appId, ruleId: claim.ruleId }, 'absence deadline of a rule that no longer watches for silence dropped');
      await this.#deps.state.disarmAbsence(claim.ruleId);
      return;
    }
    const nowMs = this.#now();
    const suppressed = rule.snoozedUntilMs > nowMs;
    if (!suppressed) await this.#deps.deliveries.enqueue(jobsOf(rule, absenceAlert(ruleSet, rule, absenceAlertId(rule.id, claim.deadlineMs), claim.deadlineMs)));
    if (await this.#deps.state.completeAbsence(claim, suppressed, nowMs)) {
      this.#deps.logger.debug({ appId: claim.appId, ruleId: claim.ruleId, deadline: new Date(claim.deadlineMs).toISOString(), suppressed }, 'absence rule triggered');
      this.#deps.onAlert?.(suppressed ? 'suppressed' : 'sent');
    }
  }
}

/** The id an absence alert's deliveries are recorded under. */
export function absenceAlertId(ruleId: string, deadlineMs: number): string {
  return uuidv5(`${ruleId}:${deadlineMs}`, ABSENCE_ID_NAMESPACE);
}
