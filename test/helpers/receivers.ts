import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { OutboundError, type OutboundHttp } from '../../src/delivery/delivery-types.js';

export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export interface Reply {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

/** A real HTTP server on loopback that records each request and answers as `reply` says. */
export async function startHttpReceiver(
  reply: (request: ReceivedRequest) => Reply = () => ({ status: 200, body: 'ok' }),
): Promise<{ baseUrl: string; requests: ReceivedRequest[]; close: () => Promise<void> }> {
  const requests: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(request);
      const answer = reply(request);
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

/**
 * The transport the senders are given in these tests: a plain OutboundHttp over node's fetch that
 * reaches loopback receivers (the guarded client refuses them by design). Like the real client it
 * never follows a redirect and reports failures as OutboundError.
 */
export function loopbackHttp(timeoutMs = 5_000): OutboundHttp {
  return {
    async post(url, body, headers) {
      let response: Response;
      try {
        response = await fetch(url, { method: 'POST', body, headers, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
      } catch (error) {
        const timedOut = error instanceof DOMException && error.name === 'TimeoutError';
        throw new OutboundError(timedOut ? 'timeout' : 'network', timedOut ? 'request timed out' : 'connection failed', { cause: error });
      }
      return { status: response.status, headers: Object.fromEntries(response.headers), body: await response.text() };
    },
  };
}

/**
 * A real SMTP server on loopback (plain text, no auth, like a local relay). `reject` may refuse a
 * recipient with an SMTP reply code; accepted mail is parsed before the server answers, so it is in
 * `received` by the time the client's send resolves.
 */
export async function startSmtpReceiver(
  options: { rejectRecipient?: { code: number; message: string } } = {},
): Promise<{ url: string; received: ParsedMail[]; close: () => Promise<void> }> {
  const received: ParsedMail[] = [];
  const server = new SMTPServer({
    logger: false,
    disabledCommands: ['STARTTLS', 'AUTH'],
    onRcptTo(_address, _session, callback) {
      const rejection = options.rejectRecipient;
      if (!rejection) return callback();
      callback(Object.assign(new Error(rejection.message), { responseCode: rejection.code }));
    },
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          received.push(mail);
          callback();
        })
        .catch((error: unknown) => callback(error instanceof Error ? error : new Error(String(error))));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
