import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from './config.js';
import { createContainer } from './container.js';
import { processLogger } from './observability/logger.js';
import type { FromPipeline, ToPipeline } from './pipeline-thread.js';

/**
 * The pipeline thread of a distributed `all` process (pipeline-thread.ts): the worker role's
 * container, answering the main thread's requests for its metrics and its stop. A failure to start
 * or an unhandled error ends the thread with an error, which ends the process.
 */
const port = parentPort!;
const { config } = workerData as { config: Config };
const logger = processLogger(config.logLevel, { thread: 'pipeline' });
const container = await createContainer(config, logger, { processMetrics: false });
const reply = (message: FromPipeline): void => port.postMessage(message);

port.on('message', (message: ToPipeline) => {
  if (message.type === 'metrics') {
    void container.metrics.getMetricsAsJSON().then((metrics) => reply({ type: 'metrics', id: message.id, metrics }));
  } else {
    // The thread is terminated once it says so: its last log lines are written first.
    void container.stop().then(() => logger.flush(() => reply({ type: 'stopped' })));
  }
});
reply({ type: 'started' });
