import { Worker } from 'node:worker_threads';
import type { Config } from './config.js';
import type { Logger } from './observability/logger.js';
import type { MetricsSnapshot } from './observability/metrics.js';

/**
 * A distributed process of role `all` runs its pipeline (the worker role: consumers, storage, rules,
 * deliveries) in a worker thread, and its API in the main thread. On one event loop the two took
 * turns: under load the edge waited behind the worker's batches and the worker fell behind the edge.
 * On two, each has a core, as in the api + worker layout, in one process to run.
 *
 * The thread builds its own container (its own connections, caches and registry). The main thread
 * serves both registries merged on `/metrics`, stops the thread within the shutdown, and ends the
 * process if the thread dies: a process whose pipeline is gone must be restarted, not kept serving.
 */
export interface PipelineThread {
  /** The thread's metrics, for the main thread's `/metrics`; none once it is stopping. */
  metrics(): Promise<MetricsSnapshot>;
  /** Stops the thread's container (the batch in progress is finished and committed) and the thread. */
  stop(): Promise<void>;
}

/** What the main thread sends to the pipeline thread. */
export type ToPipeline = { readonly type: 'metrics'; readonly id: number } | { readonly type: 'stop' };

/** What the pipeline thread sends back. */
export type FromPipeline =
  | { readonly type: 'started' }
  | { readonly type: 'metrics'; readonly id: number; readonly metrics: MetricsSnapshot }
  | { readonly type: 'stopped' };

/** Whether this process splits its role over two threads. */
export function runsPipelineThread(config: Config): boolean {
  return config.distributed !== null && config.role === 'all';
}

/**
 * The thread's entry module beside this one: `.js` once built; `.ts` when run from source through
 * tsx, whose loader a worker thread does not inherit, so it is registered in the thread first.
 */
function threadSource(): { source: string | URL; eval: boolean } {
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = new URL(`./pipeline-thread-entry${fromSource ? '.ts' : '.js'}`, import.meta.url);
  if (!fromSource) return { source: entry, eval: false };
  const tsx = import.meta.resolve('tsx/esm/api');
  return { source: `import(${JSON.stringify(tsx)}).then((tsx) => tsx.register()).then(() => import(${JSON.stringify(entry.href)}))`, eval: true };
}

/** Starts the pipeline thread with the worker role's configuration; resolves once its consumers run. */
export async function startPipelineThread(config: Config, logger: Logger): Promise<PipelineThread> {
  const { source, eval: isEval } = threadSource();
  const worker = new Worker(source, { eval: isEval, workerData: { config: { ...config, role: 'worker' } satisfies Config } });
  const pending = new Map<number, (metrics: MetricsSnapshot) => void>();
  let nextId = 0;
  let stopping = false;
  let stopped: (() => void) | undefined;

  await new Promise<void>((resolve, reject) => {
    const onStartError = (err: Error): void => reject(err);
    const onStartExit = (code: number): void => reject(new Error(`the pipeline thread exited with ${code} while starting`));
    worker.once('error', onStartError);
    worker.once('exit', onStartExit);
    worker.once('message', (message: FromPipeline) => {
      worker.off('error', onStartError);
      worker.off('exit', onStartExit);
      if (message.type === 'started') resolve();
      else reject(new Error(`the pipeline thread sent ${message.type} before it started`));
    });
  });

  worker.on('message', (message: FromPipeline) => {
    if (message.type === 'metrics') {
      pending.get(message.id)?.(message.metrics);
      pending.delete(message.id);
    } else if (message.type === 'stopped') stopped?.();
  });
  worker.on('error', (err) => {
    logger.fatal({ err }, 'the pipeline thread failed; exiting');
    process.exit(1);
  });
  worker.on('exit', (code) => {
    // Whatever the thread did not answer, it never will: a scrape gets the main thread's metrics alone.
    for (const resolve of pending.values()) resolve([]);
    pending.clear();
    if (stopping) {
      // Gone before it said so (it failed while stopping): the stop is over all the same.
      stopped?.();
      return;
    }
    logger.fatal({ code }, 'the pipeline thread exited; exiting');
    process.exit(1);
  });

  const send = (message: ToPipeline): void => worker.postMessage(message);
  let stopOnce: Promise<void> | undefined;
  return {
    metrics: () =>
      new Promise((resolve) => {
        if (stopping) {
          resolve([]);
          return;
        }
        const id = nextId++;
        pending.set(id, resolve);
        send({ type: 'metrics', id });
      }),
    stop: () =>
      (stopOnce ??= (async () => {
        stopping = true;
        const done = new Promise<void>((resolve) => (stopped = resolve));
        send({ type: 'stop' });
        await done;
        await worker.terminate();
      })()),
  };
}
