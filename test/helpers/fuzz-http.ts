import http, { STATUS_CODES } from 'node:http';
import { expect } from 'vitest';

/** Every answer must come within this: no input may make one request slow. */
export const ANSWER_BUDGET_MS = 1_000;
/**
 * The client stops waiting here. Far over the budget, so such a case fails anyway; the bound only
 * keeps a frozen service from holding the whole run (shrinking included) hostage.
 */
const GIVE_UP_MS = 10_000;

export interface FuzzRequest {
  readonly method: string;
  /** Path and query as they go on the request line: percent-encode what must be encoded. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as is. Without a content-length header one is set, unless `chunked`. */
  readonly body?: Buffer | string;
  /** Send the body with Transfer-Encoding: chunked instead of a Content-Length. */
  readonly chunked?: boolean;
}

export interface Answer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: any;
  /** From the first byte sent to the last byte read. */
  readonly ms: number;
}

/**
 * Raw HTTP against the service: exact bytes, any header, any request line (fetch would refuse or
 * rewrite several of the inputs these suites send), and the time of every exchange.
 */
export class FuzzClient {
  readonly #agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  #sent = 0;

  constructor(readonly baseUrl: string) {}

  /** Requests sent so far. */
  get sent(): number {
    return this.#sent;
  }

  send(request: FuzzRequest): Promise<Answer> {
    this.#sent++;
    const url = new URL(this.baseUrl);
    const headers: Record<string, string | number> = { ...request.headers };
    const body = typeof request.body === 'string' ? Buffer.from(request.body, 'utf8') : request.body;
    // Written in slices either way: without a length, node sends them chunked.
    if (request.chunked) headers['transfer-encoding'] = 'chunked';
    else if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length')) headers['content-length'] = body.length;
    return new Promise<Answer>((resolve, reject) => {
      const started = performance.now();
      let settled = false;
      let answered = false;
      const fail = (error: Error & { code?: string }): void => {
        if (settled) return;
        settled = true;
        const lost = error.code === 'EPIPE' || error.code === 'ECONNRESET' ? ' (the service closed the connection before any answer reached the client)' : '';
        reject(new Error(`${request.method} ${request.path.slice(0, 200)}: ${error.message}${lost}`));
      };
      const req = http.request(
        { host: url.hostname, port: url.port, method: request.method, path: request.path, headers, agent: this.#agent, timeout: GIVE_UP_MS },
        (res) => {
          answered = true;
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', fail);
          res.on('end', () => {
            if (settled) return;
            settled = true;
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: parseJson(text), ms: performance.now() - started });
            // A server that answered before the whole body arrived may close the connection: never reuse it.
            if (!req.writableFinished) req.destroy();
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${GIVE_UP_MS} ms`)));
      // A server may answer (413, 401) and close before the whole body is written: the answer counts,
      // the write error that follows it does not.
      req.on('error', (error) => {
        if (!answered) fail(error);
      });
      void writeBody(req, body, () => answered);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}

/** Bodies go out in slices, so that an early answer stops the writing instead of racing it. */
const SLICE_BYTES = 64 * 1024;

async function writeBody(req: http.ClientRequest, body: Buffer | undefined, answered: () => boolean): Promise<void> {
  if (body === undefined || body.length <= SLICE_BYTES) {
    req.end(body);
    return;
  }
  for (let at = 0; at < body.length; at += SLICE_BYTES) {
    if (answered() || req.destroyed) return;
    if (!req.write(body.subarray(at, at + SLICE_BYTES))) {
      await new Promise<void>((resume) => {
        const done = (): void => {
          for (const event of ['drain', 'close', 'response']) req.off(event, done);
          resume();
        };
        for (const event of ['drain', 'close', 'response']) req.once(event, done);
      });
    }
  }
  if (!answered() && !req.destroyed) req.end();
}

function parseJson(text: string): any {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Percent-encodes everything but unreserved characters, as UTF-8. Unlike encodeURIComponent it never
 * throws: a lone surrogate goes out as the bytes of U+FFFD, the only form a request line can carry.
 */
export function encodeComponent(value: string): string {
  return Buffer.from(value, 'utf8').reduce((out, byte) => {
    const ch = String.fromCharCode(byte);
    return out + (/[A-Za-z0-9\-_.~]/.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`);
  }, '');
}

/** What a failing case prints of an answer: enough to see why, not a megabyte. */
export function describeAnswer(answer: Answer): string {
  return `${answer.status} in ${answer.ms.toFixed(0)} ms: ${answer.text.slice(0, 400)}`;
}

/**
 * The three promises every answer keeps, whatever was sent: no 5xx, within the budget, and every
 * 4xx carries the standard error body `{ statusCode, error, message, timestamp, path }` (plus
 * `details` on a 400 only). `serviceLog` is consulted only on a failure, to show the server's side.
 */
export function expectWellBehaved(answer: Answer, context: string, serviceLog: () => string = () => ''): void {
  if (answer.status >= 500) {
    expect.fail(`${context}\n→ ${describeAnswer(answer)}\nservice log:\n${serviceLog()}`);
  }
  expect(answer.ms, `${context}\n→ answered in ${answer.ms.toFixed(0)} ms (budget ${ANSWER_BUDGET_MS} ms)`).toBeLessThan(ANSWER_BUDGET_MS);
  if (answer.status >= 400) expectStandardErrorBody(answer, context);
}

export function expectStandardErrorBody(answer: Answer, context: string): void {
  const why = `${context}\n→ ${describeAnswer(answer)}`;
  const body = answer.json;
  expect(typeof body === 'object' && body !== null && !Array.isArray(body), `${why}\n(the body is not a JSON object)`).toBe(true);
  expect(body, why).toMatchObject({
    statusCode: answer.status,
    error: STATUS_CODES[answer.status],
    message: expect.any(String),
    timestamp: expect.any(String),
    path: expect.any(String),
  });
  const fields = ['error', 'message', 'path', 'statusCode', 'timestamp', ...(answer.status === 400 && 'details' in body ? ['details'] : [])];
  expect(Object.keys(body).sort(), why).toEqual(fields.sort());
  expect(new Date(body.timestamp).toISOString(), why).toBe(body.timestamp);
  if ('details' in body) {
    expect(Array.isArray(body.details) && body.details.length > 0, `${why}\n(details must be a non-empty list)`).toBe(true);
    for (const detail of body.details) expect(detail, why).toEqual({ path: expect.any(String), message: expect.any(String) });
  }
}

/** A 400 that says where the problem is: the standard body with a non-empty `details`. */
export function expectDetailed400(answer: Answer, context: string): void {
  expect(answer.status, `${context}\n→ ${describeAnswer(answer)}`).toBe(400);
  expectStandardErrorBody(answer, context);
  expect(answer.json.details?.length ?? 0, `${context}\n→ ${describeAnswer(answer)}\n(a 400 must name the problem in details)`).toBeGreaterThan(0);
}
