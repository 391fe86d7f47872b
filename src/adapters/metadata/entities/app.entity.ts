import { EntitySchema, type Opt, type Ref } from '@mikro-orm/core';
import { v7 as uuidv7 } from 'uuid';
import { type Account, AccountEntity } from './account.entity.js';
import { timestampProperties } from './timestamps.js';
import type { MetadataValue } from '../../../domain/default-metadata.js';

/**
 * An app: one event namespace and exactly one active ingestion key. The key itself is never stored,
 * only its SHA-256 digest (looked up on every ingest request) and its first characters (shown back
 * as `apiKeyPrefix` / `apiKeyHint`). Rotation overwrites both, which is what revokes the old key.
 */
export interface App {
  id: Opt<string>;
  account: Ref<Account>;
  name: string;
  /** Unique within the account, not globally: two accounts may both have an app called `shop`. */
  slug: string;
  apiKeyDigest: string;
  apiKeyPrefix: string;
  defaultMetadata: Record<string, MetadataValue>;
  createdAt: Opt<Date>;
  updatedAt: Opt<Date>;
}

export const AppEntity = new EntitySchema<App>({
  name: 'App',
  tableName: 'app',
  uniques: [{ name: 'app_account_slug_unique', properties: ['account', 'slug'] }],
  properties: {
    id: { type: 'uuid', primary: true, onCreate: () => uuidv7() },
    account: { kind: 'm:1', entity: () => AccountEntity, ref: true, deleteRule: 'cascade' },
    name: { type: 'string', length: 200 },
    slug: { type: 'string', length: 63 },
    apiKeyDigest: { type: 'string', length: 64, unique: 'app_api_key_digest_unique' },
    apiKeyPrefix: { type: 'string', length: 32 },
    defaultMetadata: { type: 'json' },
    ...timestampProperties<App>(),
  },
});
