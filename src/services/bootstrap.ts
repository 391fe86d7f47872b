import type { MetadataStore } from '../adapters/metadata/metadata-store.js';
import { AccountEntity } from '../adapters/metadata/entities/account.entity.js';
import { ClientSecretEntity } from '../adapters/metadata/entities/client-secret.entity.js';
import { digestCredential, maskedHint, shownPrefix } from '../domain/credentials.js';
import type { Logger } from '../observability/logger.js';

/**
 * Contract section 1, BOOTSTRAP_CLIENT_SECRET: at start, make sure an account of that name exists and
 * that this exact value is one of its active client secrets (label `bootstrap`, all scopes). Run by
 * every process at start; it is idempotent, and a secret revoked through the API is made active
 * again, because the operator's configuration says it should be.
 */
export async function ensureBootstrapSecret(
  metadata: MetadataStore,
  logger: Logger,
  bootstrap: { clientSecret: string | null; accountName: string },
): Promise<void> {
  if (!bootstrap.clientSecret) return;
  const digest = digestCredential(bootstrap.clientSecret);
  const em = metadata.em();
  await em.transactional(async (tx) => {
    const existing = await tx.findOne(ClientSecretEntity, { digest });
    if (existing) {
      if (existing.revokedAt) existing.revokedAt = null;
      return;
    }
    const account =
      (await tx.findOne(AccountEntity, { name: bootstrap.accountName }, { orderBy: { createdAt: 'asc' } })) ??
      tx.create(AccountEntity, { name: bootstrap.accountName });
    tx.create(ClientSecretEntity, {
      account,
      label: 'bootstrap',
      scopes: ['read', 'write'],
      digest,
      hint: maskedHint(shownPrefix(bootstrap.clientSecret!)),
      lastUsedAt: null,
      revokedAt: null,
    });
    logger.info({ account: bootstrap.accountName }, 'bootstrap client secret registered');
  });
}
