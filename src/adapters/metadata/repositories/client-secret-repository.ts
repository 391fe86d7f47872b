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
