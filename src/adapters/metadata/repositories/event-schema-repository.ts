import type { EntityManager } from '@mikro-orm/core';
import { type EventSchema, EventSchemaEntity, type StoredSchemaField } from '../entities/event-schema.entity.js';

export interface NewEventSchema {
  appId: string;
  eventName: string;
  description?: string;
  fields: StoredSchemaField[];
  metadataFields?: StoredSchemaField[];
}

/** Throws MikroORM's UniqueConstraintViolationException when the app already has this event name. */
export async function createEventSchema(em: EntityManager, input: NewEventSchema): Promise<EventSchema> {
  const schema = em.create(EventSchemaEntity, {
    app: input.appId,
    eventName: input.eventName,
    description: input.description ?? '',
    fields: input.fields,
    metadataFields: input.metadataFields ?? [],
  });
  await em.flush();
  return schema;
}

export async function findEventSchemaByName(em: EntityManager, appId: string, eventName: string): Promise<EventSchema | null> {
  return em.findOne(EventSchemaEntity, { app: appId, eventName });
}
