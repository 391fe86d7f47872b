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
