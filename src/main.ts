#!/usr/bin/env node
import { ConfigError, loadConfigFromProcess, type Config } from './config.js';
import { createContainer } from './container.js';
import { processLogger } from './observability/logger.js';
import { mergedExposition } from './observability/metrics.js';
import { runsPipelineThread, startPipelineThread, type PipelineThread } from './pipeline-thread.js';
import { startServer } from './server.js';

/**
 * Of the shutdown budget (SHUTDOWN_TIMEOUT_MS), the share in-flight HTTP requests get to finish. The
 * rest is for the container: the produce calls those requests wait on, the consumer's batch in
 * progress (stored, evaluated, committed), the delivery attempts in progress, then the connections.
 * A request's own work is bounded well below this (a produce call gives up after 5 s).
 */
const HTTP_GRACE_SHARE = 0.6;

/** Entry point: config, container, role, signals. Everything else is built from arguments. */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfigFromProcess(process.argv.slice(2));
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\nSee .env.example for every setting and its form.\n`);
      process.exit(1);
    }
    throw err;
  }

  const logger = processLogger(config.logLevel);
  process.on('unhandledRejection', (reason) => {
    logger.fatal({ err: reason }, 'unhandled promise rejection');
    process.exit(1);
  });

  // Signals are handled from the start: one that arrives while the process is still starting (an
  // orchestrator scaling down a pod that is not ready yet) stops it as soon as the start completes,
  // within the same budget, instead of killing it half-connected with the signal's default action.
  let stopRequested = false;
  /** Set once the service runs; until then the start sequence checks `stopRequested` itself. */
  let shutdownRunning: (() => Promise<void>) | null = null;
  const stop = (shutdown: () => Promise<void>): void => {
    shutdown().then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  const onSignal = (signal: string): void => {
    if (stopRequested) return;
    stopRequested = true;
    logger.info({ signal, starting: shutdownRunning === null }, 'shutting down');
    // Whatever happens, the process is gone within the budget (SIGTERM must end in an exit within 10 s).
    const hardStop = setTimeout(() => {
      logger.error({ timeoutMs: config.shutdownTimeoutMs }, 'graceful shutdown took too long; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    hardStop.unref();
    if (shutdownRunning) stop(shutdownRunning);
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));

  // A distributed `all` process serves the API here and runs the pipeline in a thread of its own.
  const threaded = runsPipelineThread(config);
  const container = await createContainer(threaded ? { ...config, role: 'api' } : config, logger);
  let pipeline: PipelineThread | null = null;
  try {
    if (threaded && !stopRequested) pipeline = await startPipelineThread(config, logger);
  } catch (err) {
    await container.stop();
    throw err;
  }
  if (stopRequested) {
    stop(async () => {
      await Promise.all([container.stop(), pipeline?.stop()]);
    });
    return;
  }
  const server = await startServer(container, pipeline ? { exposition: mergedExposition(container.metrics, async () => [await pipeline.metrics()]) } : {});
  shutdownRunning = async () => {
    // The pipeline does not wait on the API: both stop at once, within the one budget.
    await Promise.all([server.shutdown(config.shutdownTimeoutMs * HTTP_GRACE_SHARE), pipeline?.stop()]);
  };
  logger.info({ url: server.url, mode: config.mode, role: config.role }, 'event alerting service started');
  if (stopRequested) stop(shutdownRunning);
}

main().catch((err: unknown) => {
  process.stderr.write(`Failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
