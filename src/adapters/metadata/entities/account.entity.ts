import { EntitySchema, type Opt } from '@mikro-orm/core';
import { v7 as uuidv7 } from 'uuid';

/**
 * The tenant. Every app and client secret belongs to exactly one account; a client secret only ever
 * sees its own account's apps (another account's app is 404, never 403: no existence leaks).
 */
export interface Account {
  id: Opt<string>;
  name: string;
  createdAt: Opt<Date>;
}

export const AccountEntity = new EntitySchema<Account>({
  name: 'Account',
  tableName: 'account',
  properties: {
    // UUIDv7: time-ordered, so new rows land at the right edge of the primary key index.
    id: { type: 'uuid', primary: true, onCreate: () => uuidv7() },
    name: { type: 'string', length: 200 },
    createdAt: { type: 'datetime', onCreate: () => new Date() },
  },
});
