import type { MetadataStore } from '../adapters/metadata/metadata-store.js';
import { AccountEntity } from '../adapters/metadata/entities/account.entity.js';
import { ClientSecretEntity, type ClientSecretScope } from '../adapters/metadata/entities/client-secret.entity.js';
import { digestCredential, generateClientSecret, maskedHint, shownPrefix } from '../domain/credentials.js';

export interface NewAccountResult {
  readonly accountId: string;
  readonly secretId: string;
  /** The full client secret: shown once, never stored. */
  readonly clientSecret: string;
}

/**
 * Creates an account with its first client secret, in one transaction. Accounts have no HTTP
 * endpoint (a client secret always acts inside its own account); operators create them with the
 * CLI (`npm run cli -- create-account`), and the bootstrap secret covers a fresh installation.
 */
export async function createAccountWithSecret(
  metadata: MetadataStore,
  input: { name: string; label?: string; scopes?: ClientSecretScope[] },
): Promise<NewAccountResult> {
  const clientSecret = generateClientSecret();
  return metadata.em().transactional(async (tx) => {
    const account = tx.create(AccountEntity, { name: input.name });
    const secret = tx.create(ClientSecretEntity, {
      account,
      label: input.label ?? 'initial',
      scopes: input.scopes ?? ['read', 'write'],
      digest: digestCredential(clientSecret),
      hint: maskedHint(shownPrefix(clientSecret)),
      lastUsedAt: null,
      revokedAt: null,
    });
    await tx.flush();
    return { accountId: account.id, secretId: secret.id, clientSecret };
  });
}
