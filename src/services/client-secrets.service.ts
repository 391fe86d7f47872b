import { z } from 'zod';
import { isDisplayText } from '../domain/text.js';
import type { AccountRecord, ClientSecretRecord, ClientSecretScope, MetadataStore } from '../ports/metadata.js';
import { digestCredential, generateClientSecret, maskedHint, shownPrefix } from '../domain/credentials.js';
import { DomainError } from '../domain/errors.js';
import { isUuid } from '../domain/uuid.js';
import { notFound } from './app-lookup.js';
import type { Authenticator } from './authenticator.js';

export const CLIENT_SECRET_SCOPES = ['read', 'write'] as const satisfies readonly ClientSecretScope[];

/** Shared by the HTTP body and the CLI, so both accept exactly the same labels. */
export const clientSecretLabel = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, 'must be a non-empty string')
  .max(200, 'must be at most 200 characters')
  // As every other name: one line, and storable (the metadata store cannot take a NUL).
  .refine(isDisplayText, 'must be one line of text without control characters');

/** A non-empty set of scopes, stored in canonical order whatever order it was given in. */
export const clientSecretScopes = z
  .array(z.enum(CLIENT_SECRET_SCOPES, { error: 'must be read or write' }), { error: 'must be an array of read and write' })
  .min(1, 'must name at least one scope')
  .refine((scopes) => new Set(scopes).size === scopes.length, 'must not repeat a scope')
  .transform((scopes) => CLIENT_SECRET_SCOPES.filter((s) => scopes.includes(s)));

/** What a client may see of a secret: never the value, nor its digest. */
export interface ClientSecretView {
  readonly id: string;
  readonly label: string;
  readonly scopes: readonly ClientSecretScope[];
  /** The first characters of the value followed by an ellipsis, to tell secrets apart. */
  readonly hint: string;
  readonly createdAt: string;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
}

export interface CreatedClientSecret {
  /** The full value: returned once, never stored. */
  readonly clientSecret: string;
  readonly secret: ClientSecretView;
}

export function toClientSecretView(secret: ClientSecretRecord): ClientSecretView {
  return {
    id: secret.id,
    label: secret.label,
    scopes: [...secret.scopes],
    hint: secret.hint,
    createdAt: secret.createdAt.toISOString(),
    lastUsedAt: secret.lastUsedAt?.toISOString() ?? null,
    revokedAt: secret.revokedAt?.toISOString() ?? null,
  };
}

/**
 * Client secrets of an account: create, list, revoke. Called by the `/v1/client-secrets` routes,
 * where the account is the caller's own, and by the CLI, where an operator names it.
 */
export class ClientSecretsService {
  constructor(private readonly deps: { metadata: MetadataStore; authenticator: Authenticator }) {}

  /**
   * Creates a secret in the account. `grantedBy` is the scope set of the secret making the request:
   * a secret cannot mint one with a scope it lacks itself (a write-only secret could otherwise create
   * a read-write one and read after all). The CLI passes none: an operator may grant anything.
   */
  async create(input: { accountId: string; label: string; scopes: readonly ClientSecretScope[]; grantedBy?: readonly ClientSecretScope[] }): Promise<CreatedClientSecret> {
    const { grantedBy } = input;
    if (grantedBy && input.scopes.some((scope) => !grantedBy.includes(scope))) {
      throw new DomainError('forbidden', 'Insufficient scope');
    }
    const value = generateClientSecret();
    const account = await this.#account(input.accountId);
    const secret = await this.deps.metadata.clientSecrets.create({
      accountId: account.id,
      label: input.label,
      scopes: [...input.scopes],
      digest: digestCredential(value),
      hint: maskedHint(shownPrefix(value)),
    });
    return { clientSecret: value, secret: toClientSecretView(secret) };
  }

  async list(accountId: string, page: { limit: number; offset: number }): Promise<ClientSecretView[]> {
    return (await this.deps.metadata.clientSecrets.list(accountId, page)).map(toClientSecretView);
  }

  /** A page of the secrets of an account an operator names (the CLI): not_found when there is no such account. */
  async listOfAccount(accountId: string, page: { limit: number; offset: number }): Promise<ClientSecretView[]> {
    return this.list((await this.#account(accountId)).id, page);
  }

  /** The account of this id; an unknown id, or one that is not a UUID, is not_found. */
  async #account(accountId: string): Promise<AccountRecord> {
    const account = isUuid(accountId) ? await this.deps.metadata.accounts.findById(accountId.toLowerCase()) : null;
    if (!account) throw new DomainError('not_found', 'Account not found');
    return account;
  }

  /**
   * Revokes a secret of the account. From the moment this resolves, the secret fails with 401 on
   * every API process (the authenticator's shared version is bumped before returning).
   *
   * - Another account's secret, an unknown id and an id that is not even a UUID are all 404: whether
   *   an id exists elsewhere is not the caller's business, and a malformed id cannot exist.
   * - An already revoked secret of the account is a success (`already_revoked`, 204 over HTTP):
   *   DELETE is idempotent, so a client retrying after a lost response is not told it failed. The
   *   original `revokedAt` is kept.
   * - Revoking the account's last active secret is a conflict: the account would be locked out of
   *   the API for good (accounts have no other way in).
   */
  async revoke(input: { accountId: string; secretId: string }): Promise<'revoked' | 'already_revoked'> {
    if (!isUuid(input.secretId) || !isUuid(input.accountId)) throw notFound();
    // Ids are stored in lower case; SQLite compares text exactly, PostgreSQL's uuid type ignores case.
    const accountId = input.accountId.toLowerCase();
    const secretId = input.secretId.toLowerCase();

    const outcome = await this.deps.metadata.transaction(async (tx) => {
      // The write comes first on purpose. On SQLite it makes this transaction the single writer before
      // it reads anything (a transaction that reads first and writes later can fail with a busy
      // snapshot if another process, such as the CLI, wrote in between). On PostgreSQL the account
      // lock taken next serialises revocations within the account, and the count after it is a new
      // statement that sees every revocation committed before the lock was granted: two concurrent
      // revocations of an account's last two active secrets cannot both succeed.
      if (!(await tx.clientSecrets.revokeActive({ accountId, id: secretId, at: new Date() }))) {
        if (!(await tx.clientSecrets.findInAccount(accountId, secretId))) throw notFound();
        return 'already_revoked' as const;
      }
      await tx.accounts.lock(accountId);
      if ((await tx.clientSecrets.countActive(accountId)) === 0) {
        // Thrown inside the transaction, so the revocation above is rolled back.
        throw new DomainError('conflict', 'Cannot revoke the last active client secret of the account; create another one first');
      }
      return 'revoked' as const;
    });

    // Also on `already_revoked`: if the earlier attempt committed but could not bump the version (say
    // Redis was unreachable), its retry is what makes every process re-check.
    await this.deps.authenticator.changed();
    return outcome;
  }

  /** For the operator CLI, which names a secret but not its account: revokes it in whichever account holds it. */
  async revokeById(secretId: string): Promise<{ accountId: string; outcome: 'revoked' | 'already_revoked' }> {
    const secret = isUuid(secretId) ? await this.deps.metadata.clientSecrets.findById(secretId.toLowerCase()) : null;
    if (!secret) throw new DomainError('not_found', `No client secret with id ${secretId}`);
    const { accountId } = secret;
    return { accountId, outcome: await this.revoke({ accountId, secretId: secret.id }) };
  }
}
