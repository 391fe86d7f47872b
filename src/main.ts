#!/usr/bin/env node
import { ConfigError, loadConfigFromProcess, type Config } from './config.js';
import { createContainer } from './container.js';
import { createLogger } from './observability/logger.js';
import { startServer } from './server.js';

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

  const logger = createLogger({ level: config.logLevel });
  process.on('unhandledRejection', (reason) => {
    logger.fatal({ err: reason }, 'unhandled promise rejection');
    process.exit(1);
  });

  const container = await createContainer(config, logger);
  const server = await startServer(container);
  logger.info({ url: server.url, mode: config.mode, role: config.role }, 'event alerting service started');

  let shuttingDown = false;
  const shutdown = (signal: string): void => {
    if (shuttingDown) return;
    shuttingDown = true;
    logger.info({ signal }, 'shutting down');
    // Whatever happens, the process is gone within the budget (contract: exit within 10 s).
    const hardStop = setTimeout(() => {
      logger.error('graceful shutdown took too long; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    hardStop.unref();
    server.shutdown(config.shutdownTimeoutMs * 0.6).then(
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
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  process.stderr.write(`Failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
