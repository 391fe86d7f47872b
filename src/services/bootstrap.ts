import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { MetadataStore } from '../adapters/metadata/metadata-store.js';
import { AccountEntity } from '../adapters/metadata/entities/account.entity.js';
import { ClientSecretEntity } from '../adapters/metadata/entities/client-secret.entity.js';
import { digestCredential, maskedHint, shownPrefix } from '../domain/credentials.js';
import type { Logger } from '../observability/logger.js';

/**
 * BOOTSTRAP_CLIENT_SECRET: at start, make sure an account of that name exists and that this exact
 * value is one of its active client secrets (label `bootstrap`, all scopes). Run by every process at
 * start; it is idempotent, and a secret revoked through the API is made active again, because the
 * operator's configuration says it should be.
 */
export async function ensureBootstrapSecret(
  metadata: MetadataStore,
  logger: Logger,
  bootstrap: { clientSecret: string | null; accountName: string },
): Promise<void> {
  if (!bootstrap.clientSecret) return;
  const digest = digestCredential(bootstrap.clientSecret);
  try {
    await registerOnce(metadata, logger, bootstrap.clientSecret, bootstrap.accountName, digest);
  } catch (err) {
    // Several processes starting at once on a fresh database race to insert the same digest; the
    // loser finds the winner's row on a second pass.
    if (!(err instanceof UniqueConstraintViolationException)) throw err;
    await registerOnce(metadata, logger, bootstrap.clientSecret, bootstrap.accountName, digest);
  }
}

async function registerOnce(metadata: MetadataStore, logger: Logger, clientSecret: string, accountName: string, digest: string): Promise<void> {
  await metadata.em().transactional(async (tx) => {
    const existing = await tx.findOne(ClientSecretEntity, { digest });
    if (existing) {
      if (existing.revokedAt) {
        // The configuration says this secret is active. Say so loudly: if it was revoked because it
        // leaked, the operator must remove it from the configuration, not just revoke it.
        logger.warn({ account: accountName }, 'BOOTSTRAP_CLIENT_SECRET had been revoked and is active again; unset it once other secrets exist');
        existing.revokedAt = null;
      }
      return;
    }
    const account =
      (await tx.findOne(AccountEntity, { name: accountName }, { orderBy: { createdAt: 'asc' } })) ?? tx.create(AccountEntity, { name: accountName });
    tx.create(ClientSecretEntity, {
      account,
      label: 'bootstrap',
      scopes: ['read', 'write'],
      digest,
      hint: maskedHint(shownPrefix(clientSecret)),
      lastUsedAt: null,
      revokedAt: null,
    });
    logger.info({ account: accountName }, 'bootstrap client secret registered');
  });
}
