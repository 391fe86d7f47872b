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

/** The schema with this id in this app, or null; `id` must have the form of a UUID. */
export async function findEventSchemaById(em: EntityManager, appId: string, id: string): Promise<EventSchema | null> {
  return em.findOne(EventSchemaEntity, { id, app: appId });
}

/** A page of an app's schemas in creation order, which keeps offset paging stable while schemas are added. */
export async function listEventSchemas(em: EntityManager, appId: string, page: { limit: number; offset: number }): Promise<EventSchema[]> {
  return em.find(EventSchemaEntity, { app: appId }, { orderBy: { createdAt: 'asc', id: 'asc' }, limit: page.limit, offset: page.offset });
}

/** True when a row was deleted. */
export async function deleteEventSchemaById(em: EntityManager, appId: string, id: string): Promise<boolean> {
  return (await em.nativeDelete(EventSchemaEntity, { id, app: appId })) > 0;
}
