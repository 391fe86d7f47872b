import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/observability/logger.js';

/** A real pino logger whose output a test can read back (to assert on it, or on what it lacks). */
export function capturingLogger(level: 'info' | 'debug' | 'silent' = 'info'): { logger: Logger; lines: () => string[] } {
  const chunks: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk.toString('utf8'));
      callback();
    },
  });
  const logger = createLogger({ level, destination });
  return { logger, lines: () => chunks.join('').split('\n').filter(Boolean) };
}
