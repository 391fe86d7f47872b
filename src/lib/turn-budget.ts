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
 *
 * A turn in which the server accepted a connection (`connectionAccepted()`, from the server's
 * `connection` event, which comes in the turn's poll phase, before its check phase) gets
 * `whileAcceptingMs` instead: new connections come in bursts, and while one is being taken per turn
 * more are likely waiting behind it. A larger budget lets requests share work (a Kafka produce call)
 * while the process only serves connections it already holds; a burst of new ones then drains at
 * the pace of short turns. A turn without an accept returns to `budgetMs`: libuv accepts whenever a
 * connection is waiting, so a turn without one means none was.
 */
export class TurnBudget {
  readonly #budgetMs: number;
  readonly #whileAcceptingMs: number;
  /** This turn's budget: `budgetMs`, or `whileAcceptingMs` when the turn accepted a connection. */
  #turnBudgetMs: number;
  #accepted = false;
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
      this.#turnBudgetMs = this.#accepted ? this.#whileAcceptingMs : this.#budgetMs;
      this.#accepted = false;
      // An immediate set during the check phase runs in the next turn's, ahead of the callers carried
      // over below: the next turn starts with its own budget.
      setImmediate(this.#endTurn);
    } else if (now - this.#turnStartedAt >= this.#turnBudgetMs) {
      setImmediate(this.#admit, resolve);
      return;
    }
    resolve();
  };

  constructor(budgetMs: number, options: { readonly whileAcceptingMs?: number } = {}) {
    this.#budgetMs = budgetMs;
    this.#whileAcceptingMs = Math.min(budgetMs, options.whileAcceptingMs ?? budgetMs);
    this.#turnBudgetMs = budgetMs;
  }

  /** The server accepted a connection in this turn: more may be waiting, so this turn is kept short. */
  connectionAccepted(): void {
    this.#accepted = true;
  }

  /** Resolves once this caller may run its share of work: in this turn's check phase, or a later turn's. */
  next(): Promise<void> {
    return new Promise((resolve) => setImmediate(this.#admit, resolve));
  }
}
