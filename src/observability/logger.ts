import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';

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
  'headers.authorization',
  'headers["x-api-key"]',
  '*.apiKey',
  '*.clientSecret',
  '*.secret',
  '*.password',
];

export function createLogger(options: { level: LevelWithSilent; destination?: DestinationStream }): Logger {
  return pino(
    {
      level: options.level,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      base: { service: 'event-alerting' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    options.destination,
  );
}
