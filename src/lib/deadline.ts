/**
 * Rejects with `message` when `work` has not settled within `ms`. Used wherever a dependency may hang
 * rather than fail (a frozen broker, a half-open socket): readiness probes and producers must answer
 * in bounded time. The work itself is not cancelled; a late failure of it is swallowed, since nobody
 * waits for it any more and it must not surface as an unhandled rejection.
 */
export class DeadlineExceeded extends Error {
  override readonly name = 'DeadlineExceeded';
}

export async function withDeadline<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  work.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded(message)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** How late a timer may fire before the event loop counts as having been busy. */
const LATE_AFTER_MS = 10;

/**
 * Like withDeadline, but only time in which the process could have seen the answer counts against
 * `work`. When the timer fires, the answers that arrived while the event loop was busy are read first
 * (the verdict waits for the loop's check phase, which follows its poll phase), and when the timer
 * itself fired late, because the loop was busy running other work, the wait goes on for as long as it
 * was late, up to `maxMs` in all. On a process with time to spare, a dependency that does not answer
 * still fails after `ms`; a process too busy to read its answers no longer blames the dependency for
 * it. That difference matters where a missed deadline switches something off: the edge's rate
 * limiter fails open when its store does not answer, and a burst of requests kept its event loop busy
 * past the deadline of answers already waiting to be read.
 */
export async function withLoopDeadline<T>(work: Promise<T>, ms: number, maxMs: number, message: string): Promise<T> {
  work.catch(() => undefined);
  let done = false;
  let timer: NodeJS.Timeout | undefined;
  let check: NodeJS.Immediate | undefined;
  const deadline = new Promise<never>((_, reject) => {
    const started = performance.now();
    const wait = (delay: number) => {
      const due = performance.now() + delay;
      timer = setTimeout(() => {
        check = setImmediate(() => {
          if (done) return;
          const now = performance.now();
          const late = now - due;
          if (late > LATE_AFTER_MS && now - started < maxMs) wait(Math.min(late, maxMs - (now - started)));
          else reject(new DeadlineExceeded(message));
        });
      }, delay);
    };
    wait(ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    done = true;
    clearTimeout(timer);
    if (check !== undefined) clearImmediate(check);
  }
}
