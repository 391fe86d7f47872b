import { describe, expect, it, vi } from 'vitest';
import { capturingLogger } from '../../test/helpers/logger.js';
import { runWithRequestId } from './logger.js';

function lastLine(lines: () => string[]): Record<string, unknown> {
  return JSON.parse(lines().at(-1)!) as Record<string, unknown>;
}

describe('the service logger', () => {
  it('blanks credentials at the top level, one level down and at the named header paths, without touching the caller objects', () => {
    const { logger, lines } = capturingLogger();
    const destination = { id: 'd-1', url: 'https://hooks.example/x', secret: 'whsec_abc' };
    const headers = { authorization: 'Bearer svc_cs_abc', 'x-api-key': 'svc_live_abc', accept: 'application/json' };
    logger.warn(
      {
        apiKey: 'svc_live_top',
        destination,
        headers,
        req: { headers: { authorization: 'Bearer svc_cs_req', 'x-api-key': 'svc_live_req', cookie: 'c=1' } },
        account: { clientSecret: 'svc_cs_new', password: 'p', label: 'ops' },
        count: 3,
      },
      'something happened',
    );
    const line = lastLine(lines);
    expect(line).toMatchObject({
      apiKey: '[redacted]',
      destination: { id: 'd-1', url: 'https://hooks.example/x', secret: '[redacted]' },
      headers: { authorization: '[redacted]', 'x-api-key': '[redacted]', accept: 'application/json' },
      req: { headers: { authorization: '[redacted]', 'x-api-key': '[redacted]', cookie: '[redacted]' } },
      account: { clientSecret: '[redacted]', password: '[redacted]', label: 'ops' },
      count: 3,
      msg: 'something happened',
    });
    expect(lines().join('\n')).not.toMatch(/whsec_abc|svc_cs_|svc_live_/);
    expect(destination.secret).toBe('whsec_abc');
    expect(headers.authorization).toBe('Bearer svc_cs_abc');
  });

  it('writes the time of each line in ISO form, to its millisecond', () => {
    const { logger, lines } = capturingLogger();
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(new Date('2026-11-27T08:00:00.001Z'));
      logger.info('first');
      logger.info('same millisecond');
      vi.setSystemTime(new Date('2026-11-27T08:00:00.002Z'));
      logger.info('next millisecond');
      vi.setSystemTime(new Date('2026-11-28T09:30:15.999Z'));
      logger.info('a day later');
    } finally {
      vi.useRealTimers();
    }
    expect(lines().map((line) => (JSON.parse(line) as { time: string }).time)).toEqual([
      '2026-11-27T08:00:00.001Z',
      '2026-11-27T08:00:00.001Z',
      '2026-11-27T08:00:00.002Z',
      '2026-11-28T09:30:15.999Z',
    ]);
  });

  it('serialises an error whole', () => {
    const { logger, lines } = capturingLogger();
    logger.error({ err: new Error('broker down') }, 'produce failed');
    expect(lastLine(lines)).toMatchObject({ err: { type: 'Error', message: 'broker down', stack: expect.stringContaining('broker down') } });
  });

  it('tags lines written within a request scope with its id, once when the line names it too', () => {
    const { logger, lines } = capturingLogger();
    runWithRequestId('req-1', () => logger.info('inside'));
    expect(lastLine(lines)).toMatchObject({ requestId: 'req-1', msg: 'inside' });
    runWithRequestId('req-2', () => logger.info({ requestId: 'req-2' }, 'named'));
    expect(lines().at(-1)!.match(/"requestId"/g)).toHaveLength(1);
    const fields = { status: 202 };
    logger.info(fields, 'outside');
    expect(lastLine(lines)).toMatchObject({ status: 202, msg: 'outside' });
    expect(lastLine(lines)).not.toHaveProperty('requestId');
    // Written as given, and the caller's object left as it was.
    expect(fields).toEqual({ status: 202 });
    runWithRequestId('req-3', () => logger.info(fields, 'inside again'));
    expect(lastLine(lines)).toMatchObject({ requestId: 'req-3', status: 202 });
    expect(fields).toEqual({ status: 202 });
  });
});
