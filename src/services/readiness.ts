import { withDeadline } from '../shared/deadline.js';

/**
 * Readiness: every dependency of this process's role answers. Each check is a named ping; they run in
 * parallel, each bounded by a timeout so that one hung dependency cannot hang the probe itself.
 */
export interface DependencyCheck {
  /** What an operator recognises: kafka, clickhouse, redis, postgres, sqlite, chdb. */
  readonly name: string;
  readonly ping: () => Promise<void>;
  /** Told each check's verdict, the timeout included (the eas_dependency_up gauge). */
  readonly observe?: (up: boolean) => void;
}

export interface ReadinessReport {
  readonly ready: boolean;
  readonly failing: string[];
  readonly checks: Record<string, { ok: true } | { ok: false; error: string }>;
}

export async function checkReadiness(checks: readonly DependencyCheck[], timeoutMs: number): Promise<ReadinessReport> {
  type Result = ReadinessReport['checks'][string];
  const results = await Promise.all(
    checks.map(async (check): Promise<[string, Result]> => {
      try {
        await withDeadline(check.ping(), timeoutMs, `${check.name} did not answer within ${timeoutMs} ms`);
        check.observe?.(true);
        return [check.name, { ok: true }];
      } catch (err) {
        check.observe?.(false);
        const error = err instanceof Error ? err.message : String(err);
        return [check.name, { ok: false, error }];
      }
    }),
  );
  const failing = results.filter(([, r]) => !r.ok).map(([name]) => name);
  return { ready: failing.length === 0, failing, checks: Object.fromEntries(results) };
}
