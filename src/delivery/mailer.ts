/**
 * Sending mail over SMTP (`SMTP_URL`, e.g. `smtp://user:pass@mail.example.com:587` or `smtps://…`)
 * with nodemailer. The sender sees only the Mailer port; SMTP failures arrive as MailSendError with
 * the retry verdict already made, so the channel code never reads nodemailer's error shapes.
 */
import nodemailer from 'nodemailer';

export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

/** Why a message was not accepted. `message` holds the SMTP reply at most, never the SMTP URL. */
export class MailSendError extends Error {
  override readonly name = 'MailSendError';
  constructor(
    message: string,
    readonly retriable: boolean,
    /** The SMTP reply code, when the server answered with one. */
    readonly smtpCode: number | null,
    options: { cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
  }
}

/** Short enough for a delivery's lastError; long enough for "550 5.1.1 No such user". */
const REPLY_MAX = 200;

/** Failures of the connection itself: the server may be reachable on the next attempt. */
const TRANSIENT_CODES = new Set(['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS', 'ETLS', 'EPROXY']);

interface SmtpErrorFields {
  readonly code?: unknown;
  readonly responseCode?: unknown;
  readonly response?: unknown;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > REPLY_MAX ? `${flat.slice(0, REPLY_MAX - 1)}…` : flat;
}

/**
 * RFC 5321: a 4yz reply is transient, a 5yz reply permanent, except 503 (bad sequence of commands),
 * which is about the session rather than the message. Without a reply, connection-level failures are
 * retried and configuration problems (bad credentials setup, no TLS where required) are not.
 */
export function classifySmtpError(error: unknown): MailSendError {
  const fields: SmtpErrorFields = typeof error === 'object' && error !== null ? error : {};
  const code = typeof fields.code === 'string' ? fields.code : null;
  const reply = typeof fields.responseCode === 'number' ? fields.responseCode : null;
  if (reply !== null) {
    const response = typeof fields.response === 'string' ? oneLine(fields.response) : String(reply);
    const permanent = reply >= 500 && reply < 600 && reply !== 503;
    return new MailSendError(`SMTP server rejected the message: ${response}`, !permanent, reply, { cause: error });
  }
  if (code !== null && TRANSIENT_CODES.has(code)) {
    const what = code === 'ETIMEDOUT' ? 'timed out' : 'connection failed';
    return new MailSendError(`SMTP ${what} (${code})`, true, null, { cause: error });
  }
  return new MailSendError(`SMTP error${code ? ` (${code})` : ''}`, false, null, { cause: error });
}

/**
 * Timeouts are far below nodemailer's defaults (2 min to connect, 10 min idle): a delivery attempt
 * should fail fast and be retried by the delivery loop rather than hold a worker slot for minutes.
 */
const CONNECTION_TIMEOUT_MS = 10_000;
const GREETING_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 30_000;

export function createSmtpMailer(options: { url: string; from: string }): Mailer {
  // The URL carries host, port, TLS mode and credentials (and any option as a query parameter, which
  // nodemailer lets win over the timeouts given here: an operator can tune them without a release).
  const transport = nodemailer.createTransport(
    {
      url: options.url,
      connectionTimeout: CONNECTION_TIMEOUT_MS,
      greetingTimeout: GREETING_TIMEOUT_MS,
      socketTimeout: SOCKET_TIMEOUT_MS,
    },
    { from: options.from },
  );
  return {
    async send(message) {
      try {
        await transport.sendMail({ to: message.to, subject: message.subject, text: message.text, html: message.html });
      } catch (error) {
        throw classifySmtpError(error);
      }
    },
    close() {
      transport.close();
      return Promise.resolve();
    },
  };
}
