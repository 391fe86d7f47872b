import { DuplicateRecordError, type ClientSecretScope, type MetadataRepositories, type MetadataStore } from '../ports/metadata.js';
import { digestCredential, generateClientSecret, maskedHint, shownPrefix } from '../domain/credentials.js';
import type { Logger } from '../observability/logger.js';
import type { Authenticator } from './authenticator.js';

export interface NewAccountResult {
  readonly accountId: string;
  readonly secretId: string;
  /** The full client secret: shown once, never stored. */
  readonly clientSecret: string;
}

export interface AccountView {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
  readonly activeSecrets: number;
}

/** BOOTSTRAP_CLIENT_SECRET and the name of the account it belongs to. */
export interface BootstrapSecret {
  readonly clientSecret: string | null;
  readonly accountName: string;
}

/**
 * Accounts. They have no HTTP endpoint (a client secret always acts inside its own account):
 * operators create them with the CLI (`npm run cli -- create-account`), and the bootstrap secret
 * covers a fresh installation.
 */
export class AccountsService {
  constructor(private readonly deps: { metadata: MetadataStore; authenticator: Pick<Authenticator, 'changed'>; logger: Logger }) {}

  /** Creates an account with its first client secret, in one transaction. */
  async createWithSecret(input: { name: string; label?: string; scopes?: readonly ClientSecretScope[] }): Promise<NewAccountResult> {
    const clientSecret = generateClientSecret();
    return this.deps.metadata.transaction(async (tx) => {
      const account = await tx.accounts.create({ name: input.name });
      const secret = await tx.clientSecrets.create({
        accountId: account.id,
        label: input.label ?? 'initial',
        scopes: input.scopes ?? ['read', 'write'],
        digest: digestCredential(clientSecret),
        hint: maskedHint(shownPrefix(clientSecret)),
      });
      return { accountId: account.id, secretId: secret.id, clientSecret };
    });
  }

  /** A page of every account, oldest first, with how many active client secrets each has. */
  async list(page: { limit: number; offset: number }): Promise<AccountView[]> {
    const accounts = await this.deps.metadata.accounts.list(page);
    const activeSecrets = await this.deps.metadata.clientSecrets.countActiveByAccount(accounts.map((account) => account.id));
    return accounts.map((account) => ({
      id: account.id,
      name: account.name,
      createdAt: account.createdAt.toISOString(),
      activeSecrets: activeSecrets.get(account.id) ?? 0,
    }));
  }

  /**
   * At start, makes sure an account of that name exists and that this exact value is one of its
   * active client secrets (label `bootstrap`, all scopes). Every process runs it at start; it is
   * idempotent, and a secret revoked through the API is made active again, because the operator's
   * configuration says it should be. Running processes that refused the secret until then accept it
   * from their next request on.
   */
  async ensureBootstrapSecret(bootstrap: BootstrapSecret): Promise<void> {
    if (!bootstrap.clientSecret) return;
    const register = () => this.deps.metadata.transaction((tx) => this.#registerOnce(tx, bootstrap.clientSecret!, bootstrap.accountName));
    let madeValid: boolean;
    try {
      madeValid = await register();
    } catch (err) {
      // Several processes starting at once on a fresh database race to insert the same digest; the
      // loser finds the winner's row on a second pass.
      if (!(err instanceof DuplicateRecordError)) throw err;
      madeValid = await register();
    }
    if (madeValid) await this.deps.authenticator.changed();
  }

  /** True when the secret was not valid before: registered now, or made active again. */
  async #registerOnce(tx: MetadataRepositories, clientSecret: string, accountName: string): Promise<boolean> {
    const digest = digestCredential(clientSecret);
    const existing = await tx.clientSecrets.findByDigest(digest);
    if (existing) {
      if (!existing.revokedAt) return false;
      // The configuration says this secret is active. Say so loudly: if it was revoked because it
      // leaked, the operator must remove it from the configuration, not just revoke it.
      this.deps.logger.warn({ account: accountName }, 'BOOTSTRAP_CLIENT_SECRET had been revoked and is active again; unset it once other secrets exist');
      await tx.clientSecrets.reactivate(existing.id);
      return true;
    }
    const account = (await tx.accounts.findOldestByName(accountName)) ?? (await tx.accounts.create({ name: accountName }));
    await tx.clientSecrets.create({ accountId: account.id, label: 'bootstrap', scopes: ['read', 'write'], digest, hint: maskedHint(shownPrefix(clientSecret)) });
    this.deps.logger.info({ account: accountName }, 'bootstrap client secret registered');
    return true;
  }
}
