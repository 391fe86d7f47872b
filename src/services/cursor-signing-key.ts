import { randomBytes } from 'node:crypto';
import type { SettingRepository } from '../ports/metadata.js';

const CURSOR_KEY_SETTING = 'event-cursor-signing-key';

/**
 * The key that signs list cursors (domain/cursor.ts): generated once per installation and shared by
 * every API process through the metadata database, so a cursor issued by one process is accepted by
 * any other. Read once per process; a failed read is retried on the next call.
 */
export class CursorSigningKey {
  #key: Promise<Buffer> | undefined;

  constructor(private readonly settings: SettingRepository) {}

  get(): Promise<Buffer> {
    this.#key ??= this.settings.getOrCreate(CURSOR_KEY_SETTING, () => randomBytes(32).toString('base64')).then(
      (value) => Buffer.from(value, 'base64'),
      (err: unknown) => {
        this.#key = undefined;
        throw err;
      },
    );
    return this.#key;
  }
}
