import type { Opt } from '@mikro-orm/core';

/** What an entity with both timestamps declares. */
export interface Timestamped {
  createdAt: Opt<Date>;
  updatedAt: Opt<Date>;
}

/**
 * The `createdAt` and `updatedAt` properties of every entity that has both. A new row's two
 * timestamps are the same instant: `updatedAt` starts as a copy of `createdAt` (MikroORM runs
 * `onCreate` in property order) rather than from a second clock read, which could fall in the next
 * millisecond and make a row look edited the moment it was created.
 */
export function timestampProperties<T extends Timestamped>() {
  return {
    createdAt: { type: 'datetime', onCreate: () => new Date() },
    updatedAt: { type: 'datetime', onCreate: (entity: T) => new Date(entity.createdAt ?? Date.now()), onUpdate: () => new Date() },
  } as const;
}
