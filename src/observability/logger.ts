import { AsyncLocalStorage } from 'node:async_hooks';
import { destination, pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';

export type { Logger };

/**
 * Paths pino blanks out wherever they appear in a log object. Credentials must never reach a log:
 * API keys travel in `x-api-key`, client secrets in `authorization`, and later issues add webhook URLs
 * and signing secrets to objects that may be logged.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'req.headers["set-cookie"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers.cookie',
  'headers["set-cookie"]',
  '*.apiKey',
  '*.clientSecret',
  '*.secret',
  '*.password',
  '*.authorization',
  '*["x-api-key"]',
];

/** The unit of work a log line belongs to: for now, the HTTP request being handled. */
interface LogScope {
  readonly requestId: string;
}

/**
 * Why one module-level store: the services that log while a request is handled (authenticator,
 * ingest, caches) got their logger once, at container build time, so the request id cannot travel
 * in their bindings. The store follows the request's async chain instead, and every logger built by
 * createLogger (and each of its children) adds the id to lines written within it. It holds no data
 * of its own: each request's scope lives only in its own async chain.
 */
const scopes = new AsyncLocalStorage<LogScope>();

/** Marks a logger that binds the request id itself, so the scope does not add it a second time. */
const bindsRequestId = Symbol('bindsRequestId');

/** Runs `fn` (and everything it starts) with its log lines tagged with `requestId`. */
export function runWithRequestId<T>(requestId: string, fn: () => T): T {
  return scopes.run({ requestId }, fn);
}

/**
 * A child of `logger` with the request id bound: for code that may run outside the request's async
 * chain (a response's `finish` listener), where the scope no longer reaches.
 */
export function requestLogger(logger: Logger, requestId: string): Logger {
  const child = logger.child({ requestId });
  // pino builds children with Object.create, so the children of this child see the mark too.
  Object.defineProperty(child, bindsRequestId, { value: true });
  return child;
}

export function createLogger(options: { level: LevelWithSilent; destination?: DestinationStream }): Logger {
  return pino(
    {
      level: options.level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      base: { service: 'event-alerting' },
      timestamp: pino.stdTimeFunctions.isoTime,
      // A fresh object every time: pino merges the log call's fields into it.
      mixin: (_fields, _level, instance) => {
        const scope = scopes.getStore();
        return scope && !(bindsRequestId in instance) ? { requestId: scope.requestId } : {};
      },
    },
    options.destination,
  );
}

/**
 * The service's log stream: standard output, written asynchronously. With one line per request, a
 * synchronous write per line is a system call per request; asynchronously, lines that arrive while a
 * write is in flight go out together in the next one, and an idle service still writes each line at
 * once. pino flushes what is pending when the process exits.
 */
export function stdoutDestination(): DestinationStream {
  return destination({ dest: 1, sync: false });
}
