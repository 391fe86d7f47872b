/**
 * One call made on behalf of many concurrent callers. A caller joins the call being gathered; that
 * call goes out once the current turn's callers have joined if none is in flight, else as soon as the
 * one in flight returns. So every caller is answered by a call sent after it asked (never by an
 * answer from before), an idle process adds no delay, and under load one call serves a round trip's
 * worth of callers instead of one command each: the per-command CPU (the client's command object,
 * its promise, the reply's parsing) is what the edge saves (bench/NOTES.md).
 */
export class GatheredCalls<I, R> {
  readonly #send: (items: readonly I[]) => Promise<readonly R[]>;
  readonly #schedule: (flush: () => void) => void;
  #next: Gathering<I, R> | undefined;
  #inFlight = false;

  /**
   * `send` answers every gathered item, in order. `gather`: how long a call waits for callers to
   * join before it goes out: until the current callback's microtasks ran (the default), or until the
   * event loop's turn ends (setImmediate), for a `send` that answers at once and would otherwise serve
   * one caller per call.
   */
  constructor(send: (items: readonly I[]) => Promise<readonly R[]>, options: { gather?: 'microtask' | 'turn' } = {}) {
    this.#send = send;
    this.#schedule = options.gather === 'turn' ? (flush) => void setImmediate(flush) : queueMicrotask;
  }

  call(item: I): Promise<R> {
    let gathering = this.#next;
    if (!gathering) {
      gathering = this.#next = gather<I, R>();
      if (!this.#inFlight) this.#schedule(() => this.#flush());
    }
    const index = gathering.items.push(item) - 1;
    return gathering.answers.then((answers) => answers[index]!);
  }

  #flush(): void {
    const gathering = this.#next;
    if (!gathering) return;
    this.#next = undefined;
    this.#inFlight = true;
    // A synchronous throw of `send` becomes a rejection like any other.
    Promise.resolve()
      .then(() => this.#send(gathering.items))
      .then(gathering.resolve, gathering.reject)
      .finally(() => {
        this.#inFlight = false;
        if (this.#next) this.#schedule(() => this.#flush());
      });
  }
}

interface Gathering<I, R> {
  readonly items: I[];
  readonly answers: Promise<readonly R[]>;
  readonly resolve: (answers: readonly R[]) => void;
  readonly reject: (error: unknown) => void;
}

function gather<I, R>(): Gathering<I, R> {
  let resolve!: Gathering<I, R>['resolve'];
  let reject!: Gathering<I, R>['reject'];
  const answers = new Promise<readonly R[]>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Callers attach their own handlers; this one only keeps a failure nobody waits for from being unhandled.
  answers.catch(() => undefined);
  return { items: [], answers, resolve, reject };
}
