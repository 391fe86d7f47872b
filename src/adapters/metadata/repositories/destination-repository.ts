import { LockMode, type EntityManager } from '@mikro-orm/core';
import type { Channel } from '../../../delivery/delivery-types.js';
import { type Destination, DestinationEntity } from '../entities/destination.entity.js';

export interface NewDestination {
  appId: string;
  type: Channel;
  label: string;
  url: string | null;
  email: string | null;
  signingSecret: string | null;
}

export async function createDestination(em: EntityManager, input: NewDestination): Promise<Destination> {
  const destination = em.create(DestinationEntity, {
    app: input.appId,
    type: input.type,
    label: input.label,
    url: input.url,
    email: input.email,
    signingSecret: input.signingSecret,
    verifiedAt: null,
  });
  await em.flush();
  return destination;
}

/**
 * The destination with this id in this app, or null; `id` must have the form of a UUID. `lock`
 * (inside a transaction) takes a row lock on PostgreSQL, `share` for readers that must not see it
 * deleted under them, `update` for the deleter; SQLite serialises transactions anyway and ignores it.
 */
export async function findDestinationById(em: EntityManager, appId: string, id: string, lock?: 'share' | 'update'): Promise<Destination | null> {
  return em.findOne(DestinationEntity, { id, app: appId }, lock ? { lockMode: lockModeOf(lock) } : {});
}

/**
 * The app's destinations among `ids` (any of them may be missing or another app's), read-only: they
 * are not managed by `em`, so a flush of the same unit of work (a rule write) never writes them back.
 */
export async function findDestinationsByIds(em: EntityManager, appId: string, ids: readonly string[], lock?: 'share'): Promise<Destination[]> {
  if (ids.length === 0) return [];
  return em.find(DestinationEntity, { app: appId, id: { $in: [...ids] } }, { disableIdentityMap: true, ...(lock ? { lockMode: lockModeOf(lock) } : {}) });
}

/** A page of an app's destinations in creation order (stable offset paging while destinations are added). */
export async function listDestinations(em: EntityManager, appId: string, page: { limit: number; offset: number }): Promise<Destination[]> {
  return em.find(DestinationEntity, { app: appId }, { orderBy: { createdAt: 'asc', id: 'asc' }, limit: page.limit, offset: page.offset });
}

/** Every destination of the app, for the worker's rule set (an app has a handful). */
export async function listAllDestinations(em: EntityManager, appId: string): Promise<Destination[]> {
  return em.find(DestinationEntity, { app: appId });
}

function lockModeOf(lock: 'share' | 'update'): LockMode.PESSIMISTIC_READ | LockMode.PESSIMISTIC_WRITE {
  return lock === 'share' ? LockMode.PESSIMISTIC_READ : LockMode.PESSIMISTIC_WRITE;
}
