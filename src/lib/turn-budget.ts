/**
 * Keeps the event loop's turns short while CPU-heavy request work queues up, by letting that work
 * start only while the current turn has time left.
 *
 * Why it matters: libuv accepts one connection per turn of the loop (it relies on short turns rather
 * than accepting in a loop). When a saturated process parses, validates and encodes every request that
 * arrived in the same turn, a turn lasts tens of milliseconds and a burst of new connections (a load
 * balancer reconnecting, a fleet of clients restarting, a browser opening the dashboard) waits one
 * turn per connection before its first request is even read: seconds, while the connections already
 * open are answered in a fraction of that.
 *
 * `next()` resolves in the check phase (setImmediate) of the current turn while no more than
 * `budgetMs` of it went to work admitted this way; a caller that finds the budget spent is carried to
 * the next turn, in the order callers arrived. What a caller does after its promise resolves (until
 * its next wait on I/O) is what the budget counts: each admission is timed up to the next one.
 */
export class TurnBudget {
  readonly #budgetMs: number;
  #turnStartedAt = 0;
  #inTurn = false;
  readonly #endTurn = (): void => {
    this.#inTurn = false;
  };
  readonly #admit = (resolve: () => void): void => {
    const now = performance.now();
    if (!this.#inTurn) {
      this.#inTurn = true;
      this.#turnStartedAt = now;
      // An immediate set during the check phase runs in the next turn's, ahead of the callers carried
      // over below: the next turn starts with its own budget.
      setImmediate(this.#endTurn);
    } else if (now - this.#turnStartedAt >= this.#budgetMs) {
      setImmediate(this.#admit, resolve);
      return;
    }
    resolve();
  };

  constructor(budgetMs: number) {
    this.#budgetMs = budgetMs;
  }

  /** Resolves once this caller may run its share of work: in this turn's check phase, or a later turn's. */
  next(): Promise<void> {
    return new Promise((resolve) => setImmediate(this.#admit, resolve));
  }
}
