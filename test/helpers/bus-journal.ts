import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** A journal file of its own in a fresh directory under the system's temporary directory. */
export function temporaryJournalPath(): string {
  return path.join(mkdtempSync(path.join(tmpdir(), 'eas-bus-')), 'bus.sqlite');
}
