import { EntitySchema, type Opt, type Ref } from '@mikro-orm/core';
import { v7 as uuidv7 } from 'uuid';
import { type App, AppEntity } from './app.entity.js';
import { timestampProperties } from './timestamps.js';
import type { Channel } from '../../../domain/alerting.js';

/**
 * Where alerts go: a chat webhook (Slack, Discord), a signed webhook, or an e-mail address. Exactly
 * one of `url` and `email` is set, by type.
 *
 * `url` is kept whole because a Slack or Discord webhook URL is itself the credential (its path is
 * the secret); the API only ever shows it masked. `signingSecret` (`whsec_…`, webhook type only) is
 * stored in clear because the worker must sign with it; it is shown once, in the create response.
 */
export interface Destination {
  id: Opt<string>;
  app: Ref<App>;
  type: Channel;
  label: string;
  url: string | null;
  email: string | null;
  signingSecret: string | null;
  /** Set by a successful test delivery; reset whenever `url` or `email` changes. */
  verified: Opt<boolean>;
  verifiedAt: Date | null;
  createdAt: Opt<Date>;
  updatedAt: Opt<Date>;
}

export const DestinationEntity = new EntitySchema<Destination>({
  name: 'Destination',
  tableName: 'destination',
  properties: {
    id: { type: 'uuid', primary: true, onCreate: () => uuidv7() },
    app: { kind: 'm:1', entity: () => AppEntity, ref: true, deleteRule: 'cascade' },
    type: { type: 'string', length: 16 },
    label: { type: 'string', length: 200 },
    url: { type: 'text', nullable: true },
    email: { type: 'string', length: 320, nullable: true },
    signingSecret: { type: 'string', length: 100, nullable: true },
    verified: { type: 'boolean', onCreate: () => false },
    verifiedAt: { type: 'datetime', nullable: true },
    ...timestampProperties<Destination>(),
  },
});
