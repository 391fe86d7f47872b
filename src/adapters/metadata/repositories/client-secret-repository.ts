import type { EntityManager } from '@mikro-orm/core';
import { type ClientSecret, ClientSecretEntity, type ClientSecretScope } from '../entities/client-secret.entity.js';

export interface NewClientSecret {
  accountId: string;
  label: string;
  scopes: ClientSecretScope[];
  /** SHA-256 hex of the full secret; the caller hashes, this layer never sees the value. */
  digest: string;
  hint: string;
}

export async function createClientSecret(em: EntityManager, input: NewClientSecret): Promise<ClientSecret> {
  const secret = em.create(ClientSecretEntity, {
    account: input.accountId,
    label: input.label,
    scopes: input.scopes,
    digest: input.digest,
    hint: input.hint,
    lastUsedAt: null,
    revokedAt: null,
  });
  await em.flush();
  return secret;
}

/**
 * The secret a management request authenticates with, or null when the digest is unknown or the
 * secret was revoked. The lookup is an exact match on a unique index of the digest, so no timing
 * difference depends on how much of a guessed secret is right.
 */
export async function findActiveClientSecretByDigest(em: EntityManager, digest: string): Promise<ClientSecret | null> {
  return em.findOne(ClientSecretEntity, { digest, revokedAt: null });
}

/** Any account's secret by id: for the operator CLI, which acts across accounts. */
export async function findClientSecretById(em: EntityManager, id: string): Promise<ClientSecret | null> {
  return em.findOne(ClientSecretEntity, { id });
}

export async function findClientSecretOfAccount(em: EntityManager, accountId: string, id: string): Promise<ClientSecret | null> {
  return em.findOne(ClientSecretEntity, { id, account: accountId });
}

/** A page of an account's secrets, revoked ones included, oldest first (id breaks ties of equal times). */
export async function listClientSecretsOfAccount(
  em: EntityManager,
  accountId: string,
  page: { limit: number; offset: number },
): Promise<ClientSecret[]> {
  return em.find(ClientSecretEntity, { account: accountId }, { orderBy: { createdAt: 'asc', id: 'asc' }, limit: page.limit, offset: page.offset });
}

/**
 * Marks the secret revoked if it is an active secret of the account; returns how many rows changed
 * (0 or 1). One conditional UPDATE, so two concurrent revocations of the same secret change it once.
 */
export async function revokeActiveClientSecret(em: EntityManager, input: { accountId: string; id: string; at: Date }): Promise<number> {
  return em.nativeUpdate(ClientSecretEntity, { id: input.id, account: input.accountId, revokedAt: null }, { revokedAt: input.at });
}

export async function countActiveClientSecrets(em: EntityManager, accountId: string): Promise<number> {
  return em.count(ClientSecretEntity, { account: accountId, revokedAt: null });
}
