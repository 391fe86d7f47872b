import { Router } from 'express';
import type { Logger } from '../../observability/logger.js';
import type { MetricsExposition } from '../../observability/metrics.js';
import type { ReadinessService } from '../../services/readiness.service.js';
import { errorBody } from '../error-response.js';

/** Liveness, readiness and metrics: served by every role, outside `/v1` and its auth. */
export function systemRouter(deps: { readiness: Pick<ReadinessService, 'check'>; metrics: MetricsExposition; logger: Logger }): Router {
  const router = Router();

  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get('/readyz', async (req, res) => {
    const report = await deps.readiness.check();
    if (report.ready) {
      res.json({ status: 'ready', checks: report.checks });
      return;
    }
    // The standard error body, plus which dependency failed and how; the cause is in the log.
    const causes = Object.fromEntries(Object.entries(report.causes).map(([name, err]) => [name, err instanceof Error ? err.message : String(err)]));
    deps.logger.warn({ failing: report.failing, causes }, 'not ready');
    const message = `Not ready: ${report.failing.join(', ')} unavailable`;
    res.status(503).json({ ...errorBody(503, message, req.path), status: 'unavailable', failing: report.failing, checks: report.checks });
  });

  router.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', deps.metrics.contentType);
    res.send(await deps.metrics.metrics());
  });

  return router;
}
