import { describe, expect, it } from 'vitest';
import { classifySmtpError } from './mailer.js';

// Errors shaped as nodemailer reports them; the integration suite gets the same from a real server.
const smtpError = (fields: Record<string, unknown>): Error => Object.assign(new Error('smtp failure'), fields);

describe('classifySmtpError', () => {
  it('does not retry a permanent (5xx) reply', () => {
    const error = classifySmtpError(smtpError({ code: 'EENVELOPE', responseCode: 550, response: '550 5.1.1 No such user' }));
    expect(error).toMatchObject({ retriable: false, smtpCode: 550 });
    expect(error.message).toBe('SMTP server rejected the message: 550 5.1.1 No such user');
  });

  it('retries a transient (4xx) reply, and 503 which is about the session', () => {
    expect(classifySmtpError(smtpError({ code: 'EENVELOPE', responseCode: 451, response: '451 try later' }))).toMatchObject({
      retriable: true,
      smtpCode: 451,
    });
    expect(classifySmtpError(smtpError({ code: 'EPROTOCOL', responseCode: 503 }))).toMatchObject({ retriable: true });
  });

  it('retries connection failures and timeouts', () => {
    for (const code of ['ECONNECTION', 'ETIMEDOUT', 'ESOCKET', 'EDNS']) {
      expect(classifySmtpError(smtpError({ code }))).toMatchObject({ retriable: true, smtpCode: null });
    }
  });

  it('does not retry configuration problems or unknown errors', () => {
    expect(classifySmtpError(smtpError({ code: 'ECONFIG' }))).toMatchObject({ retriable: false });
    expect(classifySmtpError(new Error('what'))).toMatchObject({ retriable: false });
    expect(classifySmtpError('not even an error')).toMatchObject({ retriable: false });
  });

  it('keeps the reply short and on one line', () => {
    const error = classifySmtpError(smtpError({ responseCode: 554, response: `554 ${'no '.repeat(200)}\r\nmore` }));
    expect(error.message).not.toMatch(/[\r\n]/);
    expect(error.message.length).toBeLessThan(260);
  });
});
