import { EntitySchema, type Opt, type Ref } from '@mikro-orm/core';
import { v7 as uuidv7 } from 'uuid';
import { type App, AppEntity } from './app.entity.js';
import { timestampProperties } from './timestamps.js';
import type { StoredSchemaField } from '../../../ports/metadata.js';

/**
 * The schema of one event name within one app. Deleting the app deletes its schemas: the foreign
 * key is ON DELETE CASCADE in the database, so it holds for bulk deletes and raw SQL too, not only
 * for deletes that go through the ORM's unit of work.
 */
export interface EventSchema {
  id: Opt<string>;
  app: Ref<App>;
  /** Unique within the app; case-sensitive on both databases. */
  eventName: string;
  description: string;
  fields: StoredSchemaField[];
  metadataFields: StoredSchemaField[];
  createdAt: Opt<Date>;
  updatedAt: Opt<Date>;
}

export const EventSchemaEntity = new EntitySchema<EventSchema>({
  name: 'EventSchema',
  tableName: 'event_schema',
  uniques: [{ name: 'event_schema_app_event_name_unique', properties: ['app', 'eventName'] }],
  properties: {
    id: { type: 'uuid', primary: true, onCreate: () => uuidv7() },
    app: { kind: 'm:1', entity: () => AppEntity, ref: true, deleteRule: 'cascade' },
    eventName: { type: 'string', length: 200 },
    description: { type: 'text' },
    fields: { type: 'json' },
    metadataFields: { type: 'json' },
    ...timestampProperties<EventSchema>(),
  },
});
