import { EntitySchema, type Opt, type Ref } from '@mikro-orm/core';
import { v7 as uuidv7 } from 'uuid';
import { type Account, AccountEntity } from './account.entity.js';
import type { ClientSecretScope } from '../../../ports/metadata.js';

/**
 * A management credential (`svc_cs_…`). Only the SHA-256 digest of the value is stored, so a leaked
 * database does not leak usable secrets; `hint` is the masked form shown in listings. A revoked
 * secret keeps its row (with `revokedAt`) so listings and audits still see it.
 */
export interface ClientSecret {
  id: Opt<string>;
  account: Ref<Account>;
  label: string;
  scopes: ClientSecretScope[];
  /** Lower-case hex SHA-256 of the full secret; unique, the lookup key on every request. */
  digest: string;
  hint: string;
  createdAt: Opt<Date>;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export const ClientSecretEntity = new EntitySchema<ClientSecret>({
  name: 'ClientSecret',
  tableName: 'client_secret',
  properties: {
    id: { type: 'uuid', primary: true, onCreate: () => uuidv7() },
    account: { kind: 'm:1', entity: () => AccountEntity, ref: true, deleteRule: 'cascade' },
    label: { type: 'string', length: 200 },
    // JSON rather than a native array: PostgreSQL has text[], SQLite has nothing, and JSON means
    // one column type and one code path on both.
    scopes: { type: 'json' },
    digest: { type: 'string', length: 64, unique: 'client_secret_digest_unique' },
    hint: { type: 'string', length: 32 },
    createdAt: { type: 'datetime', onCreate: () => new Date() },
    lastUsedAt: { type: 'datetime', nullable: true },
    revokedAt: { type: 'datetime', nullable: true },
  },
});
