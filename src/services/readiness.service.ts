import { DeadlineExceeded, withDeadline } from '../lib/deadline.js';

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

/**
 * The public verdict of a failed check. The probe answers anyone who can reach the port, and a
 * driver's error text can name hosts, users, file paths or a connection URL, so it goes to the log
 * (`causes`) and the answer says only which way the check failed.
 */
export type CheckFailure = 'unreachable' | `no answer within ${number} ms`;

export interface ReadinessReport {
  readonly ready: boolean;
  readonly failing: string[];
  readonly checks: Record<string, { ok: true } | { ok: false; error: CheckFailure }>;
  /** The error of each failed check, for the log only. */
  readonly causes: Record<string, unknown>;
}

/** Probes answer fast: a dependency that has not answered within this is reported as failing. */
export const READINESS_TIMEOUT_MS = 2_500;

export class ReadinessService {
  constructor(
    private readonly checks: readonly DependencyCheck[],
    private readonly timeoutMs = READINESS_TIMEOUT_MS,
  ) {}

  async check(): Promise<ReadinessReport> {
    const { timeoutMs } = this;
    const causes: Record<string, unknown> = {};
    const results = await Promise.all(
      this.checks.map(async (check): Promise<[string, ReadinessReport['checks'][string]]> => {
        try {
          await withDeadline(check.ping(), timeoutMs, `${check.name} did not answer within ${timeoutMs} ms`);
          check.observe?.(true);
          return [check.name, { ok: true }];
        } catch (err) {
          check.observe?.(false);
          causes[check.name] = err;
          return [check.name, { ok: false, error: err instanceof DeadlineExceeded ? `no answer within ${timeoutMs} ms` : 'unreachable' }];
        }
      }),
    );
    const failing = results.filter(([, r]) => !r.ok).map(([name]) => name);
    return { ready: failing.length === 0, failing, checks: Object.fromEntries(results), causes };
  }
}
