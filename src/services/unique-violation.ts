import { DuplicateRecordError } from '../ports/metadata.js';
import { DomainError } from '../domain/errors.js';

/**
 * Runs a write and turns the store's unique-constraint violation into a 409 with a message the
 * client understands. The database, not a prior read, decides: two concurrent creates of the same
 * slug cannot both pass.
 */
export async function conflictOnDuplicate<T>(write: () => Promise<T>, message: string): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof DuplicateRecordError) throw new DomainError('conflict', message, { cause: err });
    throw err;
  }
}
