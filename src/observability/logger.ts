import { AsyncLocalStorage } from 'node:async_hooks';
import { destination, pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';

export type { Logger };

/**
 * Credentials must never reach a log: API keys travel in `x-api-key`, client secrets in
 * `authorization`, and destinations carry webhook URLs and signing secrets in objects that may be
 * logged. Two nets catch them:
 * - these exact paths, blanked by pino's redaction;
 * - SECRET_FIELDS, blanked wherever they appear at the top level of a log object or one level down
 *   (`{ destination: { secret } }`), by censorSecretFields. pino's wildcard paths (`*.secret`) did
 *   that second job at several microseconds per line per path, on every line written (a quarter of a
 *   request log line's cost); censorSecretFields looks one level down and copies only what holds a secret.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'req.headers["set-cookie"]',
  'res.headers["set-cookie"]',
  'headers.cookie',
  'headers["set-cookie"]',
];

export const SECRET_FIELDS: readonly string[] = ['apiKey', 'clientSecret', 'secret', 'password', 'authorization', 'x-api-key'];

const CENSOR = '[redacted]';

/**
 * The log object with every SECRET_FIELDS value at its top level or one level down replaced by the
 * censor, in copies: the caller's objects are never changed. Only plain objects are looked into
 * (an Error goes to pino's serializer whole).
 */
export function censorSecretFields(object: Record<string, unknown>): Record<string, unknown> {
  let result = object;
  for (const key in object) {
    const value = object[key];
    if (SECRET_FIELDS.includes(key)) {
      if (result === object) result = { ...object };
      result[key] = CENSOR;
    } else if (isPlainObject(value)) {
      let copy: Record<string, unknown> | undefined;
      for (const field of SECRET_FIELDS) {
        if (Object.hasOwn(value, field)) {
          copy ??= { ...value };
          copy[field] = CENSOR;
        }
      }
      if (copy) {
        if (result === object) result = { ...object };
        result[key] = copy;
      }
    }
  }
  return result;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

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

/** Runs `fn` (and everything it starts) with its log lines tagged with `requestId`. */
export function runWithRequestId<T>(requestId: string, fn: () => T): T {
  return scopes.run({ requestId }, fn);
}

/** What the mixin returns outside any scope: a line's own fields are then written as they are. */
const NO_SCOPE: Readonly<Record<string, never>> = Object.freeze({});

export function createLogger(options: { level: LevelWithSilent; destination?: DestinationStream }): Logger {
  return pino(
    {
      level: options.level,
      redact: { paths: REDACTED_PATHS, censor: CENSOR },
      formatters: { log: censorSecretFields },
      base: { service: 'event-alerting' },
      timestamp: isoTimeOfThisMillisecond,
      // Within a scope, a fresh object every time: pino merges the log call's fields into it (so a
      // line that names its request id itself has it once). Outside one (the request line itself,
      // written when the response ends), the fields go on unmerged, without a copy.
      mixin: () => {
        const scope = scopes.getStore();
        return scope ? { requestId: scope.requestId } : NO_SCOPE;
      },
      mixinMergeStrategy: (fields: object, mixed: object) => (mixed === NO_SCOPE ? fields : Object.assign(mixed, fields)),
    },
    options.destination,
  );
}

let timeWrittenAt = Number.NaN;
let timeWritten = '';

/**
 * pino's ISO time field, formatted once per millisecond: a busy process writes many lines within
 * one, and formatting the date was a fifth of the cost of a request's log line.
 */
export function isoTimeOfThisMillisecond(): string {
  const now = Date.now();
  if (now !== timeWrittenAt) {
    timeWrittenAt = now;
    timeWritten = `,"time":"${new Date(now).toISOString()}"`;
  }
  return timeWritten;
}

/**
 * The service's log stream: standard output, written asynchronously. With one line per request, a
 * synchronous write per line is a system call per request; asynchronously, lines that arrive while a
 * write is in flight go out together in the next one, and an idle service still writes each line
 * within the turn of the event loop that wrote it. The same descriptor written synchronously serves
 * the moments when a line must be out before the process goes on (TurnLines).
 */
export function stdoutDestination(): DestinationStream {
  return new TurnLines(destination({ dest: 1, sync: false }), destination({ dest: 1, sync: true }));
}

/** What TurnLines hands its lines to: pino's asynchronous destination (sonic-boom). */
export interface LineStream {
  write(text: string): unknown;
  flush(callback: (err?: Error | null) => void): void;
  flushSync(): void;
}

/**
 * The lines written in one turn of the event loop, handed to `target` together at the end of the turn.
 *
 * Why: sonic-boom appends each line to the text it has not written yet and measures that text's UTF-8
 * length on every line, and measuring a string built by appending makes V8 copy it into one piece. A
 * busy process queues dozens of lines behind each write, so every line cost a copy of the lines queued
 * before it (in an allocation profile of single-event requests, the request line was the largest
 * allocation site). Handed one turn's lines at once, it copies once per turn.
 *
 * flushSync (pino calls it after a fatal line) and the process's `exit` (a line written in the turn that
 * exits, such as `stopped`) write what is pending through `now`, the same descriptor written
 * synchronously, after `target` has written what it queued: a line handed to an idle asynchronous
 * stream would go out in a write still in flight when the process ends. flush hands over what is
 * pending, then flushes `target`.
 */
export class TurnLines implements DestinationStream {
  readonly #target: LineStream;
  readonly #now: Pick<LineStream, 'write'>;
  #pending: string[] = [];
  #scheduled = false;
  readonly #handOver = (): void => {
    this.#scheduled = false;
    const text = this.#take();
    if (text !== undefined) this.#target.write(text);
  };

  constructor(target: LineStream, now: Pick<LineStream, 'write'>) {
    this.#target = target;
    this.#now = now;
    process.on('exit', () => {
      try {
        this.flushSync();
      } catch {
        // The stream is closed or broken (standard output gone): nothing more can be written.
      }
    });
  }

  write(line: string): boolean {
    this.#pending.push(line);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#handOver);
    }
    return true;
  }

  flush(callback: (err?: Error | null) => void = () => undefined): void {
    this.#handOver();
    this.#target.flush(callback);
  }

  flushSync(): void {
    this.#target.flushSync();
    const text = this.#take();
    if (text !== undefined) this.#now.write(text);
  }

  /** The pending lines as one text, or undefined when there are none; nothing is pending after. */
  #take(): string | undefined {
    if (this.#pending.length === 0) return undefined;
    const text = this.#pending.length === 1 ? this.#pending[0]! : this.#pending.join('');
    this.#pending = [];
    return text;
  }
}

/**
 * The logger of a process (or worker thread) that runs the service: standard output through
 * stdoutDestination, with Node's warnings among its lines (logProcessWarnings). `bindings` go on every
 * line, the warnings' included.
 */
export function processLogger(level: LevelWithSilent, bindings: Readonly<Record<string, string>> = {}): Logger {
  const logger = createLogger({ level, destination: stdoutDestination() }).child(bindings);
  logProcessWarnings(logger);
  return logger;
}

/**
 * Node's own warnings (a deprecation, a listener leak, a library's negative timer) become warn lines
 * of the service's log, with their stack, instead of free text on standard error that a log pipeline
 * cannot parse. Node prints them through its own `warning` listener, which this replaces (in a worker
 * thread, the thread's own).
 */
export function logProcessWarnings(logger: Logger): void {
  process.removeAllListeners('warning');
  process.on('warning', (warning: Error & { code?: string }) =>
    // By name: pino's error serialiser would call every warning an `Error`.
    logger.warn({ warning: { name: warning.name, code: warning.code, message: warning.message, stack: warning.stack } }, 'Node.js warning'),
  );
}
